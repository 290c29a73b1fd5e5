"""What shell code does, followed from command to command: secrets to the network, downloads run, things destroyed.

A small taint model over the commands :mod:`._shell` reads. **Sources** are what must not leave
the machine: credential files (``~/.ssh/``, ``~/.aws/credentials``, ``.git-credentials``,
``.env``…), the whole environment (``env``, ``printenv``), the keychain (``security
find-generic-password``, ``secret-tool lookup``) and the AWS secret variables. Taint moves through
variables (``x=$(cat ~/.env)``), command substitution, pipes (``cat f | base64 | …``) and files
(``cat ~/.env > /tmp/x``, ``tar czf out.tgz ~/.ssh``). **Sinks** are network clients sending to a
host that is not this machine: curl and wget with any verb (a URL query carries data as well as a
body), nc/ncat/socat/telnet, ssh fed on stdin, scp and rsync to a remote, and DNS lookups (``dig``,
``nslookup``, ``host``: the name itself carries the data). Credentials in ``-H``/``-u`` arguments
are how APIs authenticate and do not count.

The same walk records downloads (``curl -o f``, ``curl -O …/f``, ``wget …/f``, ``curl … > f``) and
reports when one is run later (``bash f``, ``./f``, ``source f``), and resolves a program held in a
variable (``x=curl; $x … | bash``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from ._shell import Command, unquote

CREDENTIAL_FILE = re.compile(
    r"\.ssh/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws/credentials|\.netrc\b|\.git-credentials|\.docker/config\.json"
    r"|\.kube/config|\.npmrc\b|\.pypirc\b|/etc/shadow\b|\.(?:bash|zsh)_history|\.gnupg/|\.config/gh/hosts\.yml"
    r"|(?<![\w.])\.env\b(?![.\w])|(?:^|[/~])\.ssh\b"
)
"""Files whose content is a credential; SEC003's list, plus ``~/.ssh`` as a folder and gh's token file."""
_AWS_SECRET = re.compile(r"\$\{?(AWS_SECRET_ACCESS_KEY|AWS_ACCESS_KEY_ID|AWS_SESSION_TOKEN)\b")
_KEYCHAIN = re.compile(
    r"\bsecurity\s+(?:find-generic-password|find-internet-password|dump-keychain)\b|\bsecret-tool\s+lookup\b"
    r"|\bkeyring\s+get\b"
)
_VARIABLE = re.compile(r"\$\{?([A-Za-z_]\w*)")
_LOCAL_HOST = re.compile(r"^(?:localhost|127(?:\.\d+){3}|0\.0\.0\.0|\[?::1\]?|host\.docker\.internal)$", re.I)
_URL_HOST = re.compile(r"\b(?:https?|ftp|s?ftp|rsync|wss?)://(?:[^/\s@\"']*@)?([A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\])")
_REMOTE_PATH = re.compile(r"^(?:[\w.-]+@)?([A-Za-z0-9][\w.-]*):(?!//)")
_AUTH_OPTIONS = frozenset({"-H", "--header", "-u", "--user", "--oauth2-bearer", "--proxy-user", "-A", "--user-agent"})
_HTTP_CLIENTS = frozenset({"curl", "wget", "http", "https", "xh", "httpie"})
_STREAM_CLIENTS = frozenset({"nc", "ncat", "netcat", "socat", "telnet", "ssh", "openssl"})
_COPY_CLIENTS = frozenset({"scp", "rsync", "sftp"})
_DNS_CLIENTS = frozenset({"dig", "nslookup", "host", "drill", "resolvectl"})
_INTERPRETERS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "source", ".", "python", "python3", "node", "perl", "ruby", "pwsh"}
)
_DOWNLOADERS = frozenset({"curl", "wget"})
_CHECKSUM = re.compile(
    r"\b(?:sha(?:1|224|256|384|512)sum|shasum|md5sum|b2sum|gpg|cosign|minisign|openssl\s+dgst|sigstore)\b"
)
_INSECURE = re.compile(r"\bhttp://(?!(?:localhost|127\.0\.0\.1)(?:[:/]|$))|\bhttps?://\d{1,3}(?:\.\d{1,3}){3}(?![\d.])")


@dataclass(frozen=True)
class Event:
    """One thing a rule reports: the piece's line, what happened, and whether it is an error."""

    line: int
    message: str
    error: bool = True
    since: int | None = None
    """A line the event refers back to (where a run file was downloaded), in the piece's own numbering."""


