"""Which shell commands destroy what cannot be rebuilt: the home folder, the system, a disk.

Each command is judged by its program and its target, after :mod:`._shell` has read it: ``rm``
recursive on ``/``, ``~``, ``$HOME`` or a system folder; ``chmod``/``chown`` recursive on those, or
``chmod 777`` on them; ``dd`` writing to a device; ``mkfs``, ``wipefs`` and ``shred`` of a device;
a redirect into a block device; ``--no-preserve-root``; the ``:(){ :|:& };:`` fork bomb. A target
below one of those (``~/project/build``, ``/tmp/$name``, ``"$tmpdir"``, ``./build``) is what
cleaning up looks like and is left alone.
"""

from __future__ import annotations

import re

from ._shell import Command, unquote

_HOME = r"(?:~|\$HOME|\$\{HOME\}|/home/[^/\s]+|/Users/[^/\s]+|/root)"
_SYSTEM = r"/(?:bin|boot|dev|etc|home|lib|lib64|opt|proc|root|sbin|srv|sys|usr|var|Users|System|Library|Applications)"
_PRECIOUS = re.compile(rf"^(?:/|/\*|/\.\*|{_HOME}/?|{_HOME}/\*|{_HOME}/\.\*|{_SYSTEM}/?\*?|\*|\.\.?/?\*?)$")
"""A target whose removal loses the machine or the user's files (``*``, ``.``, ``..`` only after ``cd ~``/``cd /``)."""
_ABSOLUTE_PRECIOUS = re.compile(rf"^(?:/|/\*|/\.\*|{_HOME}/?|{_HOME}/\*|{_HOME}/\.\*|{_SYSTEM}/?\*?)$")
_DEVICE = re.compile(r"^/dev/(?:sd[a-z]|hd[a-z]|nvme\d|mmcblk\d|vd[a-z]|xvd[a-z]|disk\d|rdisk\d|md\d|dm-\d|mapper/)")
_FORK_BOMB = re.compile(r":\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:")
_FORMATTERS = frozenset({"mkfs", "wipefs", "mkswap", "fdisk", "sfdisk", "parted", "sgdisk"})


def _flags(args: list[str]) -> str:
    """Every short option letter and long option of ``args`` in one string (``-rf`` → ``rf``)."""
    letters = [arg[1:] for arg in args if arg.startswith("-") and not arg.startswith("--")]
    longs = [arg for arg in args if arg.startswith("--")]
    return "".join(letters) + " " + " ".join(longs)


def _targets(args: list[str]) -> list[str]:
    return [arg for arg in args if not arg.startswith("-")]


def destruction(command: Command, cwd_precious: bool) -> str | None:
    """What ``command`` destroys, in a few words, or None when it is not one of the commands above.

    ``cwd_precious``: an earlier ``cd`` went to ``/`` or the home folder, so ``*`` and ``.`` mean it.
    """
    program = command.program
    args = [unquote(word) for word in command.args]
    flags = _flags(args)
    precious = _PRECIOUS if cwd_precious else _ABSOLUTE_PRECIOUS
    if "--no-preserve-root" in flags:
        return f"{program} --no-preserve-root: deletes the whole file system"
    if program == "rm" and re.search(r"[rR]|--recursive", flags):
        hit = next((t for t in _targets(args) if precious.match(t.rstrip() or t)), None)
        if hit:
            return f"deletes '{hit}' recursively"
    if program in ("chmod", "chown", "chgrp") and (re.search(r"R|--recursive", flags) or "777" in args):
        targets = _targets(args)[1:]
        hit = next((t for t in targets if precious.match(t)), None)
        if hit:
            mode = f"{'-R ' if 'R' in flags else ''}{_targets(args)[0]}"
            return f"{program} {mode} '{hit}': changes the permissions of the system or the home folder"
    if program == "dd":
        out = next((arg[3:] for arg in args if arg.startswith("of=")), "")
        if _DEVICE.match(out):
            return f"dd writes over the disk '{out}'"
    if program.split(".")[0] in _FORMATTERS or program in ("shred",):
        device = next((t for t in _targets(args) if _DEVICE.match(t)), None)
        if device or program.split(".")[0] == "mkfs":
            return f"{program} {device or ''}".rstrip() + ": erases a disk or partition"
    for operator, target in command.redirects:
        if operator in (">", ">>") and _DEVICE.match(unquote(target)):
            return f"writes over the disk '{unquote(target)}'"
    return None


def fork_bomb(text: str) -> bool:
    return _FORK_BOMB.search(text) is not None


def changes_to_precious_folder(command: Command) -> bool | None:
    """For ``cd``: whether it goes to ``/`` or home (True), elsewhere (False); None for other commands."""
    if command.program != "cd":
        return None
    args = _targets([unquote(word) for word in command.args])
    return not args or _ABSOLUTE_PRECIOUS.match(args[0]) is not None
