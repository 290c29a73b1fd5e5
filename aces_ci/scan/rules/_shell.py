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


_OPERATORS = ("&&", "||", ";;", "|&", ">>", "<<<", "<<-", "<<", "&>", ">&", "<&", ">|")
"""Operators of more than one character, longest first where one starts another."""
_HEREDOC_DELIMITER = re.compile(r"[ \t]*(['\"]?)([^\s'\";&|<>()]+)\1")


@dataclass
class _Reader:
    """A position in shell text, its index and its file line, that the tokenizer moves forward."""

    text: str
    index: int
    line: int

    @property
    def size(self) -> int:
        return len(self.text)

    def at(self, *prefixes: str) -> bool:
        return self.text.startswith(prefixes, self.index)

    def at_operator(self) -> bool:
        """An operator character here, other than the ``<(``/``>(`` that opens a process substitution."""
        return self.text[self.index] in _OPERATOR_CHARS and not self.at("<(", ">(")

    def skip_blank(self) -> bool:
        """Step over a blank, a line continuation or a comment here; False when there is none."""
        char = self.text[self.index]
        if char in " \t\r":
            self.index += 1
        elif self.at("\\\n"):
            self.index += 2
            self.line += 1
        elif char == "#":
            end = self.text.find("\n", self.index)
            self.index = self.size if end < 0 else end
        else:
            return False
        return True

    def skip_heredoc_bodies(self, delimiters: list[str]) -> None:
        """Skip each here-document body in turn, up to and with its delimiter line."""
        for delimiter in delimiters:
            while self.index < self.size:
                end = self.text.find("\n", self.index)
                end = self.size if end < 0 else end
                body_line = self.text[self.index : end]
                self.index = end + 1
                self.line += 1
                if body_line.strip() == delimiter:
                    break

    def operator(self) -> str:
        operator = next((op for op in _OPERATORS if self.at(op)), self.text[self.index])
        self.index += len(operator)
        return operator

    def heredoc_delimiter(self) -> re.Match[str] | None:
        """The delimiter word after ``<<``, read past; its body starts on the next line."""
        match = _HEREDOC_DELIMITER.match(self.text, self.index)
        if match:
            self.index = match.end()
        return match

    def word(self) -> _Token:
        """The word starting here, with the command substitutions inside it."""
        start, start_line = self.index, self.line
        subs: list[tuple[str, int]] = []
        quote = ""
        while self.index < self.size:
            if quote:
                quote = self._quoted(quote, subs)
            elif self.text[self.index] in " \t\r\n" or self.at_operator():
                break
            else:
                quote = self._unquoted(subs)
        return _Token("word", self.text[start : self.index], start_line, subs)

    def _quoted(self, quote: str, subs: list[tuple[str, int]]) -> str:
        """Step over one character inside ``quote``; the quote still open after it ("" once closed)."""
        char = self.text[self.index]
        if char == quote:
            quote = ""
        elif char == "\\" and quote == '"':
            self.index += 1
        elif quote == '"' and self.at("$(") and not self.at("$(("):
            self._substitution(self.index + 2, subs)
            return quote
        elif char == "\n":
            self.line += 1
        self.index += 1
        return quote

    def _unquoted(self, subs: list[tuple[str, int]]) -> str:
        """Step over one unquoted character or expansion; the quote it opens, if it is one."""
        char = self.text[self.index]
        if char in "'\"":
            self.index += 1
            return char
        if self.at("$(("):  # arithmetic: no commands inside
            end = _closing(self.text, self.index + 3, "(", ")")
            self.index = _closing(self.text, end, "(", ")") if end < self.size else self.size
        elif self.at("$(", "<(", ">("):
            self._substitution(self.index + 2, subs)
        elif char == "`":
            end = self.text.find("`", self.index + 1)
            end = self.size if end < 0 else end
            subs.append((self.text[self.index + 1 : end], self.line))
            self.line += self.text.count("\n", self.index, end)
            self.index = end + 1
        elif self.at("${"):
            self.index = _closing(self.text, self.index + 2, "{", "}")
        else:
            if self.at("\\\n"):
                self.line += 1
            self.index += 2 if char == "\\" else 1
        return ""

    def _substitution(self, start: int, subs: list[tuple[str, int]]) -> None:
        """Record the substitution whose text starts at ``start``, up to its ``)``, and move past it."""
        end = _closing(self.text, start, "(", ")")
        subs.append((self.text[start : end - 1], self.line))
        self.line += self.text.count("\n", self.index, end)
        self.index = end