def source_in(text: str) -> str | None:
    """What secret ``text`` (a word or a command) reads directly, or None."""
    if CREDENTIAL_FILE.search(text):
        return "a credential file"
    if _KEYCHAIN.search(text):
        return "a keychain secret"
    aws = _AWS_SECRET.search(text)
    if aws:
        return f"${aws[1]}"
    if re.search(r"\$\(\s*(?:env|printenv)\s*\)|`\s*(?:env|printenv)\s*`", text):
        return "the whole environment"
    return None


@dataclass
class _State:
    """What the walk knows so far about one piece of shell."""

    variables: dict[str, str] = field(default_factory=dict)
    """Tainted variable → what secret it holds."""
    files: dict[str, str] = field(default_factory=dict)
    """Tainted file (as written and by base name) → what secret it holds."""
    programs: dict[str, str] = field(default_factory=dict)
    """Variable → the program it names, when a variable is set to one word (``x=curl``)."""
    downloads: dict[str, tuple[int, bool]] = field(default_factory=dict)
    """Downloaded file by base name → (line, fetched insecurely)."""
    checked: set[str] = field(default_factory=set)
    """Downloaded files checked with a checksum or made executable (SEC002 reports those) since."""
    piped_secret: str | None = None
    """What the previous command of the pipeline wrote to its stdout, if a secret."""
    piped_download: bool = False
    """Whether the previous command of the pipeline is a downloader named through a variable, writing to stdout."""
    piped_insecure: bool = False
    """Whether that download comes over plain HTTP or from a bare IP address."""


def _taint_of(word: str, state: _State) -> str | None:
    direct = source_in(word)
    if direct:
        return direct
    for name in _VARIABLE.findall(word):
        if name in state.variables:
            return state.variables[name]
    plain = unquote(word).lstrip("@<")
    for candidate in (plain, PurePosixPath(plain).name if plain else ""):
        if candidate and candidate in state.files:
            return state.files[candidate]
    return None


def _payload_words(command: Command) -> list[str]:
    """The arguments that carry data: everything but authentication headers and their values."""
    words: list[str] = []
    skip = False
    for word in command.args:
        if skip:
            skip = False
            continue
        plain = unquote(word)
        if plain in _AUTH_OPTIONS:
            skip = True
            continue
        if any(plain.startswith(option + "=") for option in _AUTH_OPTIONS if option.startswith("--")):
            continue
        words.append(word)
    return words


def _remote_host(command: Command, program: str) -> str | None:
    """The host a network command talks to, None when it is this machine or cannot be told."""
    args = [unquote(word) for word in command.args]
    hosts: list[str] = [match[1] for arg in args for match in [_URL_HOST.search(arg)] if match]
    if program in _COPY_CLIENTS:
        hosts += [
            m[1] for arg in args for m in [_REMOTE_PATH.match(arg)] if m and not re.match(r"^[A-Za-z]:[\\/]", arg)
        ]
    elif program in _STREAM_CLIENTS or program in _DNS_CLIENTS:
        positional = [arg for arg in args if not arg.startswith("-") and not arg.isdigit()]
        if program == "ssh":
            positional = positional[:1]
        if program in ("socat", "openssl"):
            positional = [
                p.split(":", 1)[1] if ":" in p else p for p in positional if "connect" in p.lower() or ":" in p
            ]
        hosts += [arg.split("@")[-1].split(":")[0] for arg in positional]
    elif program in _HTTP_CLIENTS and not hosts:
        hosts += [arg for arg in args if re.match(r"^[\w-]+(?:\.[\w-]+)+(?:[:/]|$)", arg) and not arg.startswith("-")]
    for host in hosts:
        if host and not _LOCAL_HOST.match(host):
            return host
    return None


