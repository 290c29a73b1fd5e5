"""Do the trial statistics mean what they say? Simulated paired trials with a known true lift.

Each simulated skill has a population of tasks. A case x has a difficulty a ~ N(0, 1.2²) and
its own lift b ~ N(β, 0.5²) on the logit scale (heterogeneous lifts), so its expected scores are
μ_control = expit(a) and μ_with = expit(a + b). A run's score is Bernoulli(μ) or, for the
"continuous" kind, Beta(4μ, 4(1 − μ)) (mean μ, a graded score). Coupling: ``independent`` draws
every run's randomness separately; ``shared-seed`` ties run r of both conditions through a
Gaussian copula with correlation 0.6 (a shared seed makes runs alike without making them equal);
the stress row ``same-coin`` ties them perfectly (ρ = 1, the review's §3.5 example). 5% of runs
are unscorable (NaN) at random, so runs per case vary as in real trials.

Truth: the case-population lift τ = E[μ_with − μ_control] is computed once per β from 2,000,000
simulated cases (Monte-Carlo error below 1e-4); the "these cases" truth τ_n is the mean of
μ_with − μ_control over the cases drawn in that repetition.

Checks (each printed as a table; ``--small`` runs few repetitions with loose bounds and exits 1
if any fails, which ``tests/stats/test_stats_validity.py`` runs in CI):

1. coverage of the case-clustered 95% interval (the estimand the result states) for n ≥ 10, its
   over-coverage of τ_n, the naive pooled-runs interval beside it, and the n = 5 figures;
2. A/A skills (lift 0 on every case): the gate's false-fail rate, and how often two independent
   runs of the same trial give different verdicts (against the 27% in the user evidence, and
   against a gate that reads the point estimate);
3. the plug-in degradation share's bias (p = 0.5 in both arms, 3 runs → 22/64 ≈ 34%) and the
   interval-based shares that avoid it;
4. the power formula against the observed detection rate, including the designs ``plan`` picks;
5. sequential stopping against the fixed design: decisions, error rates and rollouts, adding runs
   and adding cases.

Usage::

    .venv/bin/python benchmarks/stats_validity.py [--small] [--seed 20261201]
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy import special, stats

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aces_ci.stats import (
    Bands,
    PairedScores,
    SequentialSettings,
    VarianceComponents,
    case_differences,
    degradation_shares,
    paired_discordance,
    paired_lift,
    paired_scores,
    plan,
    power_to_detect,
    sequential_decision,
    verdict,
    verdict_label,
)

DIFFICULTY_SD = 1.2
LIFT_SD = 1.0
COPULA_RHO = 0.6
BETA_CONCENTRATION = 4.0
MISSING = 0.05
TRUTH_CASES = 2_000_000


@dataclass(frozen=True)
class Skill:
    """A simulated skill: lift β on the logit scale (heterogeneous unless ``lift_sd`` is 0)."""

    beta: float
    kind: str = "bernoulli"
    coupling: str = "independent"
    lift_sd: float = LIFT_SD
    missing: float = MISSING

    @property
    def rho(self) -> float:
        return {"independent": 0.0, "shared-seed": COPULA_RHO, "same-coin": 1.0}[self.coupling]

    @property
    def declared(self) -> str:
        return "independent" if self.coupling == "independent" else "shared-seed"


@functools.lru_cache(maxsize=64)
def true_lift(beta: float, lift_sd: float) -> float:
    """τ over the case population (2,000,000 cases, fixed seed: Monte-Carlo error < 1e-4)."""
    if beta == 0.0 and lift_sd == 0.0:
        return 0.0
    rng = np.random.default_rng(7)
    a = rng.normal(0.0, DIFFICULTY_SD, TRUTH_CASES)
    b = rng.normal(beta, lift_sd, TRUTH_CASES)
    return float(np.mean(special.expit(a + b) - special.expit(a)))


@dataclass
class Trials:
    """``reps`` simulated trials of one skill: scores (reps, n, runs) and each trial's case truth."""

    with_scores: np.ndarray
    control_scores: np.ndarray
    mu_with: np.ndarray
    mu_control: np.ndarray

    def trial(self, i: int, declared: str) -> PairedScores:
        return paired_scores(self.with_scores[i], self.control_scores[i], declared)  # type: ignore[arg-type]

    def sample_truth(self, i: int) -> float:
        return float(np.mean(self.mu_with[i] - self.mu_control[i]))


