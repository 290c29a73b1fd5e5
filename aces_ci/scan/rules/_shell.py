"""A small reader of shell text into simple commands, for the rules that follow data and files across lines.

It never runs anything. It splits a script into simple commands (words, assignments, redirections,
whether stdin comes from a pipe) and reads command substitutions ``$(…)`` and backticks as commands
of their own, so that ``x=$(cat ~/.env)`` and ``curl -o f …; bash f`` can be followed from line to
line. Here-document bodies are data and are skipped; comments are dropped.

Why not a real parser: ``bashlex`` 0.18 was measured on the shell scripts of real skills (see
BENCHMARKS.md, "Security rules, round two") and parsed 1 of 40 (``[[ ]]``, ``case``, ``$#``,
here-documents and arithmetic all raise), at about 7.5 ms a script. This reader accepts whatever it
is given: an unbalanced quote or parenthesis ends the word or the command at the end of the text,
never an exception.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

_OPERATOR_CHARS = frozenset(";&|()<>")
_KEYWORDS = frozenset(
    {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "in", "case", "esac", "{", "}", "!"}
    | {"time", "[[", "]]", "function", "sudo", "command", "exec", "nohup", "env", "xargs"}
)
"""Words that open, close or wrap a command: the program is the first word after them.

``sudo``, ``command``, ``exec``, ``nohup``, ``env`` and ``xargs`` run the command that follows, so
``sudo rm -rf /`` is an ``rm``. (Their own options are skipped as words starting with ``-``.)"""
_ASSIGNMENT = re.compile(r"^(?:export\s+|local\s+|declare\s+(?:-\w+\s+)*|readonly\s+)?([A-Za-z_]\w*)=(.*)$", re.S)
_REDIRECT = re.compile(r"^(\d*|&)(>>|>\||>&|>|<<<|<<-|<<|<&|<>|<)$")


@dataclass
class Command:
    """One simple command: ``words`` as written (quotes kept) and the facts the rules read."""

    line: int
    """File line the command starts on."""
    words: list[str] = field(default_factory=list)
    """The command's words with their quotes, assignments and keywords left out."""
    assignments: list[tuple[str, str]] = field(default_factory=list)
    """``NAME=value`` words before the program, value as written."""
    redirects: list[tuple[str, str]] = field(default_factory=list)
    """(operator, target as written): ``('>', 'out.txt')``, ``('<', '~/.env')``."""
    piped: bool = False
    """Whether stdin comes from the previous command through ``|``."""
    text: str = ""
    """The command's text as written, for evidence and for pattern checks."""
    wrappers: list[str] = field(default_factory=list)
    """Keywords and wrappers skipped before the program (``sudo``, ``if``, ``env``…)."""

    @property
    def program(self) -> str:
        """The program's name, without a path (``/usr/bin/curl`` → ``curl``); empty for a bare assignment."""
        return unquote(self.words[0]).rsplit("/", 1)[-1] if self.words else ""

    @property
    def args(self) -> list[str]:
        return self.words[1:]


def unquote(word: str) -> str:
    """The word with shell quotes and backslash escapes removed; ``$`` references kept."""
    out: list[str] = []
    quote = ""
    index = 0
    while index < len(word):
        char = word[index]
        if quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"' and index + 1 < len(word):
                index += 1
                out.append(word[index])
            else:
                out.append(char)
        elif char in "'\"":
            quote = char
        elif char == "\\" and index + 1 < len(word):
            index += 1
            out.append(word[index])
        else:
            out.append(char)
        index += 1
    return "".join(out)


def _closing(text: str, start: int, opener: str, closer: str) -> int:
    """Index just past the ``closer`` matching an ``opener`` before ``start``, quotes respected; len(text) if none."""
    depth = 1
    index = start
    quote = ""
    while index < len(text):
        char = text[index]
        if quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"':
                index += 1
        elif char in "'\"`":
            quote = char
        elif char == "\\":
            index += 1
        elif char == opener:
            depth += 1
        elif char == closer:
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return len(text)


@dataclass
class _Token:
    kind: str  # "word", "op", "newline"
    text: str
    line: int
    subs: list[tuple[str, int]] = field(default_factory=list)
    """Command substitutions inside a word: (inner text, line)."""