def _resolved_program(command: Command, state: _State) -> tuple[str, bool]:
    """The program, looked up through a variable (``$x`` set to ``curl``); and whether it was."""
    program = command.program
    match = re.fullmatch(r"\$\{?([A-Za-z_]\w*)\}?", unquote(command.words[0])) if command.words else None
    if match and match[1] in state.programs:
        return state.programs[match[1]], True
    return program, False


def _writes(command: Command) -> list[str]:
    """Files a command writes: ``> f``, ``tee f``, the archive of ``tar -c``/``zip``, ``cp``'s target."""
    out = [target for operator, target in command.redirects if operator in (">", ">>", ">|")]
    args = [unquote(word) for word in command.args]
    program = command.program
    if program == "tee":
        out += [arg for arg in args if not arg.startswith("-")]
    elif program in ("cp", "mv", "install") and len(args) >= 2:
        out.append(args[-1])
    elif program == "tar":
        for index, arg in enumerate(args):
            creates = arg.startswith("-") and "f" in arg and "c" in arg + " ".join(args[:index])
            if (creates or re.fullmatch(r"[a-zA-Z]*c[a-zA-Z]*f", arg)) and index + 1 < len(args):
                out.append(args[index + 1])
    elif program in ("zip", "7z", "gpg", "openssl", "base64", "gzip", "xz"):
        out += [args[index + 1] for index, arg in enumerate(args[:-1]) if arg in ("-o", "--output", "-out")]
        if program == "zip":
            out += [arg for arg in args if not arg.startswith("-")][:1]
    return out


def _downloaded_file(command: Command) -> str | None:
    """The base name of the file a curl/wget command writes, None for stdout."""
    args = [unquote(word) for word in command.args]
    urls = [arg for arg in args if re.match(r"^(?:https?|ftp)://", arg)]
    for index, arg in enumerate(args):
        output_options = ("-O", "--output-document") if command.program == "wget" else ("-o", "--output")
        if arg in output_options and index + 1 < len(args):
            return None if args[index + 1] == "-" else PurePosixPath(args[index + 1]).name
        if arg.startswith(("--output=", "--output-document=")):
            return PurePosixPath(arg.split("=", 1)[1]).name
        if re.fullmatch(r"-[a-zA-Z]*o", arg) and command.program == "curl" and index + 1 < len(args):
            return PurePosixPath(args[index + 1]).name
    for operator, target in command.redirects:
        if operator in (">", ">>", ">|"):
            return PurePosixPath(unquote(target)).name
    remote_name = command.program == "wget" or any(
        arg == "--remote-name" or re.fullmatch(r"-[a-zA-Z]*O[a-zA-Z]*", arg) for arg in args
    )
    if remote_name and urls:
        name = PurePosixPath(urls[0].split("?", 1)[0].split("#", 1)[0]).name
        return name or None
    return None


def _run_target(command: Command, program: str) -> str | None:
    """The file a command runs: ``bash f``, ``source f``, ``python f``, ``./f``."""
    if program in _INTERPRETERS:
        for word in command.args:
            plain = unquote(word)
            if plain.startswith("-"):
                continue
            return PurePosixPath(plain).name
        return None
    if command.words and unquote(command.words[0]).startswith(("./", "/", "~/")) and "/" in unquote(command.words[0]):
        return PurePosixPath(unquote(command.words[0])).name
    return None


def _exfil_event(command: Command, program: str, state: _State, stdin_secret: str | None) -> Event | None:
    """An Event when ``command`` sends a secret to a remote host."""
    is_network = program in _HTTP_CLIENTS | _STREAM_CLIENTS | _COPY_CLIENTS | _DNS_CLIENTS
    if not is_network:
        return None
    host = _remote_host(command, program)
    if host is None:
        return None
    what = next((t for w in _payload_words(command) if (t := _taint_of(w, state))), None)
    if program in _HTTP_CLIENTS and what is None and stdin_secret:
        reads_stdin = any(re.search(r"@-|^-$", unquote(w)) for w in command.args)
        what = stdin_secret if reads_stdin or program != "curl" else None
    if program in _STREAM_CLIENTS and what is None:
        what = stdin_secret or next((_taint_of(t, state) for op, t in command.redirects if op == "<"), None)
    if what is None:
        return None
    how = {
        **dict.fromkeys(_DNS_CLIENTS, "in a DNS lookup of"),
        **dict.fromkeys(_COPY_CLIENTS, "by copying it to"),
    }.get(program, "to")
    shown = re.sub(r"\$\([^)]*\)|\$\{?\w+\}?|`[^`]*`", "…", host)
    return Event(command.line, f"sends {what} {how} {shown} ({program})")