def _tokens(text: str, first_line: int) -> Iterator[_Token]:
    """Words and operators of ``text``, here-document bodies skipped, comments dropped."""
    reader = _Reader(text, 0, first_line)
    heredocs: list[str] = []
    while reader.index < reader.size:
        if text[reader.index] == "\n":
            yield _Token("newline", "\n", reader.line)
            reader.line += 1
            reader.index += 1
            reader.skip_heredoc_bodies(heredocs)
            heredocs = []
        elif reader.skip_blank():
            continue
        elif reader.at_operator():
            operator = reader.operator()
            yield _Token("op", operator, reader.line)
            delimiter = reader.heredoc_delimiter() if operator in ("<<", "<<-") else None
            if delimiter:
                heredocs.append(delimiter[2])
                yield _Token("word", delimiter[0].strip(), reader.line)
        else:
            token = reader.word()
            if not (token.text.isdigit() and reader.at(">", "<")):  # not a file-descriptor number: 2>&1
                yield token


class _Splitter:
    """Gathers the tokens of one text into simple commands, in order."""

    def __init__(self, text: str, first_line: int) -> None:
        self.first_line = first_line
        self.lines = text.split("\n")
        self.found: list[Command] = []
        self.current = Command(first_line)
        self.pending_redirect: str | None = None
        """A redirection operator whose target is the next word."""

    def take(self, token: _Token) -> None:
        current = self.current
        if not (current.words or current.assignments or current.redirects):
            current.line = token.line
        if token.kind == "newline":
            if self.pending_redirect is None:
                self.finish(False)
        elif token.kind == "op":
            self._operator(token.text)
        else:
            for inner, inner_line in token.subs:
                self.found.extend(commands(inner, inner_line))
            self._word(token.text)

    def finish(self, next_piped: bool) -> None:
        current = self.current
        if not current.words and current.wrappers[-1:] == ["env"]:
            current.words.append(current.wrappers[-1])  # a bare `env` is the program, printing the environment
        if current.words or current.assignments or current.redirects:
            last = current.line - self.first_line
            current.text = self.lines[last] if 0 <= last < len(self.lines) else ""
            self.found.append(current)
        self.current = Command(current.line, piped=next_piped)

    def _operator(self, operator: str) -> None:
        if _REDIRECT.match(operator):
            self.pending_redirect = operator
        elif operator in ("&>", ">&"):
            self.pending_redirect = ">"
        else:
            self.finish(operator in ("|", "|&"))
            self.pending_redirect = None

    def _word(self, word: str) -> None:
        current = self.current
        if self.pending_redirect is not None:
            current.redirects.append((self.pending_redirect, word))
            self.pending_redirect = None
            return
        redirect = re.match(r"^(\d*)(>>|>|<)(.+)$", word)
        if redirect and "=" not in word.partition(">")[0] and not word.startswith(("<(", ">(")):
            current.redirects.append((redirect[2], redirect[3]))
        elif current.words or not self._before_program(word):
            current.words.append(word)

    def _before_program(self, word: str) -> bool:
        """Take ``word`` as an assignment, a declaration keyword or a wrapper; False when it is the program."""
        current = self.current
        assignment = _ASSIGNMENT.match(word)
        if assignment and not word.startswith(("'", '"')):
            current.assignments.append((assignment[1], assignment[2]))
        elif word in _KEYWORDS or word.startswith("-"):  # a wrapper's option: sudo -E …
            current.wrappers.append(word)
        elif word not in ("export", "local", "declare", "readonly"):
            return False
        return True


def commands(text: str, first_line: int = 1) -> list[Command]:
    """The simple commands of ``text`` in order, those inside substitutions right before their command."""
    splitter = _Splitter(text, first_line)
    for token in _tokens(text, first_line):
        splitter.take(token)
    splitter.finish(False)
    return splitter.found
