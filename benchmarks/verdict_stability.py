"""Does the default verdict hold up end to end? A planted skill, an A/A skill and ``--plan`` across pilots.

Issue 18's "done when", measured through the whole ``aces-ci trial`` verb against the scripted
OpenAI-compatible server of ``tests/servers`` (the same planting as ``trial_coverage.py``: the
model answers right with probability ``p_with`` when the skill's text is in its context, else
``p_without``), 30 cases × 3 runs, preload disclosure, the default gate (``outcome``):

* **planted** — ``p_with`` 0.9, ``p_without`` 0.4 (true lift +0.5): the share of seeds whose
  verdict is ``pass``; the same seeds gated on ``composite`` for comparison (its efficiency term
  charges the skill for its own tokens);
* **A/A** — ``p_with = p_without`` = 0.5 (the skill changes nothing): the share of seed pairs
  (2k, 2k+1) whose exit codes agree, and the cases triaged as "steered wrong" (run noise only);
* **plan** — for each planted seed, ``aces-ci trial --plan --target-lift 0.2`` from that seed's
  cached rollouts (the pilot): the recommended design of the pass question, and the ratio of the
  largest to the smallest recommended rollouts across pilots (issue 18 asks for ≤ 2).

Usage::

    .venv/bin/python benchmarks/verdict_stability.py [--seeds 20] [--cases 30] [--runs 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aces_ci.cli import main
from tests.engine.helpers import MARKER, write_skill
from tests.servers import Reply, ScriptedRequest, ScriptedServer, Text
from tests.trials.helpers import cases_json, draw


def script(p_with: float, p_without: float):  # type: ignore[no-untyped-def]
    def answer(req: ScriptedRequest) -> Reply:
        p = p_with if MARKER in req.all_text else p_without
        return Text("42" if draw(req) < p else "I do not know")

    return answer


def _trial(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue()


def campaign(args: argparse.Namespace, p_with: float, p_without: float, *, plan: bool) -> dict[str, object]:
    codes, verdicts, composite, steered, designs = [], [], [], 0, []
    with tempfile.TemporaryDirectory() as tmp, ScriptedServer(script(p_with, p_without)) as server:
        root = Path(tmp)
        (root / ".git").mkdir()
        skill = write_skill(root / "skills", "marker", evals=cases_json("marker", args.cases))
        flags = ["--provider", "openai", "--base-url", server.openai_url, "--model", "scripted-model"]
        flags += ["--disclosure", "preload", "--cache-dir", str(root / "cache"), "--concurrency", "8"]
        for seed in range(args.seeds):
            base = ["trial", str(skill), "--runs", str(args.runs), "--seed", str(seed), *flags]
            out = root / f"trial-{seed}.json"
            code, _ = _trial([*base, "--quiet", "--json", str(out)])
            if code not in (0, 1):
                raise SystemExit(f"trial exited {code} at seed {seed}")
            result = json.loads(out.read_text())["skills"][0]
            codes.append(code)
            verdicts.append(result["verdict"])
            steered += sum(1 for case in result["triage"] if case["triage"] == "steered")
            if args.composite:
                other = root / f"composite-{seed}.json"
                _trial([*base, "--quiet", "--lift-metric", "composite", "--json", str(other)])
                composite.append(json.loads(other.read_text())["skills"][0]["verdict"])
            if plan:
                plan_json = root / f"plan-{seed}.json"
                code, _ = _trial([*base, "--plan", "--target-lift", str(args.target_lift), "--json", str(plan_json)])
                if code != 0:
                    raise SystemExit(f"--plan exited {code} at seed {seed}")
                design = json.loads(plan_json.read_text())["skills"][0]["designs"][-1]
                designs.append((design["cases"], design["runs"], design["rollouts"], design["within_available_cases"]))
    pairs = [(codes[i], codes[i + 1]) for i in range(0, len(codes) - 1, 2)]
    report: dict[str, object] = {
        "p_with": p_with,
        "p_without": p_without,
        "seeds": args.seeds,
        "verdicts": {v: verdicts.count(v) for v in sorted(set(verdicts))},
        "pass_share": verdicts.count("pass") / len(verdicts),
        "exit_code_pairs_agreeing": sum(a == b for a, b in pairs) / len(pairs) if pairs else None,
        "cases_triaged_steered": steered,
    }
    if composite:
        report["composite_verdicts"] = {v: composite.count(v) for v in sorted(set(composite))}
    if designs:
        rollouts = [d[2] for d in designs if d[2] is not None]
        report["plan_designs"] = designs
        report["plan_rollouts_max_over_min"] = max(rollouts) / min(rollouts) if rollouts else None
        report["plan_beyond_dataset_unsaid"] = sum(1 for d in designs if d[0] and d[0] > args.cases and d[3])
    return report


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--cases", type=int, default=30)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--target-lift", type=float, default=0.2)
    parser.add_argument("--composite", action="store_true", help="also gate each planted seed on composite")
    args = parser.parse_args()
    os.environ["CI"] = "true"
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115 — the progress lines of many trials say nothing here
    planted = campaign(args, 0.9, 0.4, plan=True)
    args.composite = False
    aa = campaign(args, 0.5, 0.5, plan=False)
    print(json.dumps({"planted": planted, "aa": aa}, indent=2))


if __name__ == "__main__":
    main_()