def _track_assignments(command: Command, state: _State) -> None:
    """``x=$(cat ~/.env)`` taints ``x``; ``x=curl`` names a program; any other value clears ``x``."""
    for name, value in command.assignments:
        taint = _taint_of(value, state)
        if taint:
            state.variables[name] = taint
        else:
            state.variables.pop(name, None)
        plain = unquote(value)
        if re.fullmatch(r"[\w./-]+", plain) and PurePosixPath(plain).name in _DOWNLOADERS | _INTERPRETERS:
            state.programs[name] = PurePosixPath(plain).name
        else:
            state.programs.pop(name, None)


def _stdout_secret(command: Command, program: str, state: _State, stdin_secret: str | None) -> str | None:
    """What secret the command writes to stdout (and so to a pipe or a file): what it reads, or what it was fed.

    A network client's output is the server's answer, not its input.
    """
    if program in _HTTP_CLIENTS | _DNS_CLIENTS:
        return None
    if program in ("env", "printenv") and not command.args:
        return "the whole environment"
    direct = source_in(" ".join(command.words))
    return direct or stdin_secret or next((t for w in command.args if (t := _taint_of(w, state))), None)


def _track_download(command: Command, program: str, indirect: bool, state: _State) -> None:
    name = _downloaded_file(command)
    insecure = _INSECURE.search(" ".join(command.words)) is not None
    if name:
        state.downloads[name] = (command.line, insecure)
        state.checked.discard(name)
    state.piped_download = name is None and indirect
    state.piped_insecure = insecure


def _run_events(command: Command, program: str, state: _State) -> Iterator[Event]:
    joined = " ".join(unquote(word) for word in command.words)
    if _CHECKSUM.search(joined) or program == "chmod":
        state.checked.update(name for name in state.downloads if name in joined)
    if command.piped and state.piped_download and program in _INTERPRETERS:
        message = "pipes a download into a shell, the downloader named by a variable"
        yield Event(command.line, message, state.piped_insecure)
    target = _run_target(command, program)
    if target and target in state.downloads and target not in state.checked:
        line, insecure = state.downloads[target]
        yield Event(command.line, f"runs '{target}' after downloading it without a checksum check", insecure, line)


def analyse(parsed: list[Command]) -> dict[str, list[Event]]:
    """Events of one shell piece's commands by rule key: ``exfil`` (SEC008) and ``run`` (SEC009)."""
    state = _State()
    found: dict[str, list[Event]] = {"exfil": [], "run": []}
    for command in parsed:
        if not command.piped:
            state.piped_secret = None
            state.piped_download = False
        program, indirect = _resolved_program(command, state)
        _track_assignments(command, state)
        if not command.words:
            continue
        redirected_in = next((t for op, t in command.redirects if op == "<" and _taint_of(t, state)), None)
        stdin_secret = state.piped_secret or (_taint_of(redirected_in, state) if redirected_in else None)
        if program in ("read", "mapfile", "readarray"):
            for word in command.args:
                if not word.startswith("-") and stdin_secret:
                    state.variables[unquote(word)] = stdin_secret
            continue
        event = _exfil_event(command, program, state, stdin_secret)
        if event:
            found["exfil"].append(event)
        secret_out = _stdout_secret(command, program, state, stdin_secret)
        for target in _writes(command):
            plain = unquote(target)
            if secret_out:
                state.files[plain] = secret_out
                state.files[PurePosixPath(plain).name] = secret_out
        state.piped_secret = secret_out
        if program in _DOWNLOADERS:
            _track_download(command, program, indirect, state)
            continue
        found["run"].extend(_run_events(command, program, state))
        state.piped_download = False
    return found
