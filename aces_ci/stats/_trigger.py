"""Trigger stratification: did the lift come from runs where the skill was actually used?

The trigger R is an event *within* a with-condition run (by default: the target skill was
loaded). It is a run-level, post-treatment event, so the strata are strata of runs, not of cases.

**Definitions (run level, case-weighted).** Each scorable with-run (i, r) whose trigger is known
gets a paired contrast

- ``Y_with(i, r) − mean(control runs of i)`` under independent coupling (any control run of the
  case is an equally valid partner, and the case mean is the least noisy one);
- ``Y_with(i, r) − Y_control(i, r)`` under shared-seed coupling (the seed-sharing partner: the
  review's §3.5 shows the control-run selection term depends on exactly this pairing), counted
  only when that partner is scorable.

Each such run weighs 1 / (n · m_i), where n is the number of cases with at least one counted run
and m_i the counted runs of case i, so every case counts once, as in the headline lift. Then

- π = Σ weight over triggered runs (the case-averaged trigger rate),
- D_pair = weighted mean contrast over triggered runs, D_skip = over non-triggered runs,
- τ = weighted mean contrast over all counted runs,

and τ = π·D_pair + (1 − π)·D_skip holds exactly (review eq. 3); ``identity_residual`` reports the
floating-point check. Under independent coupling with every trigger known, τ equals the headline
lift. D_pair is None when no run triggered, D_skip when every run did.

These are descriptive, protocol-specific contrasts: D_pair is *not* the effect of invoking the
skill (runs that trigger may differ in difficulty), and D_skip ≠ 0 does not by itself prove a
presence effect. ``meaning`` says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ._data import Coupling, PairedScores

TRIGGER_MEANING = (
    "π is how often the skill was used in the with-condition runs; D_pair compares those runs with their controls "
    "and D_skip the runs that did not use it. Both describe this protocol: the runs that used the skill may have "
    "been easier or harder ones, so D_pair is not the effect of using the skill."
)


@dataclass(frozen=True)
class TriggerStrata:
    """π, D_pair, D_skip and τ as defined in the module docstring, with counts."""

    rate: float | None
    d_pair: float | None
    d_skip: float | None
    tau: float | None
    identity_residual: float | None
    triggered_runs: int
    skipped_runs: int
    unknown_runs: int
    cases: int
    cases_always: int
    cases_sometimes: int
    cases_never: int
    coupling: Coupling
    trigger_event: str
    definition: str
    meaning: str = TRIGGER_MEANING


def trigger_strata(
    scores: PairedScores,
    triggered: Sequence[Sequence[bool | None]],
    trigger_event: str = "the target skill was loaded in the with-condition run",
) -> TriggerStrata:
    """Stratify the paired contrasts by the with-condition run's trigger (None = not known)."""
    if len(triggered) != scores.n_cases_total:
        raise ValueError(f"trigger flags for {len(triggered)} cases, scores for {scores.n_cases_total}")
    width = scores.with_scores.shape[1]
    trig = np.full(scores.with_scores.shape, np.nan)
    for i, row in enumerate(triggered):
        if len(row) > width:
            raise ValueError(f"case {scores.case_ids[i]}: {len(row)} trigger flags for {width} with-condition runs")
        for r, flag in enumerate(row):
            if flag is not None:
                trig[i, r] = 1.0 if flag else 0.0
    contrast = _contrasts(scores)
    counted = ~np.isnan(contrast) & ~np.isnan(trig)
    unknown = int(np.sum(~np.isnan(contrast) & np.isnan(trig)))
    per_case = counted.sum(axis=1)
    cases = int(np.sum(per_case > 0))
    definition = (
        "run level: each scorable with-condition run is compared with "
        + ("its seed-sharing control run" if scores.coupling == "shared-seed" else "its case's mean control score")
        + "; runs weigh so that every case counts once"
    )
    if cases == 0:
        return TriggerStrata(
            None, None, None, None, None, 0, 0, unknown, 0, 0, 0, 0, scores.coupling, trigger_event, definition
        )
    weight = np.where(counted, 1.0 / (cases * np.maximum(per_case, 1))[:, None], 0.0)
    t = np.where(counted, trig, 0.0)
    x = np.where(counted, contrast, 0.0)
    rate = float(np.sum(weight * t))
    tau = float(np.sum(weight * x))
    d_pair = float(np.sum(weight * t * x) / rate) if rate > 0 else None
    d_skip = float(np.sum(weight * (1 - t) * x) / (1.0 - rate)) if rate < 1.0 - 1e-12 else None
    recomposed = rate * (d_pair or 0.0) + (1.0 - rate) * (d_skip or 0.0)
    case_trig = np.where(per_case > 0, t.sum(axis=1) / np.maximum(per_case, 1), np.nan)
    has = per_case > 0
    return TriggerStrata(
        rate=rate,
        d_pair=d_pair,
        d_skip=d_skip,
        tau=tau,
        identity_residual=tau - recomposed,
        triggered_runs=int(np.sum(counted & (trig == 1.0))),
        skipped_runs=int(np.sum(counted & (trig == 0.0))),
        unknown_runs=unknown,
        cases=cases,
        cases_always=int(np.sum(has & (case_trig == 1.0))),
        cases_sometimes=int(np.sum(has & (case_trig > 0.0) & (case_trig < 1.0))),
        cases_never=int(np.sum(has & (case_trig == 0.0))),
        coupling=scores.coupling,
        trigger_event=trigger_event,
        definition=definition,
    )


def _contrasts(scores: PairedScores) -> np.ndarray:
    w = scores.with_scores
    if scores.coupling == "shared-seed":
        c = scores.control_scores[:, : w.shape[1]]
        if c.shape[1] < w.shape[1]:
            c = np.pad(c, ((0, 0), (0, w.shape[1] - c.shape[1])), constant_values=np.nan)
        return np.asarray(w - c)
    counts = scores.control_counts()
    control_mean = np.full(w.shape[0], np.nan)
    has = counts > 0
    control_mean[has] = np.nanmean(scores.control_scores[has], axis=1)
    return np.asarray(w - control_mean[:, None])
