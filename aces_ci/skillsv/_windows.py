"""Task windows: which b tasks of the attribution panel a chain is scored on.

Every design gives each task the same marginal inclusion probability and is drawn independently
of the chain's order, so a window mean is unbiased for the panel mean (paper, Appendix E.2).

* ``balanced`` (ours): tasks are dealt from a seeded shuffle of each stratum, cycling, so across
  chains every task is used equally often and the window effect averages out faster than with
  independent draws; a stratum gets its proportional share of each window (largest remainders,
  rotating), so every window covers the strata.
* ``independent``: each window is a fresh stratified sample without replacement (Algorithm 1 as
  published).

Strata come from the cases (``Task.stratum``); without labels the panel is one stratum.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from ._oracle import Task

WindowDesign = Literal["balanced", "independent"]


def _shares(sizes: Sequence[int], window: int, turn: int) -> list[int]:
    """How many tasks each stratum contributes: proportional, remainders rotating with ``turn``."""
    total = sum(sizes)
    exact = [window * size / total for size in sizes]
    shares = [min(int(value), size) for value, size in zip(exact, sizes, strict=True)]
    remainders = sorted(range(len(sizes)), key=lambda s: (-(exact[s] - int(exact[s])), (s - turn) % max(1, len(sizes))))
    for stratum in remainders:
        if sum(shares) >= window:
            break
        if shares[stratum] < sizes[stratum]:
            shares[stratum] += 1
    return shares


class WindowDealer:
    """Draws the windows of successive chains."""

    def __init__(self, tasks: Sequence[Task], window: int, design: WindowDesign, rng: np.random.Generator) -> None:
        self.window = max(1, min(window, len(tasks)))
        self.design = design
        self.rng = rng
        labels = sorted({task.stratum for task in tasks})
        self.strata = [[i for i, task in enumerate(tasks) if task.stratum == label] for label in labels]
        self._decks: list[list[int]] = [[] for _ in self.strata]
        self._turn = 0

    def _deal(self, stratum: int, count: int) -> list[int]:
        members = self.strata[stratum]
        if self.design == "independent":
            return [members[i] for i in self.rng.choice(len(members), size=count, replace=False)]
        picked: list[int] = []
        deck = self._decks[stratum]
        while len(picked) < count:
            if not deck:
                deck.extend(members[i] for i in self.rng.permutation(len(members)))
            candidate = deck.pop()
            if candidate in picked:  # a deck refilled mid-window: keep the window without repeats
                deck.insert(0, candidate)
                continue
            picked.append(candidate)
        return picked

    def next(self) -> list[int]:
        shares = _shares([len(members) for members in self.strata], self.window, self._turn)
        self._turn += 1
        chosen: list[int] = []
        for stratum, share in enumerate(shares):
            chosen.extend(self._deal(stratum, share))
        return sorted(chosen)