def simulate(
    skill: Skill, n: int, runs: int, reps: int, rng: np.random.Generator, *, cases: np.ndarray | None = None
) -> Trials:
    """Draw ``reps`` trials; ``cases`` = fixed (a, b) per case to rerun the same cases."""
    if cases is None:
        a = rng.normal(0.0, DIFFICULTY_SD, (reps, n))
        b = rng.normal(skill.beta, skill.lift_sd, (reps, n))
    else:
        a = np.broadcast_to(cases[0], (reps, n))
        b = np.broadcast_to(cases[1], (reps, n))
    mu0, mu1 = special.expit(a), special.expit(a + b)
    z1 = rng.standard_normal((reps, n, runs))
    if skill.rho == 1.0:
        z0 = z1
    elif skill.rho == 0.0:
        z0 = rng.standard_normal((reps, n, runs))
    else:
        z0 = skill.rho * z1 + np.sqrt(1.0 - skill.rho**2) * rng.standard_normal((reps, n, runs))
    u1, u0 = special.ndtr(z1), special.ndtr(z0)
    y1, y0 = _outcome(u1, mu1[..., None], skill.kind), _outcome(u0, mu0[..., None], skill.kind)
    if skill.missing:
        y1[rng.random(y1.shape) < skill.missing] = np.nan
        y0[rng.random(y0.shape) < skill.missing] = np.nan
    return Trials(y1, y0, mu1, mu0)


def _outcome(u: np.ndarray, mu: np.ndarray, kind: str) -> np.ndarray:
    if kind == "bernoulli":
        return (u < mu).astype(np.float64)
    k = BETA_CONCENTRATION
    return np.asarray(stats.beta.ppf(u, mu * k, (1.0 - mu) * k), dtype=np.float64)


# ---------------------------------------------------------------------------------------------- checks


@dataclass
class Check:
    name: str
    value: float
    bound: str
    ok: bool


