"""The input of every paired statistic: one metric's run scores, per case and condition.

A trial produces, for each case, a few runs in the *with* condition and a few in the *control*
condition (without the skill, the skill at another git ref, or the same condition again for an
A/A control). The statistics never see trajectories: the caller passes one metric's scores at a
time, already in [0, 1].

Scores are held as two NaN-padded matrices (cases × scheduled runs) rather than lists of lists,
because every statistic here is a handful of vectorised reductions over them and the validation
benchmark calls them hundreds of thousands of times. NaN means "no score": the run was not
scorable (the grader could not score it, the run never finished) or the case had fewer runs
scheduled than the widest case. Both are excluded from every mean and counted, never treated
as 0 — a missing score that silently became a failure would invent negative lift.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

Coupling = Literal["independent", "shared-seed"]
"""How the two conditions' runs of one case relate.

``independent``: every run draws its own randomness; run r of *with* and run r of *control* are
unrelated. ``shared-seed``: run r of *with* and run r of *control* were given the same seed, so
they may be correlated; they are analysed as pairs where a paired statistic needs it.
"""

COUPLINGS: tuple[Coupling, ...] = ("independent", "shared-seed")

FloatMatrix = npt.NDArray[np.float64]
ScoreInput = Sequence[Sequence[float | None]] | npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class PairedScores:
    """One metric's scores of a paired trial: ``with_scores[i, r]`` is run r of case i.

    Build it with :func:`paired_scores`, which validates; the matrices are read-only. Both
    matrices have one row per case; their widths (scheduled runs) may differ under independent
    coupling and are equal under shared-seed coupling, where column r of both is the seed-sharing
    pair r.
    """

    with_scores: FloatMatrix
    control_scores: FloatMatrix
    coupling: Coupling
    case_ids: tuple[str, ...]

    @property
    def n_cases_total(self) -> int:
        """Cases in the dataset, scorable or not."""
        return int(self.with_scores.shape[0])

    @property
    def scheduled_runs(self) -> int:
        """The widest number of runs per case in either condition (the design's runs per arm)."""
        return int(max(self.with_scores.shape[1], self.control_scores.shape[1]))

    def with_counts(self) -> npt.NDArray[np.int64]:
        """Scorable runs per case in the with-condition."""
        return np.asarray(np.sum(~np.isnan(self.with_scores), axis=1), dtype=np.int64)

    def control_counts(self) -> npt.NDArray[np.int64]:
        """Scorable runs per case in the control condition."""
        return np.asarray(np.sum(~np.isnan(self.control_scores), axis=1), dtype=np.int64)

    def usable(self) -> npt.NDArray[np.bool_]:
        """Cases with at least one scorable run in both conditions: the only ones a lift can use."""
        return (self.with_counts() > 0) & (self.control_counts() > 0)

    def swapped(self) -> PairedScores:
        """The same trial with the conditions exchanged (its lift is the negative of this one's)."""
        return PairedScores(self.control_scores, self.with_scores, self.coupling, self.case_ids)

    def first_runs(self, runs: int) -> PairedScores:
        """Only the first ``runs`` scheduled runs of every case (what a sequential look saw)."""
        if runs < 1:
            raise ValueError(f"runs must be at least 1, got {runs}")
        return PairedScores(
            _readonly(self.with_scores[:, :runs]),
            _readonly(self.control_scores[:, :runs]),
            self.coupling,
            self.case_ids,
        )


def paired_scores(
    with_runs: ScoreInput,
    control_runs: ScoreInput,
    coupling: Coupling = "independent",
    case_ids: Sequence[str] | None = None,
) -> PairedScores:
    """Validate one metric's run scores and hold them as NaN-padded matrices.

    ``with_runs[i]`` and ``control_runs[i]`` are the scores of case i's runs in each condition;
    ``None`` or NaN marks an unscorable run. Rows may have different lengths (a case that had
    fewer runs). Under ``shared-seed`` coupling, position r of both rows must be the seed-sharing
    pair, so each case must list the same number of runs in both conditions (unscorable ones as
    ``None``). Raises ``ValueError`` naming the case and run of the first bad value.
    """
    if coupling not in COUPLINGS:
        raise ValueError(f"coupling must be one of {', '.join(COUPLINGS)}, got {coupling!r}")
    with_m = _as_matrix(with_runs, "with")
    control_m = _as_matrix(control_runs, "control")
    if with_m.shape[0] != control_m.shape[0]:
        raise ValueError(
            f"the with-condition has {with_m.shape[0]} cases and the control {control_m.shape[0]}: "
            "every case needs runs in both conditions (use None for an unscorable run)"
        )
    ids = tuple(case_ids) if case_ids is not None else tuple(str(i) for i in range(with_m.shape[0]))
    if len(ids) != with_m.shape[0]:
        raise ValueError(f"{len(ids)} case ids for {with_m.shape[0]} cases")
    if coupling == "shared-seed":
        with_len = _row_lengths(with_runs, with_m)
        control_len = _row_lengths(control_runs, control_m)
        for i, (a, b) in enumerate(zip(with_len, control_len, strict=True)):
            if a != b:
                raise ValueError(
                    f"case {ids[i]}: shared-seed coupling pairs run r of each condition, but the case lists "
                    f"{a} with-runs and {b} control runs (mark unscorable runs as None, do not drop them)"
                )
        width = max(with_m.shape[1], control_m.shape[1])
        with_m, control_m = _pad(with_m, width), _pad(control_m, width)
    return PairedScores(_readonly(with_m), _readonly(control_m), coupling, ids)


def case_differences(scores: PairedScores) -> npt.NDArray[np.float64]:
    """Per usable case, mean with-score minus mean control-score (the unit every interval resamples)."""
    keep = scores.usable()
    with np.errstate(invalid="ignore"):
        w = np.nanmean(scores.with_scores[keep], axis=1) if keep.any() else np.empty(0)
        c = np.nanmean(scores.control_scores[keep], axis=1) if keep.any() else np.empty(0)
    return np.asarray(w - c, dtype=np.float64)


def case_means(scores: PairedScores) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Per usable case, the mean with-score and the mean control-score."""
    keep = scores.usable()
    if not keep.any():
        return np.empty(0), np.empty(0)
    return (
        np.asarray(np.nanmean(scores.with_scores[keep], axis=1), dtype=np.float64),
        np.asarray(np.nanmean(scores.control_scores[keep], axis=1), dtype=np.float64),
    )


def _as_matrix(runs: ScoreInput, label: str) -> FloatMatrix:
    if isinstance(runs, np.ndarray):
        if runs.ndim != 2:
            raise ValueError(f"{label} scores: expected a cases × runs matrix, got {runs.ndim} dimensions")
        matrix = np.array(runs, dtype=np.float64)
    else:
        rows = list(runs)
        width = max((len(r) for r in rows), default=0)
        matrix = np.full((len(rows), width), np.nan)
        for i, row in enumerate(rows):
            for r, value in enumerate(row):
                matrix[i, r] = _score(value, label, i, r)
    bad = ~np.isnan(matrix) & ((matrix < 0.0) | (matrix > 1.0) | ~np.isfinite(matrix))
    if bad.any():
        i, r = (int(x) for x in np.argwhere(bad)[0])
        raise ValueError(f"{label} scores, case {i}, run {r}: {float(matrix[i, r])!r} is outside [0, 1]")
    return matrix


def _score(value: object, label: str, case: int, run: int) -> float:
    if value is None:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating | np.integer):
        raise ValueError(f"{label} scores, case {case}, run {run}: {value!r} is not a number or None")
    return float(value)


def _row_lengths(runs: ScoreInput, matrix: FloatMatrix) -> list[int]:
    if isinstance(runs, np.ndarray):
        return [int(matrix.shape[1])] * int(matrix.shape[0])
    return [len(r) for r in runs]


def _pad(matrix: FloatMatrix, width: int) -> FloatMatrix:
    if matrix.shape[1] == width:
        return matrix
    out = np.full((matrix.shape[0], width), np.nan)
    out[:, : matrix.shape[1]] = matrix
    return out


def _readonly(matrix: FloatMatrix) -> FloatMatrix:
    out = np.array(matrix, dtype=np.float64)
    out.setflags(write=False)
    return out
