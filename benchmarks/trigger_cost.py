"""Tokens of a trigger trial against a task trial on the same queries (issue 21: "a small fraction").

One skill, ``--cases`` prompts: once as eval cases (``evals/evals.json``: ``aces-ci trial``, with and
without the skill, the built-in agent loop reading SKILL.md and answering), once as trigger queries
(``evals/eval_queries.json``: ``aces-ci trial --triggers``, one decision call each). Both run against
the scripted OpenAI-compatible server of ``tests/servers``, whose token counts are derived from the
bytes of each request and reply (about 4 characters a token): what is compared is how much text each
protocol sends and receives, which is what a real API bills.

Usage::

    .venv/bin/python benchmarks/trigger_cost.py [--cases 10] [--runs 1]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aces_ci.cli import main
from tests.engine.helpers import planted_skill, write_skill
from tests.servers import Reply, ScriptedRequest, ScriptedServer, ToolUse, model_flags
from tests.trials.helpers import cases_json


def model(request: ScriptedRequest) -> Reply:
    """The trigger trial's decision loads the skill; a task rollout reads SKILL.md and answers (planted_skill)."""
    if "You can load skills with the Skill tool" in request.system_text:
        return ToolUse("Skill", {"name": "marker"})
    return planted_skill(request)


def _tokens(argv: list[str], out: Path) -> int:
    with contextlib.redirect_stdout(io.StringIO()):
        code = main([*argv, "--json", str(out)])
    if code != 0:
        raise SystemExit(f"aces-ci {' '.join(argv[:2])} exited {code}")
    document = json.loads(out.read_text())
    if "spent" in document:
        return int(document["spent"]["input_tokens"]) + int(document["spent"]["output_tokens"])
    return int(document["tokens"])


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / ".git").mkdir()
        skill = write_skill(root / "skills", "marker", evals=cases_json("marker", args.cases))
        queries = json.loads(cases_json("marker", args.cases))["evals"]
        rows = [{"query": case["prompt"], "should_trigger": True} for case in queries]
        (skill / "evals" / "eval_queries.json").write_text(json.dumps(rows))
        server = ScriptedServer(model).start()
        try:
            common = [*model_flags(server), "--no-cache", "--runs", str(args.runs)]
            task = _tokens(["trial", str(skill), *common, "--quiet"], root / "task.json")
            trigger = _tokens(["trial", "--triggers", str(skill), *common, "--quiet"], root / "trigger.json")
        finally:
            server.stop()
    print(f"{args.cases} queries x {args.runs} run(s): task trial {task:,} tokens, trigger trial {trigger:,} tokens")
    print(f"trigger / task = {trigger / task:.3f}")


if __name__ == "__main__":
    main_benchmark()
