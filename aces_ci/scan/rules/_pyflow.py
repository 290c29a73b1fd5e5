"""What a Python script does with data it did not write: a small taint model over its syntax tree.

The script is parsed with :mod:`ast`, never imported or run. Each name gets the set of labels of
the values assigned to it, iterated until nothing changes (names are one namespace per file and
order is ignored: a little coarse, never missing a flow because a helper function sits below its
caller). Labels:

- ``secret:<what>``: the whole environment (``os.environ`` itself, ``dict(os.environ)``,
  ``os.environ.items()``), a credential file's path or content (``~/.ssh/…``, ``~/.aws/credentials``,
  ``.env``…), a keychain secret (``keyring.get_password``, ``security find-generic-password``), an
  AWS secret variable. A single named variable (``os.environ["API_KEY"]``) is how a script gets
  its own key and is not a secret label.
- ``argv`` (``sys.argv``, ``parse_args()``), ``stdin`` (``input()``, ``sys.stdin``): the caller's input.
- ``remote``: what came back from the network (``requests.get(…)``, ``urlopen(…)``, ``.recv()``).
- ``decoded``: base64, hex, zlib or codecs decoding (how obfuscated code is carried).
- ``archive``: member names of a zip or tar file (zip-slip).

Labels flow through assignments, ``for`` and ``with`` targets, containers, calls (a method's
result carries its receiver's labels: ``f.read()``), mutation (``d[k] = v``, ``l.append(v)``) and
calls of the file's own functions (arguments to parameters, returns to the call).
``os.path.basename`` and ``secure_filename`` clear the path labels.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

from ._shellflow import CREDENTIAL_FILE

Labels = frozenset[str]
_EMPTY: Labels = frozenset()
_AWS_KEYS = re.compile(r"^(?:AWS_SECRET_ACCESS_KEY|AWS_ACCESS_KEY_ID|AWS_SESSION_TOKEN)$")
_KEYCHAIN_WORDS = re.compile(r"find-generic-password|find-internet-password|dump-keychain|secret-tool")
_NETWORK_MODULES = ("requests.", "httpx.", "aiohttp.", "urllib3.", "urllib.request.", "http.client.", "socket.")
_FETCH_CALLS = re.compile(
    r"^(?:requests|httpx)\.(?:get|post|put|patch|delete|head|request|options)$"
    r"|(?:^|\.)urlopen$|^urllib\.request\.urlretrieve$|(?:^|\.)(?:recv|recv_into|recvfrom|getresponse)$"
)
_CLIENT_CONSTRUCTORS = re.compile(
    r"^(?:requests\.Session|requests\.session|httpx\.Client|httpx\.AsyncClient|aiohttp\.ClientSession"
    r"|http\.client\.HTTPS?Connection|HTTPS?Connection|socket\.socket|socket\.create_connection"
    r"|smtplib\.SMTP(?:_SSL)?|ftplib\.FTP(?:_TLS)?|urllib3\.PoolManager)$"
)
_CLIENT_SENDS = frozenset(
    {"get", "post", "put", "patch", "delete", "request", "send", "sendall", "sendto", "sendmail", "send_message"}
    | {"storbinary", "storlines", "urlopen", "putrequest", "connect", "endheaders"}
)
_DECODERS = re.compile(
    r"^(?:base64\.\w*decode\w*|codecs\.decode|zlib\.decompress|gzip\.decompress|bz2\.decompress|lzma\.decompress"
    r"|bytes\.fromhex|binascii\.(?:unhexlify|a2b_\w+)|marshal\.loads)$"
)
_SANITISERS = re.compile(r"(?:^|\.)(?:basename|secure_filename|quote|escape|int|float|bool|len)$")
_AUTH_KEYWORDS = frozenset({"headers", "auth", "cert", "verify", "timeout", "proxies"})
_SUBPROCESS = re.compile(r"^subprocess\.(?:run|call|check_call|check_output|Popen)$")
_ALWAYS_SHELL = re.compile(
    r"^(?:os\.system|os\.popen|subprocess\.getoutput|subprocess\.getstatusoutput|commands\.\w+)$"
)
_SQL_CALLS = frozenset({"execute", "executemany", "executescript", "read_sql", "read_sql_query", "raw"})
_SQL_WORDS = re.compile(r"\b(?:SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|WHERE|FROM)\b", re.IGNORECASE)
_UNSAFE_LOADERS = re.compile(
    r"^(?:pickle|cPickle|dill|cloudpickle|joblib|marshal|shelve|jsonpickle)\.(?:loads?|decode|open)$"
    r"|^yaml\.(?:unsafe_load|load_all|load)$|^(?:torch)\.load$"
)
_ARCHIVE_NAMES = frozenset({"namelist", "infolist", "getmembers", "getnames"})
_PATH_JOINS = re.compile(r"^(?:os\.path\.join|posixpath\.join|path\.join|join)$")
_PATH_TYPES = re.compile(r"^(?:pathlib\.)?(?:Path|PurePath|PosixPath)$")
_INPUT_LABELS = frozenset({"argv", "stdin", "remote", "decoded"})
_MUTATORS = frozenset({"append", "extend", "update", "add", "insert", "write"})


@dataclass(frozen=True)
class PyEvent:
    """One thing a rule reports about a script: which rule key, line, message, error or not."""

    key: str
    """``exfil`` (SEC008), ``code`` (SEC011), ``shell`` (SEC012), ``sql`` (SEC013), ``path`` (SEC014, zip slip)."""
    line: int
    message: str
    error: bool = False


def dotted(node: ast.AST) -> str:
    """``a.b.c`` for a Name/Attribute chain, the callee's chain for a call (``a.b()`` → ``a.b``), else ''."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.Call):
        inner = dotted(node.func)
        return ".".join([inner, *reversed(parts)]) if inner else ""
    return ""


