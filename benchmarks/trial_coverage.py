"""Coverage of ``aces-ci trial``'s accuracy interval end to end, against a scripted model with a planted lift.

``benchmarks/stats_validity.py`` validates the statistics on simulated scores. This checks the
whole verb: staging, the built-in agent loop over HTTP, seeds, the cache keys, grading, the
table of scores and the interval, on a scripted OpenAI-compatible server (tests/servers) that
answers right with probability ``p_with`` when the skill's text is in its context and ``p_without``
when it is not. Each repetition is one ``aces-ci trial`` with its own ``--seed`` (so its own
sampling draws) on ``--cases`` cases × ``--runs`` runs; the figure is the share of repetitions
whose 95% interval contains the planted lift, beside the same share for the naive pooled-runs
interval the report prints for comparison.

A few hundred end-to-end trials estimate coverage only to ±1.5 points, and the draws of one seed
range are what they are. So each trial is also **replayed offline**: the same uniform draws
(case prompt × the sampling seed the built-in agent sends, from ``condition_seed`` and
``model_seed``) scored without any server, and the interval recomputed with
``aces_ci.stats``. ``faithful`` is the share of trials whose verb interval equals its replay (it
must be 1.0: the verb adds nothing to the statistics and loses no run); ``replay_coverage`` is
then measured on ``--replays`` seeds, cheaply.

Two plantings:

* ``constant`` — every case has the same p_with and p_without: the truth is p_with − p_without,
  for these cases and for the population alike;
* ``varied`` — case i gets its own p_with_i, p_without_i (drawn once from the case id), so cases
  differ in difficulty and in lift; the truth printed is the mean over *these* cases, which the
  case-clustered interval covers conservatively (it also allows for which cases were written).

Usage::

    .venv/bin/python benchmarks/trial_coverage.py [--repeats 100] [--cases 30] [--runs 3] [--planting constant]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aces_ci import stats
from aces_ci.agents import HarnessSpec, RolloutRequest, SkillSet
from aces_ci.agents.builtin import model_seed
from aces_ci.cli import main
from aces_ci.evals import EvalCase
from aces_ci.models import ModelSpec
from aces_ci.trials import TrialDesign, condition_seed
from tests.engine.helpers import MARKER, write_skill
from tests.servers import Reply, ScriptedRequest, ScriptedServer, Text
from tests.trials.helpers import cases_json, draw

PROMPT = "Question {i}: what is the secret project number?"
"""The prompt of case i in ``tests.trials.helpers.cases_json``."""


def _unit(text: str) -> float:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") / 2**64


def probabilities(planting: str, case_prompt: str, p_with: float, p_without: float) -> tuple[float, float]:
    if planting == "constant":
        return p_with, p_without
    base = 0.1 + 0.5 * _unit("base" + case_prompt)
    lift = (p_with - p_without) * 2 * _unit("lift" + case_prompt)
    return min(base + lift, 1.0), base


def script(planting: str, p_with: float, p_without: float):  # type: ignore[no-untyped-def]
    def answer(req: ScriptedRequest) -> Reply:
        pw, pc = probabilities(planting, req.last_user_text, p_with, p_without)
        p = pw if MARKER in req.all_text else pc
        return Text("42" if draw(req) < p else "I do not know")

    return answer


def truth(planting: str, cases: int, p_with: float, p_without: float) -> float:
    prompts = [PROMPT.format(i=i) for i in range(cases)]
    pairs = [probabilities(planting, prompt, p_with, p_without) for prompt in prompts]
    return sum(w - c for w, c in pairs) / len(pairs)


def replay(args: argparse.Namespace, seed: int) -> tuple[float, float]:
    """The accuracy interval of the trial with ``--seed seed``, from its draws, without the verb or a server."""
    design = TrialDesign(seed=seed, runs=args.runs)
    template = RolloutRequest(
        EvalCase("x", "x"), SkillSet((), "marker"), "with", HarnessSpec("builtin"), ModelSpec("openai", "m")
    )
    rows = {}
    for label in ("with", "without"):
        request_seed = condition_seed(design, label)
        seeds = [model_seed(dataclasses.replace(template, seed=request_seed, replicate=r)) for r in range(args.runs)]
        rows[label] = []
        for i in range(args.cases):
            prompt = PROMPT.format(i=i)
            pw, pc = probabilities(args.planting, prompt, args.p_with, args.p_without)
            p = pw if label == "with" else pc
            rows[label].append([1.0 if _draw(prompt, s) < p else 0.0 for s in seeds])
    ci = stats.paired_lift(stats.paired_scores(rows["with"], rows["without"])).ci
    assert ci is not None
    return ci


def _draw(prompt: str, seed: int) -> float:
    digest = hashlib.sha256(f"{prompt}|{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def run(args: argparse.Namespace) -> dict[str, object]:
    os.environ["CI"] = "true"
    target = truth(args.planting, args.cases, args.p_with, args.p_without)
    covered = naive_covered = faithful = 0
    widths = []
    with tempfile.TemporaryDirectory() as tmp, ScriptedServer(script(args.planting, args.p_with, args.p_without)) as s:
        root = Path(tmp)
        (root / ".git").mkdir()
        skill = write_skill(root / "skills", "marker", evals=cases_json("marker", args.cases))
        for seed in range(args.repeats):
            out = root / f"trial-{seed}.json"
            argv = ["trial", str(skill), "--runs", str(args.runs), "--seed", str(seed), "--quiet", "--json", str(out)]
            argv += ["--provider", "openai", "--base-url", s.openai_url, "--model", "scripted-model"]
            argv += ["--disclosure", "preload", "--no-cache", "--concurrency", "8"]
            code = main(argv)
            if code not in (0, 1):
                raise SystemExit(f"trial exited {code} at seed {seed}")
            lift = json.loads(out.read_text())["skills"][0]["lift"]["accuracy"]
            lo, hi = lift["ci"]
            covered += lo <= target <= hi
            faithful += all(abs(a - b) < 1e-9 for a, b in zip((lo, hi), replay(args, seed), strict=True))
            widths.append(hi - lo)
            naive = lift["naive_ci"]
            naive_covered += naive is not None and naive[0] <= target <= naive[1]
    replayed = [replay(args, seed) for seed in range(args.repeats, args.repeats + args.replays)]
    return {
        "planting": args.planting,
        "cases": args.cases,
        "runs": args.runs,
        "repeats": args.repeats,
        "truth": round(target, 4),
        "coverage": covered / args.repeats,
        "naive_coverage": naive_covered / args.repeats,
        "mean_width": sum(widths) / len(widths),
        "faithful": faithful / args.repeats,
        "replays": args.replays,
        "replay_coverage": sum(lo <= target <= hi for lo, hi in replayed) / len(replayed),
    }


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=100)
    parser.add_argument("--cases", type=int, default=30)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--replays", type=int, default=4000)
    parser.add_argument("--p-with", type=float, default=0.8)
    parser.add_argument("--p-without", type=float, default=0.4)
    parser.add_argument("--planting", choices=("constant", "varied"), default="constant")
    args = parser.parse_args()
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115 — the progress lines of a hundred trials say nothing here
    print(json.dumps(run(args), indent=2))


if __name__ == "__main__":
    main_()