def _tokens(text: str, first_line: int) -> Iterator[_Token]:
    """Words and operators of ``text``, here-document bodies skipped, comments dropped."""
    index, line, size = 0, first_line, len(text)
    heredocs: list[str] = []
    while index < size:
        char = text[index]
        if char == "\n":
            yield _Token("newline", "\n", line)
            line += 1
            index += 1
            if heredocs:  # skip each here-document body, up to its delimiter line
                for delimiter in heredocs:
                    while index < size:
                        end = text.find("\n", index)
                        end = size if end < 0 else end
                        body_line = text[index:end]
                        index = end + 1
                        line += 1
                        if body_line.strip() == delimiter:
                            break
                heredocs = []
            continue
        if char in " \t\r":
            index += 1
            continue
        if char == "\\" and text.startswith("\\\n", index):
            index += 2
            line += 1
            continue
        if char == "#":
            end = text.find("\n", index)
            index = size if end < 0 else end
            continue
        if char in _OPERATOR_CHARS and not text.startswith(("<(", ">("), index):
            for operator in ("&&", "||", ";;", "|&", ">>", "<<<", "<<-", "<<", "&>", ">&", "<&", ">|"):
                if text.startswith(operator, index):
                    break
            else:
                operator = char
            index += len(operator)
            yield _Token("op", operator, line)
            if operator in ("<<", "<<-"):
                # the delimiter word follows; its body starts on the next line
                match = re.compile(r"[ \t]*(['\"]?)([^\s'\";&|<>()]+)\1").match(text, index)
                if match:
                    heredocs.append(match[2])
                    yield _Token("word", match[0].strip(), line)
                    index = match.end()
            continue
        start, start_line = index, line
        subs: list[tuple[str, int]] = []
        quote = ""
        while index < size:
            char = text[index]
            if quote:
                if char == quote:
                    quote = ""
                elif char == "\\" and quote == '"':
                    index += 1
                elif quote == '"' and text.startswith("$(", index) and not text.startswith("$((", index):
                    end = _closing(text, index + 2, "(", ")")
                    subs.append((text[index + 2 : end - 1], line))
                    line += text.count("\n", index, end)
                    index = end
                    continue
                elif char == "\n":
                    line += 1
                index += 1
                continue
            if char in " \t\r\n" or (char in _OPERATOR_CHARS and not text.startswith(("<(", ">("), index)):
                break
            if char in "'\"":
                quote = char
            elif char == "\\":
                if text.startswith("\\\n", index):
                    line += 1
                index += 1
            elif text.startswith("$((", index):
                end = _closing(text, index + 3, "(", ")")
                index = _closing(text, end, "(", ")") if end < size else size
                continue
            elif text.startswith(("$(", "<(", ">("), index):
                end = _closing(text, index + 2, "(", ")")
                subs.append((text[index + 2 : end - 1], line))
                line += text.count("\n", index, end)
                index = end
                continue
            elif char == "`":
                end = text.find("`", index + 1)
                end = size if end < 0 else end
                subs.append((text[index + 1 : end], line))
                line += text.count("\n", index, end)
                index = end + 1
                continue
            elif char == "$" and text.startswith("${", index):
                end = _closing(text, index + 2, "{", "}")
                index = end
                continue
            index += 1
        word = text[start:index]
        if word.isdigit() and text.startswith((">", "<"), index):
            continue  # a file-descriptor number: 2>&1, 2>/dev/null
        yield _Token("word", word, start_line, subs)


def commands(text: str, first_line: int = 1) -> list[Command]:
    """The simple commands of ``text`` in order, those inside substitutions right before their command."""
    found: list[Command] = []
    current = Command(first_line)
    pending_redirect: str | None = None
    lines = text.split("\n")

    def finish(next_piped: bool) -> None:
        nonlocal current
        if not current.words and current.wrappers[-1:] == ["env"]:
            current.words.append(current.wrappers[-1])  # a bare `env` is the program, printing the environment
        if current.words or current.assignments or current.redirects:
            last = current.line - first_line
            current.text = lines[last] if 0 <= last < len(lines) else ""
            found.append(current)
        current = Command(current.line, piped=next_piped)

    for token in _tokens(text, first_line):
        if not (current.words or current.assignments or current.redirects):
            current.line = token.line
        if token.kind == "newline":
            if pending_redirect is None:
                finish(False)
            continue
        if token.kind == "op":
            if _REDIRECT.match(token.text):
                pending_redirect = token.text
                continue
            if token.text in ("&>", ">&"):
                pending_redirect = ">"
                continue
            finish(token.text in ("|", "|&"))
            pending_redirect = None
            continue
        for inner, inner_line in token.subs:
            found.extend(commands(inner, inner_line))
        if pending_redirect is not None:
            current.redirects.append((pending_redirect, token.text))
            pending_redirect = None
            continue
        redirect = re.match(r"^(\d*)(>>|>|<)(.+)$", token.text)
        if redirect and "=" not in token.text.split(">")[0] and not token.text.startswith(("<(", ">(")):
            current.redirects.append((redirect[2], redirect[3]))
            continue
        if not current.words:
            assignment = _ASSIGNMENT.match(token.text)
            if assignment and not token.text.startswith(("'", '"')):
                current.assignments.append((assignment[1], assignment[2]))
                continue
            if token.text in ("export", "local", "declare", "readonly"):
                continue
            if token.text in _KEYWORDS or token.text.startswith("-"):  # a wrapper's option: sudo -E …
                current.wrappers.append(token.text)
                continue
        current.words.append(token.text)
    finish(False)
    return found