def _constant_string(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _is_client(node: ast.AST | None) -> bool:
    """A network client being made: ``requests.Session()``, ``http.client.HTTPSConnection(…)``, ``socket.socket()``."""
    return isinstance(node, ast.Call) and _CLIENT_CONSTRUCTORS.match(dotted(node.func)) is not None


def _is_built_string(node: ast.AST) -> bool:
    """An f-string with a value, ``%`` or ``+`` on strings, or ``.format(…)``: a string assembled from parts."""
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(value, ast.FormattedValue) for value in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mod, ast.Add)):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("format", "join")


_STEP_TYPES = (
    ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor, ast.comprehension, ast.With,
    ast.AsyncWith, ast.Call, ast.Return, ast.Yield,
)  # fmt: skip


class _Flow:
    """The taint state of one file: labels per name, the file's functions, the network clients."""

    def __init__(self, tree: ast.Module, wanted: frozenset[str]) -> None:
        self.wanted = wanted
        """The labels names may carry (``secret`` for every ``secret:…``): what the asking rules need.

        Following the command-line arguments of a large script through every name costs ten times
        more than following a secret, and only SEC011–SEC013 need them."""
        self.names: dict[str, Labels] = {}
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.clients: set[str] = set()
        self.changed = False
        self.scope: dict[int, str] = {}
        """Node id → the name of the function it sits in ('' for module level): names are per function."""
        self.steps: list[ast.AST] = []
        """The nodes that move labels (assignments, loops, ``with``, calls, returns), in tree order."""
        self.calls: list[ast.Call] = []
        self.divisions: list[ast.BinOp] = []
        stack: list[tuple[ast.AST, str]] = [(tree, "")]
        while stack:  # one pass over the tree: scopes, and the nodes the walk and the rules look at
            node, where = stack.pop()
            self.scope[id(node)] = where
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions.setdefault(node.name, node)
                where = node.name
            elif isinstance(node, _STEP_TYPES):
                self.steps.append(node)
                if isinstance(node, ast.Call):
                    self.calls.append(node)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
                self.divisions.append(node)
            stack.extend((child, where) for child in ast.iter_child_nodes(node))

    def _key(self, node: ast.AST, name: str) -> str:
        return f"{self.scope.get(id(node), '')}:{name}"

    def _lookup(self, node: ast.AST, name: str) -> Labels:
        """A name's labels in the node's function, else at module level (a global)."""
        local = self.names.get(self._key(node, name))
        return local if local is not None else self.names.get(f":{name}", _EMPTY)

    # ---- labels of an expression

    def labels(self, node: ast.AST | None) -> Labels:
        if node is None:
            return _EMPTY
        if isinstance(node, ast.Name):
            return self._lookup(node, node.id)
        if isinstance(node, ast.Constant):
            text = _constant_string(node)
            if text and "://" not in text and CREDENTIAL_FILE.search(text):
                return frozenset({"secret:a credential file"})
            if text and _KEYCHAIN_WORDS.search(text):
                return frozenset({"secret:a keychain secret"})
            return _EMPTY
        if isinstance(node, ast.Attribute):
            name = dotted(node)
            if name == "os.environ":
                return frozenset({"secret:the whole environment"})
            if name in ("sys.argv",):
                return frozenset({"argv"})
            if name in ("sys.stdin", "sys.stdin.buffer"):
                return frozenset({"stdin"})
            return self.labels(node.value)
        if isinstance(node, ast.Subscript):
            base = dotted(node.value)
            if base == "os.environ":
                key = _constant_string(node.slice)
                return frozenset({f"secret:${key}"}) if key and _AWS_KEYS.match(key) else _EMPTY
            return self.labels(node.value) | self.labels(node.slice)
        if isinstance(node, ast.Call):
            return self._call_labels(node, dotted(node.func))
        found: set[str] = set()
        for child in ast.iter_child_nodes(node):
            found |= self.labels(child)
        if found & _INPUT_LABELS and _is_built_string(node):
            found.add("interpolated")
        return frozenset(found)

    def _call_labels(self, node: ast.Call, name: str) -> Labels:
        first = node.args[0] if node.args else None
        if name in ("os.environ.get", "os.getenv", "os.environ.setdefault", "environ.get", "getenv"):
            key = _constant_string(first)
            return frozenset({f"secret:${key}"}) if key and _AWS_KEYS.match(key) else _EMPTY
        if name.endswith(("keyring.get_password", "keyring.get_credential")):
            return frozenset({"secret:a keychain secret"})
        if (
            name in ("input", "raw_input", "getpass.getpass")
            or name.endswith(".parse_args")
            or name.endswith(".parse_known_args")
        ):
            return frozenset({"stdin" if "input" in name or "getpass" in name else "argv"})
        if _SANITISERS.search(name):
            return _EMPTY
        found: set[str] = set()
        if _FETCH_CALLS.search(name) or (
            isinstance(node.func, ast.Attribute)
            and dotted(node.func.value) in self.clients
            and node.func.attr in ("get", "post", "request", "getresponse", "recv", "urlopen", "put", "patch")
        ):
            found.add("remote")
        if _DECODERS.match(name):
            found.add("decoded")
        if isinstance(node.func, ast.Attribute) and node.func.attr in _ARCHIVE_NAMES:
            found.add("archive")
        if isinstance(node.func, ast.Name) and node.func.id in self.functions:
            found |= self.names.get(f"<return {node.func.id}>", _EMPTY)
        found |= self.labels(node.func)
        for arg in node.args:
            found |= self.labels(arg)
        for keyword in node.keywords:
            found |= self.labels(keyword.value)
        if found & _INPUT_LABELS and _is_built_string(node):
            found.add("interpolated")
        return frozenset(found)

    # ---- propagation

    def _taint(self, target: ast.AST, labels: Labels) -> None:
        if not labels:
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._taint(element, labels)
            return
        if isinstance(target, ast.Starred):
            self._taint(target.value, labels)
            return
        while isinstance(target, (ast.Attribute, ast.Subscript)):
            target = target.value
        if isinstance(target, ast.Name):
            self._add(self._key(target, target.id), labels)

    def _add(self, name: str, labels: Labels) -> None:
        labels = frozenset(label for label in labels if label.split(":", 1)[0] in self.wanted)
        before = self.names.get(name, _EMPTY)
        after = before | labels
        if after != before:
            self.names[name] = after
            self.changed = True

    def _step(self, node: ast.AST) -> None:
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            self._step_assign(node)
        elif isinstance(node, ast.NamedExpr):
            self._taint(node.target, self.labels(node.value))
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            self._taint(node.target, self.labels(node.iter))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            self._step_with(node)
        elif isinstance(node, ast.Call):
            self._step_call(node)
        elif isinstance(node, (ast.Return, ast.Yield)) and node.value is not None:
            function = self.scope.get(id(node), "")
            if function:
                self._add(f"<return {function}>", self.labels(node.value))

    def _step_assign(self, node: ast.Assign | ast.AnnAssign | ast.AugAssign) -> None:
        value = node.value
        labels = self.labels(value)
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            self._taint(target, labels)
            if isinstance(target, ast.Name) and _is_client(value):
                self.clients.add(target.id)

    def _step_with(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            if item.optional_vars is not None:
                self._taint(item.optional_vars, self.labels(item.context_expr))
                if isinstance(item.optional_vars, ast.Name) and _is_client(item.context_expr):
                    self.clients.add(item.optional_vars.id)

    def _step_call(self, node: ast.Call) -> None:
        """Mutation (``l.append(v)``) taints the receiver; a call of the file's own function taints its parameters."""
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _MUTATORS:
            labels = frozenset().union(*(self.labels(arg) for arg in node.args), _EMPTY)
            self._taint(func.value, labels)
        if isinstance(func, ast.Name) and func.id in self.functions:
            params = [arg.arg for arg in self.functions[func.id].args.args]
            for param, arg in zip(params, node.args, strict=False):
                self._add(f"{func.id}:{param}", self.labels(arg))
            for keyword in node.keywords:
                if keyword.arg:
                    self._add(f"{func.id}:{keyword.arg}", self.labels(keyword.value))

    def run(self) -> None:
        for _ in range(6):  # enough for chains of helpers; each round only adds labels
            self.changed = False
            for node in self.steps:
                self._step(node)
            if not self.changed:
                break


def _secret(labels: Labels) -> str | None:
    secrets = sorted(label[7:] for label in labels if label.startswith("secret:"))
    return secrets[0] if secrets else None


def _payload_labels(flow: _Flow, call: ast.Call) -> Labels:
    found: set[str] = set()
    for arg in call.args:
        found |= flow.labels(arg)
    for keyword in call.keywords:
        if keyword.arg not in _AUTH_KEYWORDS:
            found |= flow.labels(keyword.value)
    return frozenset(found)


def _url_is_local(call: ast.Call) -> bool:
    for node in ast.walk(call):
        text = _constant_string(node)
        if text and re.match(r"^https?://(?:localhost|127\.0\.0\.1|\[::1\]|0\.0\.0\.0)(?:[:/]|$)", text):
            return True
    return False


def _is_sender(flow: _Flow, call: ast.Call, name: str) -> bool:
    if _FETCH_CALLS.search(name) and not name.endswith(("recv", "recv_into", "recvfrom", "getresponse")):
        return True
    if name.startswith(_NETWORK_MODULES) and name.rsplit(".", 1)[-1] in _CLIENT_SENDS | {"Request"}:
        return True
    func = call.func
    return isinstance(func, ast.Attribute) and dotted(func.value) in flow.clients and func.attr in _CLIENT_SENDS


def _events(flow: _Flow) -> Iterator[PyEvent]:
    for node in flow.calls:
        name = dotted(node.func)
        first = node.args[0] if node.args else None
        checks = [
            _exfil_event(flow, node, name),
            _code_event(flow, node, name, first),
            _shell_event(flow, node, name, first),
            _sql_event(flow, node, first),
            _join_event(flow, node, name),
        ]
        yield from (event for event in checks if event is not None)
    for division in flow.divisions:
        left = division.left
        is_path = isinstance(left, ast.Call) and _PATH_TYPES.match(dotted(left.func)) is not None
        if is_path or (isinstance(left, ast.Name) and "path" in left.id.lower()):
            labels = flow.labels(division.right) & frozenset({"archive"})
            if labels:
                yield PyEvent("path", division.lineno, f"a path joined with '/' from {_origin(labels)}")


def _exfil_event(flow: _Flow, node: ast.Call, name: str) -> PyEvent | None:
    if not _is_sender(flow, node, name) or _url_is_local(node):
        return None
    what = _secret(_payload_labels(flow, node))
    if not what:
        return None
    return PyEvent("exfil", node.lineno, f"sends {what} over the network ({name or 'a client'})", True)


def _code_event(flow: _Flow, node: ast.Call, name: str, first: ast.expr | None) -> PyEvent | None:
    """``eval``/``exec`` of the caller's input or fetched data, or an unsafe loader of fetched or decoded data."""
    if first is None:
        return None
    if name in ("eval", "exec", "compile", "builtins.eval", "builtins.exec"):
        labels = flow.labels(first) & _INPUT_LABELS
        if not labels or isinstance(first, ast.Constant):
            return None
        return PyEvent("code", node.lineno, f"{name}() runs {_origin(labels)}", "argv" not in labels or len(labels) > 1)
    if not _UNSAFE_LOADERS.match(name):
        return None
    safe_loader = any(
        (keyword.arg == "Loader" and "Safe" in dotted(keyword.value)) or keyword.arg == "weights_only"
        for keyword in node.keywords
    )
    labels = flow.labels(first) & frozenset({"remote", "decoded"})
    if not labels or safe_loader:
        return None
    return PyEvent("code", node.lineno, f"{name}() deserialises {_origin(labels)}: it can run code", True)


def _shell_event(flow: _Flow, node: ast.Call, name: str, first: ast.expr | None) -> PyEvent | None:
    shell = _ALWAYS_SHELL.match(name) or (
        _SUBPROCESS.match(name)
        and any(k.arg == "shell" and isinstance(k.value, ast.Constant) and k.value.value is True for k in node.keywords)
    )
    if not shell or first is None or isinstance(first, (ast.List, ast.Tuple, ast.Constant)):
        return None
    labels = flow.labels(first)
    if "interpolated" not in labels or not labels & _INPUT_LABELS:
        return None
    return PyEvent("shell", node.lineno, f"{name}() runs a shell command built from {_origin(labels & _INPUT_LABELS)}")


def _sql_event(flow: _Flow, node: ast.Call, first: ast.expr | None) -> PyEvent | None:
    attr = node.func.attr if isinstance(node.func, ast.Attribute) else ""
    if attr not in _SQL_CALLS or first is None or not _is_built_string(first) or not _names_sql(first):
        return None
    labels = flow.labels(first) & _INPUT_LABELS
    return PyEvent("sql", node.lineno, f"SQL built from {_origin(labels)} by string formatting") if labels else None


def _join_event(flow: _Flow, node: ast.Call, name: str) -> PyEvent | None:
    if not _PATH_JOINS.match(name) or len(node.args) < 2:
        return None
    labels = frozenset().union(*(flow.labels(arg) for arg in node.args[1:])) & frozenset({"archive"})
    return PyEvent("path", node.lineno, f"{name}() joins a path from {_origin(labels)}") if labels else None


def _names_sql(node: ast.AST) -> bool:
    return any(
        (text := _constant_string(part)) is not None and _SQL_WORDS.search(text) is not None for part in ast.walk(node)
    )


def _origin(labels: Labels) -> str:
    order = [
        ("remote", "data fetched from the network"),
        ("decoded", "decoded data"),
        ("archive", "names inside an archive"),
        ("stdin", "interactive input"),
        ("argv", "command-line arguments"),
    ]
    return " and ".join(text for label, text in order if label in labels)


ALL_LABELS = frozenset({"secret", "argv", "stdin", "remote", "decoded", "archive", "interpolated"})


def analyse(text: str, wanted: frozenset[str] = ALL_LABELS) -> list[PyEvent] | None:
    """Every event of one Python text, in line order; None when it does not parse (SCRIPT001 says why).

    ``wanted``: the labels names carry through assignments (see :attr:`_Flow.wanted`); the events of
    rules whose labels are left out are not all found.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    try:
        flow = _Flow(tree, wanted)
        flow.run()
        found = {(event.key, event.line): event for event in _events(flow)}
    except RecursionError:
        return None
    return sorted(found.values(), key=lambda event: (event.line, event.key))
