"""Oracles for the planted skill of the value tests (``--oracle python:tests.skillsv.planted_oracle:…``).

The planted skill's units are recognised by their marker words; the success probability is

    p = 0.1 + 0.4·[ALPHA or BETA] + 0.3·[GAMMA and DELTA] − 0.2·[HARM] + 0.2·[TOOLUSE and the tool script]

so the μ-exact values (flat block of rules, the script always entering before the rule that uses it) are
ALPHA = BETA = 0.2 (a redundant OR pair splits its value), GAMMA = DELTA = 0.15 (an AND pair shares its
synergy), HARM = −0.2, DEAD = 0, TOOLUSE = 0.2 (the dependent completes the term) and the script 0.
``expected`` returns p itself (a deterministic oracle, for exact mode); ``noisy`` a Bernoulli draw seeded by
the rendered skill's content, the case and the seed, so a coalition scored twice scores the same. A
Bernoulli rate cannot be negative, so ``noisy`` draws with ``rate`` (p clipped to [0, 1]), whose exact
values (``--exact`` with ``rate``) are what the noisy estimate estimates.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

CALLS = Path(os.environ.get("PLANTED_ORACLE_LOG", os.devnull))


def _texts(skill_dir: str) -> tuple[str, str]:
    folder = Path(skill_dir)
    skill = folder / "SKILL.md"
    tool = folder / "scripts" / "tool.sh"
    return (skill.read_text() if skill.exists() else ""), (tool.read_text() if tool.exists() else "")


def expected(skill_dir: str, case: dict[str, Any], seed: int) -> float:
    text, tool = _texts(skill_dir)
    p = 0.1
    p += 0.4 if ("ALPHA" in text or "BETA" in text) else 0.0
    p += 0.3 if ("GAMMA" in text and "DELTA" in text) else 0.0
    p -= 0.2 if "HARM" in text else 0.0
    p += 0.2 if ("TOOLUSE" in text and "TOTALS" in tool) else 0.0
    return p


def rate(skill_dir: str, case: dict[str, Any], seed: int) -> float:
    """The success probability ``noisy`` draws with: p clipped to [0, 1] (HARM alone would make it negative)."""
    return min(1.0, max(0.0, expected(skill_dir, case, seed)))


def noisy(skill_dir: str, case: dict[str, Any], seed: int) -> float:
    with CALLS.open("a") as log:
        log.write(f"{case['id']}\n")
    text, tool = _texts(skill_dir)
    digest = hashlib.sha256(f"{text}\0{tool}\0{case['id']}\0{seed}".encode()).digest()
    draw = int.from_bytes(digest[:8], "big") / 2**64
    if os.environ.get("PLANTED_ORACLE_FAIL_AFTER"):
        calls = len(CALLS.read_text().splitlines()) if CALLS.exists() else 0
        if calls > int(os.environ["PLANTED_ORACLE_FAIL_AFTER"]):
            raise RuntimeError("the grader lost its database connection")
    return 1.0 if draw < rate(skill_dir, case, seed) else 0.0


def not_a_number(skill_dir: str, case: dict[str, Any], seed: int) -> object:
    return "high"