@dataclass
class Report:
    small: bool
    seed: int
    tables: list[str] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    seconds: float = 0.0

    def check(self, name: str, value: float, lo: float | None = None, hi: float | None = None) -> None:
        ok = (lo is None or value >= lo) and (hi is None or value <= hi)
        bound = f"[{'' if lo is None else f'{lo:g}'}, {'' if hi is None else f'{hi:g}'}]"
        self.checks.append(Check(name, value, bound, ok))

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def coverage(
    report: Report, rng: np.random.Generator, reps: int, *, ns: list[int], runs: list[int], kinds: list[str]
) -> None:
    """Check 1: coverage of τ (stated estimand), of τ_n, and of the pooled interval."""
    beta = 0.8
    tau = true_lift(beta, LIFT_SD)
    rows = [
        "| kind | coupling | n | runs | covers τ (stated) | covers τ_n (these cases) | pooled covers τ |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    big_cov: list[float] = []
    pooled_by_runs: dict[int, list[float]] = {}
    clustered_by_runs: dict[int, list[float]] = {}
    small_cov: list[float] = []
    for kind in kinds:
        for coupling in ("independent", "shared-seed"):
            skill = Skill(beta, kind, coupling)
            for n in ns:
                for r in runs:
                    t = simulate(skill, n, r, reps, rng)
                    hit = hit_n = hit_pool = 0
                    for i in range(reps):
                        lift = paired_lift(t.trial(i, skill.declared))
                        lo, hi = lift.ci or (np.nan, np.nan)
                        hit += lo <= tau <= hi
                        tn = t.sample_truth(i)
                        hit_n += lo <= tn <= hi
                        if lift.naive.ci is not None:
                            hit_pool += lift.naive.ci[0] <= tau <= lift.naive.ci[1]
                        assert lift.small_n == (lift.n_cases < 10)
                    c, cn, cp = hit / reps, hit_n / reps, hit_pool / reps
                    rows.append(f"| {kind} | {coupling} | {n} | {r} | {_pct(c)} | {_pct(cn)} | {_pct(cp)} |")
                    if n >= 10:
                        big_cov.append(c)
                        pooled_by_runs.setdefault(r, []).append(cp)
                        clustered_by_runs.setdefault(r, []).append(c)
                        report.check(f"coverage {kind} {coupling} n={n} runs={r}", c, *_cov_bounds(report.small))
                    else:
                        small_cov.append(c)
    # The stress coupling: both conditions read the same coin (ρ = 1).
    stress = Skill(beta, "bernoulli", "same-coin")
    for n in ns:
        for r in runs:
            t = simulate(stress, n, r, reps, rng)
            hit = sum(_covers(paired_lift(t.trial(i, "shared-seed")).ci, tau) for i in range(reps))
            rows.append(f"| bernoulli | same-coin (stress) | {n} | {r} | {_pct(hit / reps)} | | |")
    report.tables.append(f"### Coverage of the 95% lift interval (true τ = {tau:.4f})\n\n" + "\n".join(rows))
    summary = ["| runs | clustered, mean over n ≥ 10 | pooled runs, mean over n ≥ 10 |", "|---:|---:|---:|"]
    for r in sorted(pooled_by_runs):
        summary.append(
            f"| {r} | {_pct(float(np.mean(clustered_by_runs[r])))} | {_pct(float(np.mean(pooled_by_runs[r])))} |"
        )
    report.tables.append("### Clustered against pooled-runs intervals\n\n" + "\n".join(summary))
    if small_cov:
        report.tables.append(f"n = 5 (labelled small_n): coverage {_pct(min(small_cov))} to {_pct(max(small_cov))}.")
    report.check("coverage, mean over n ≥ 10", float(np.mean(big_cov)), 0.94, 0.96)
    high_runs = [r for r in pooled_by_runs if r >= 3]
    if high_runs:
        pooled = float(np.mean([np.mean(pooled_by_runs[r]) for r in high_runs]))
        clustered = float(np.mean([np.mean(clustered_by_runs[r]) for r in high_runs]))
        report.check("pooled-runs coverage at ≥ 3 runs", pooled, None, 0.93)
        report.check("clustered minus pooled coverage at ≥ 3 runs", clustered - pooled, 0.02, None)


def method_selection(report: Report, rng: np.random.Generator, reps: int, ns: list[int]) -> None:
    """Why the t-interval: its coverage beside a case bootstrap and Hall's skewness-corrected t."""
    beta = 0.8
    tau = true_lift(beta, LIFT_SD)
    rows = ["| coupling | n | runs | Student-t (ours) | case bootstrap (percentile) | Hall's skew-corrected t |"]
    rows.append("|---|---:|---:|---:|---:|---:|")
    gaps: dict[str, float] = {"t": 0.0, "bootstrap": 0.0, "hall": 0.0}
    for coupling in ("independent", "shared-seed"):
        skill = Skill(beta, "bernoulli", coupling)
        for n in ns:
            for r in (1, 3):
                t = simulate(skill, n, r, reps, rng)
                hits = {"t": 0, "bootstrap": 0, "hall": 0}
                for i in range(reps):
                    trial = t.trial(i, skill.declared)
                    d = case_differences(trial)
                    hits["t"] += _covers(paired_lift(trial).ci, tau)
                    boot = d[rng.integers(0, d.size, (1000, d.size))].mean(axis=1)
                    hits["bootstrap"] += bool(np.quantile(boot, 0.025) <= tau <= np.quantile(boot, 0.975))
                    hits["hall"] += _covers(_hall_interval(d), tau)
                cov = {k: v / reps for k, v in hits.items()}
                gaps = {k: max(g, abs(cov[k] - 0.95)) for k, g in gaps.items()}
                rows.append(
                    f"| {coupling} | {n} | {r} | {_pct(cov['t'])} | {_pct(cov['bootstrap'])} | {_pct(cov['hall'])} |"
                )
    report.tables.append(f"### Choosing the interval (Bernoulli runs, true τ = {tau:.4f})\n\n" + "\n".join(rows))
    report.check(
        "worst |coverage − 95%|: t minus bootstrap (negative = t better)", gaps["t"] - gaps["bootstrap"], None, 0.0
    )


def _hall_interval(d: np.ndarray, alpha: float = 0.05) -> tuple[float, float] | None:
    """Hall's (1992) cubic-transformation interval for a skewed mean; for comparison only."""
    n = d.size
    m, sd = float(d.mean()), float(d.std(ddof=1))
    if sd <= 0.0:
        return (m, m)
    g = float(np.mean((d - m) ** 3)) / sd**3
    c = float(stats.t.ppf(1.0 - alpha / 2.0, n - 1)) / np.sqrt(n)

    def inverse(x: float) -> float:
        if abs(g) < 1e-8:
            return x
        return float((3.0 / g) * (np.cbrt(1.0 + g * (x - g / (6.0 * n))) - 1.0))

    return (m - inverse(c) * sd, m - inverse(-c) * sd)


def _cov_bounds(small: bool) -> tuple[float, float]:
    return (0.90, 0.99) if small else (0.935, 0.965)


def _covers(ci: tuple[float, float] | None, x: float) -> bool:
    return ci is not None and ci[0] <= x <= ci[1]


def aa_gate(report: Report, rng: np.random.Generator, reps: int, designs: list[tuple[int, int]]) -> None:
    """Check 2: A/A skills — false fails and verdict flips between two runs of the same cases."""
    skill = Skill(0.0, "bernoulli", "independent", lift_sd=0.0)
    bands = Bands()
    rows = [
        "| cases × runs | false fail | verdicts (pass / neutral / underpowered / fail) | flip rate "
        "| flips to or from pass / fail | point-estimate gate flips |",
        "|---|---:|---|---:|---:|---:|",
    ]
    worst_fail = 0.0
    worst_flip = 0.0
    for n, r in designs:
        counts = {"pass": 0, "neutral": 0, "underpowered": 0, "fail": 0}
        flips = decisive_flips = point_flips = 0
        for _ in range(reps):
            cases = np.stack([rng.normal(0.0, DIFFICULTY_SD, n), np.zeros(n)])
            first, second = simulate(skill, n, r, 1, rng, cases=cases), simulate(skill, n, r, 1, rng, cases=cases)
            l1, l2 = paired_lift(first.trial(0, "independent")), paired_lift(second.trial(0, "independent"))
            v1, v2 = verdict_label(l1.ci, bands), verdict_label(l2.ci, bands)
            counts[v1] += 1
            flips += v1 != v2
            decisive_flips += v1 != v2 and bool({v1, v2} & {"pass", "fail"})
            point_flips += _point_gate(l1.delta, bands) != _point_gate(l2.delta, bands)
        false_fail = counts["fail"] / reps
        flip = flips / reps
        worst_fail, worst_flip = max(worst_fail, false_fail), max(worst_flip, flip)
        dist = " / ".join(_pct(counts[k] / reps) for k in ("pass", "neutral", "underpowered", "fail"))
        rows.append(
            f"| {n} × {r} | {_pct(false_fail)} | {dist} | {_pct(flip)} | {_pct(decisive_flips / reps)} "
            f"| {_pct(point_flips / reps)} |"
        )
    report.tables.append("### A/A skills (true lift 0 on every case)\n\n" + "\n".join(rows))
    report.check("A/A false-fail rate (worst design)", worst_fail, None, 0.05)
    report.check("A/A verdict flip rate (worst design)", worst_flip, None, 0.27 / 2)


def _point_gate(delta: float | None, bands: Bands) -> str:
    """SkillEvaluator-style bands on the point estimate, for comparison."""
    if delta is None:
        return "none"
    return "pass" if delta >= bands.pass_band else "fail" if delta <= bands.fail_band else "neutral"


def _plug_in(w: np.ndarray, c: np.ndarray) -> float:
    """Share of cases whose with-mean is below the control mean: the naive reading of regressions."""
    return float(np.mean(np.nanmean(w, axis=1) < np.nanmean(c, axis=1) - 1e-12))


def degradation(report: Report, rng: np.random.Generator, reps: int) -> None:
    """Check 3: plug-in degradation bias and the interval-based shares."""
    n, runs = 50, 3
    plug, flagged, confident, possible, bracket = [], [], [], [], 0
    for _ in range(reps):
        w = (rng.random((n, runs)) < 0.5).astype(float)
        c = (rng.random((n, runs)) < 0.5).astype(float)
        s = paired_scores(w, c, "independent")
        plug.append(_plug_in(w, c))  # the plug-in estimate of δ₀ (never reported as harm)
        flagged.append(paired_discordance(s).regressions / n)  # regressions beyond run noise
        shares = degradation_shares(s, margin=0.0)
        assert shares.confidently_degraded is not None and shares.possibly_degraded is not None
        confident.append(shares.confidently_degraded)
        possible.append(shares.possibly_degraded)
        bracket += shares.confidently_degraded <= 0.0 <= shares.possibly_degraded
    rows = [
        "| scenario | true share | plug-in (regressions share) | confidently degraded | possibly degraded "
        "| bracket holds |",
        "|---|---:|---:|---:|---:|---:|",
        f"| p = 0.5 both arms, 3 runs, 50 cases | 0% | {_pct(float(np.mean(plug)))} (exact 22/64 = 34.4%; "
        f"beyond run noise {_pct(float(np.mean(flagged)))}) | "
        f"{_pct(float(np.mean(confident)))} | {_pct(float(np.mean(possible)))} | {_pct(bracket / reps)} |",
    ]
    report.check("plug-in degradation share at p = 0.5, 3 runs", float(np.mean(plug)), 0.31, 0.38)
    # Discordance counts a regression only beyond the pooled run spread: at 3 runs only 0/3 vs 3/3 (1/64).
    report.check("discordance regressions beyond run noise at p = 0.5, 3 runs", float(np.mean(flagged)), None, 0.03)
    report.check("confidently degraded share at p = 0.5 (truth 0)", float(np.mean(confident)), None, 0.01)
    report.check("degradation bracket holds (A/A)", bracket / reps, 0.95, None)
    # A real harm: 12 of 40 cases drop from 0.9 to 0.1. Few runs cannot certify it; many runs can.
    n2, harmed, truth = 40, 12, 12 / 40
    for runs2 in (10, 30):
        conf2, poss2, plug2, bracket2 = [], [], [], 0
        for _ in range(reps):
            mu_w, mu_c = np.full(n2, 0.7), np.full(n2, 0.7)
            mu_c[:harmed], mu_w[:harmed] = 0.9, 0.1
            w = (rng.random((n2, runs2)) < mu_w[:, None]).astype(float)
            c = (rng.random((n2, runs2)) < mu_c[:, None]).astype(float)
            s = paired_scores(w, c, "independent")
            shares = degradation_shares(s, margin=0.0)
            assert shares.confidently_degraded is not None and shares.possibly_degraded is not None
            conf2.append(shares.confidently_degraded)
            poss2.append(shares.possibly_degraded)
            plug2.append(_plug_in(w, c))
            bracket2 += shares.confidently_degraded <= truth <= shares.possibly_degraded
        rows.append(
            f"| 12 of 40 cases drop 0.9 → 0.1, {runs2} runs | 30% | {_pct(float(np.mean(plug2)))} | "
            f"{_pct(float(np.mean(conf2)))} | {_pct(float(np.mean(poss2)))} | {_pct(bracket2 / reps)} |"
        )
        report.check(f"degradation bracket holds (real harm, {runs2} runs)", bracket2 / reps, 0.95, None)
    report.check("confidently degraded share finds real harm (30 runs)", float(np.mean(conf2)), 0.2, 0.3)
    report.tables.append("### Degradation shares (review §3.7)\n\n" + "\n".join(rows))


@functools.lru_cache(maxsize=64)
def design_sd(skill: Skill, runs: int) -> float:
    """True SD of the per-case difference d_i for this skill and runs (400,000 simulated cases)."""
    rng = np.random.default_rng(11)
    t = simulate(Skill(skill.beta, skill.kind, skill.coupling, skill.lift_sd, 0.0), 400_000, runs, 1, rng)
    d = np.mean(t.with_scores[0], axis=1) - np.mean(t.control_scores[0], axis=1)
    return float(np.std(d, ddof=1))


def power_check(
    report: Report, rng: np.random.Generator, reps: int, designs: list[tuple[float, str, int, int]]
) -> None:
    """Check 4: predicted power against the observed detection rate (interval excludes 0, right side)."""
    rows = [
        "| skill (β, kind) | cases × runs | true τ | predicted power | observed detection | gap |",
        "|---|---|---:|---:|---:|---:|",
    ]
    worst = 0.0
    for beta, kind, n, r in designs:
        skill = Skill(beta, kind, "independent", missing=0.0)
        tau = true_lift(beta, LIFT_SD)
        predicted = power_to_detect(tau, n, design_sd(skill, r))
        t = simulate(skill, n, r, reps, rng)
        detected = 0
        for i in range(reps):
            ci = paired_lift(t.trial(i, "independent")).ci
            detected += ci is not None and ci[0] > 0.0
        obs = detected / reps
        worst = max(worst, abs(predicted - obs))
        rows.append(
            f"| {beta}, {kind} | {n} × {r} | {tau:.3f} | {_pct(predicted)} | {_pct(obs)} "
            f"| {100 * (obs - predicted):+.1f} |"
        )
    # The planner: choose the cheapest design for 80% power at runs ≤ 5, then observe it.
    skill = Skill(0.5, "bernoulli", "independent", missing=0.0)
    tau = true_lift(skill.beta, LIFT_SD)
    truth = _true_components(skill)
    p = plan(truth, tau, max_runs=5)
    assert p.cheapest is not None
    t = simulate(skill, p.cheapest.cases, p.cheapest.runs, reps, rng)
    detected = sum(1 for i in range(reps) if (ci := paired_lift(t.trial(i, "independent")).ci) and ci[0] > 0.0)
    obs = detected / reps
    worst = max(worst, abs(p.cheapest.power - obs))
    rows.append(
        f"| {skill.beta}, bernoulli, `plan` cheapest | {p.cheapest.cases} × {p.cheapest.runs} | {tau:.3f} | "
        f"{_pct(p.cheapest.power)} | {_pct(obs)} | {100 * (obs - p.cheapest.power):+.1f} |"
    )
    report.tables.append("### Power against observed detection\n\n" + "\n".join(rows))
    report.check("power prediction error, worst design (points)", 100 * worst, None, 10.0 if report.small else 5.0)


def _true_components(skill: Skill) -> VarianceComponents:
    """The skill's variance components, from the true SDs at 1 and 2 runs (d = b + e/runs)."""
    v1, v2 = design_sd(skill, 1) ** 2, design_sd(skill, 2) ** 2
    noise = 2.0 * (v1 - v2)  # σ²_with + σ²_control
    return VarianceComponents(v1 - noise, noise / 2.0, noise / 2.0, 0.0, True, "simulation truth")


def sequential(report: Report, rng: np.random.Generator, reps: int) -> None:
    """Check 5: sequential stopping against the fixed 30 × 3 design."""
    n, runs = 30, 3
    settings = SequentialSettings(max_runs=runs)
    bands = settings.bands
    rows = [
        "| skill | true τ | fixed: verdicts (pass/neutral/underpowered/fail) | sequential: same | agreement "
        "| wrong decisions fixed / seq | rollouts saved |",
        "|---|---:|---|---|---:|---:|---:|",
    ]
    clear_saved, clear_agree = [], []
    err_fixed = err_seq = 0
    total = 0
    for label, beta, clear in (
        ("clear gain", 2.5, True),
        ("clear harm", -2.5, True),
        ("borderline", 0.35, False),
        ("A/A", 0.0, False),
    ):
        skill = Skill(beta, "bernoulli", "independent", lift_sd=LIFT_SD if beta else 0.0)
        tau = true_lift(beta, skill.lift_sd)
        t = simulate(skill, n, runs, reps, rng)
        fixed_counts = dict.fromkeys(("pass", "neutral", "underpowered", "fail"), 0)
        seq_counts = dict(fixed_counts)
        agree = rollouts_seq = wrong_f = wrong_s = 0
        for i in range(reps):
            full = t.trial(i, "independent")
            fixed = verdict(paired_lift(full), bands).label
            for look in range(1, runs + 1):
                decision = sequential_decision(full.first_runs(look), settings)
                if decision.state == "decided":
                    break
            seq = decision.verdict.label
            fixed_counts[fixed] += 1
            seq_counts[seq] += 1
            agree += fixed == seq
            rollouts_seq += 2 * n * decision.look
            wrong_f += _wrong(fixed, tau, bands)
            wrong_s += _wrong(seq, tau, bands)
        saved = 1.0 - rollouts_seq / (reps * 2 * n * runs)
        err_fixed, err_seq, total = err_fixed + wrong_f, err_seq + wrong_s, total + reps
        if clear:
            clear_saved.append(saved)
            clear_agree.append(agree / reps)
        fmt = lambda c: " / ".join(_pct(c[k] / reps) for k in ("pass", "neutral", "underpowered", "fail"))  # noqa: E731
        rows.append(
            f"| {label} | {tau:+.3f} | {fmt(fixed_counts)} | {fmt(seq_counts)} | {_pct(agree / reps)} | "
            f"{_pct(wrong_f / reps)} / {_pct(wrong_s / reps)} | {_pct(saved)} |"
        )
    report.tables.append(f"### Sequential stopping against the fixed {n} × {runs} design\n\n" + "\n".join(rows))
    report.check("rollouts saved on clear-cut skills (worst)", min(clear_saved), 0.30, None)
    report.check("agreement with the fixed design on clear-cut skills (worst)", min(clear_agree), 0.95, None)
    # "No worse": the difference of the two wrong-decision rates, within twice its Monte-Carlo error.
    diff = (err_seq - err_fixed) / total
    se = float(np.sqrt(max(err_seq + err_fixed, 1)) / total)
    report.tables.append(
        f"Wrong decisions over all {total} skills: fixed {_pct(err_fixed / total)}, sequential {_pct(err_seq / total)} "
        f"(Monte-Carlo SE of the difference {100 * se:.2f} points); both bounded by α/2 = 2.5% per direction."
    )
    report.check("sequential minus fixed wrong-decision rate, in Monte-Carlo SEs", diff / se, None, 2.0)
    report.check("sequential wrong-decision rate", err_seq / total, None, 0.025)


def sequential_cases(report: Report, rng: np.random.Generator, reps: int) -> None:
    """Check 5b: sequential stopping that adds cases (looks at 10, 20, 40) against the fixed 40 × 2 design."""
    looks, runs = (10, 20, 40), 2
    settings = SequentialSettings(case_looks=looks)
    bands = settings.bands
    rows = [
        "| skill | true τ | agreement with fixed 40 × 2 | wrong decisions fixed / seq | rollouts saved |",
        "|---|---:|---:|---:|---:|",
    ]
    err_fixed = err_seq = total = 0
    for label, beta in (("clear gain", 2.5), ("clear harm", -2.5), ("borderline", 0.35), ("A/A", 0.0)):
        skill = Skill(beta, "bernoulli", "independent", lift_sd=LIFT_SD if beta else 0.0)
        tau = true_lift(beta, skill.lift_sd)
        t = simulate(skill, looks[-1], runs, reps, rng)
        agree = wrong_f = wrong_s = used = 0
        for i in range(reps):
            full = t.trial(i, "independent")
            fixed = verdict(paired_lift(full), bands).label
            for n in looks:
                part = paired_scores(t.with_scores[i, :n], t.control_scores[i, :n], "independent")
                decision = sequential_decision(part, settings)
                if decision.state == "decided":
                    break
            agree += fixed == decision.verdict.label
            used += 2 * n * runs
            wrong_f += _wrong(fixed, tau, bands)
            wrong_s += _wrong(decision.verdict.label, tau, bands)
        err_fixed, err_seq, total = err_fixed + wrong_f, err_seq + wrong_s, total + reps
        saved = 1.0 - used / (reps * 2 * looks[-1] * runs)
        rows.append(
            f"| {label} | {tau:+.3f} | {_pct(agree / reps)} | {_pct(wrong_f / reps)} / {_pct(wrong_s / reps)} "
            f"| {_pct(saved)} |"
        )
    report.tables.append(
        "### Sequential stopping that adds cases (looks at 10, 20, 40 cases, 2 runs)\n\n" + "\n".join(rows)
    )
    report.check("adding cases: sequential wrong-decision rate", err_seq / total, None, 0.025)
    se = float(np.sqrt(max(err_seq + err_fixed, 1)) / total)
    report.check(
        "adding cases: sequential minus fixed wrong decisions, in SEs", (err_seq - err_fixed) / total / se, None, 2.0
    )


def _wrong(label: str, tau: float, bands: Bands) -> bool:
    """A decision the truth contradicts (underpowered is never wrong, only uninformative)."""
    if label == "pass":
        return tau < bands.pass_band
    if label == "fail":
        return tau > bands.fail_band
    if label == "neutral":
        return not bands.fail_band < tau < bands.pass_band
    return False


def run(small: bool, seed: int) -> Report:
    """Run every check; ``small`` for CI (few repetitions, loose bounds)."""
    start = time.process_time()
    report = Report(small, seed)
    rng = np.random.default_rng(seed)
    steps: Iterator[Callable[[], None]]
    if small:
        steps = iter(
            [
                lambda: coverage(report, rng, 300, ns=[5, 20], runs=[1, 5], kinds=["bernoulli"]),
                lambda: aa_gate(report, rng, 200, [(20, 3)]),
                lambda: degradation(report, rng, 60),
                lambda: power_check(report, rng, 300, [(0.5, "bernoulli", 20, 3)]),
                lambda: sequential(report, rng, 120),
                lambda: sequential_cases(report, rng, 60),
            ]
        )
    else:
        steps = iter(
            [
                lambda: coverage(
                    report, rng, 4000, ns=[5, 10, 20, 30, 60], runs=[1, 2, 3, 5], kinds=["bernoulli", "continuous"]
                ),
                lambda: method_selection(report, rng, 1000, [10, 20, 60]),
                lambda: aa_gate(report, rng, 2000, [(10, 1), (10, 3), (30, 1), (30, 3), (60, 5)]),
                lambda: degradation(report, rng, 1000),
                lambda: power_check(
                    report,
                    rng,
                    4000,
                    [
                        (0.3, "bernoulli", 30, 1),
                        (0.5, "bernoulli", 20, 3),
                        (0.5, "continuous", 15, 2),
                        (0.8, "bernoulli", 10, 5),
                        (0.3, "continuous", 60, 3),
                    ],
                ),
                lambda: sequential(report, rng, 1000),
                lambda: sequential_cases(report, rng, 1000),
            ]
        )
    for step in steps:
        step()
    report.seconds = time.process_time() - start
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="few repetitions and loose bounds (CI)")
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args(argv)
    report = run(args.small, args.seed)
    for table in report.tables:
        print(table, end="\n\n")
    print("| check | value | bound | ok |\n|---|---:|---|---|")
    for c in report.checks:
        print(f"| {c.name} | {c.value:.4f} | {c.bound} | {'yes' if c.ok else '**NO**'} |")
    print(f"\nCPU time: {report.seconds:.1f} s; seed {report.seed}; {'small' if report.small else 'full'} run")
    return 0 if report.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
