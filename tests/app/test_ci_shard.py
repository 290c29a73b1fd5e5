"""``aces-ci ci --shard i/n`` on a release, and its merge job ``ci --trial-parts``, as a workflow matrix runs them.

One tag push of a two-skill repository runs once unsharded and once as two shard jobs plus a merge
job, each job with its own rollout cache and reports folder, against one scripted model whose answers
depend on the skill being in context and on the sampling seed. The merge job's verdict, JSON reports
and the baseline it stores on the results branch must be the unsharded run's, timings aside; a
missing or foreign part is exit 2 naming the file, and the paths a part cannot carry are refused.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import re
import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from aces_ci.app._ci_shard import part_name
from aces_ci.cli import build_parser, main
from aces_ci.github import COMMENT_MARKER
from tests.engine.helpers import write_skill
from tests.github.helpers import actions_env, event, read_outputs
from tests.github.server import WRITE_TOKEN, GitHubServer
from tests.servers import ScriptedRequest, ScriptedServer, model_flags
from tests.trials.helpers import cases_json, commit, planted_accuracy
from tests.trials.test_trigger_trial import keyword_model

Server = Callable[..., ScriptedServer]
TAG = "v2.0.0"
TIMINGS = frozenset({"generated_at", "wall_s", "measured_at", "updated_at"})
"""Measured time (with every ``latency…`` key): the only fields the merge job may not reproduce."""


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(key, raising=False)


def _without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k not in TIMINGS and "latency" not in k}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def _released_repo(tmp_path: Path, queries: bool = False) -> tuple[Path, str]:
    """Two skills with eight cases each (with ``queries``, marker's trigger queries too), tagged; no remote yet
    (each run pushes to its own ``origin``)."""
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    for name in ("marker", "zebra"):
        write_skill(root / "skills", name, evals=cases_json(name, 8))
    if queries:
        asked = [{"query": f"what is the project {i} number", "should_trigger": True} for i in range(6)]
        (root / "skills" / "marker" / "evals" / "eval_queries.json").write_text(json.dumps(asked))
    commit(root, "first")
    _git(root, "tag", TAG)
    return root, _git(root, "rev-parse", "HEAD")


def _origin(tmp_path: Path, root: Path, name: str) -> Path:
    """A fresh bare ``origin`` for one run's results branch."""
    origin = tmp_path / f"{name}.git"
    subprocess.run(["git", "init", "-q", "--bare", str(origin)], check=True)
    if "origin" in _git(root, "remote"):
        _git(root, "remote", "remove", "origin")
    _git(root, "remote", "add", "origin", str(origin))
    return origin


def _job(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    sha: str,
    job: str,
    server: ScriptedServer,
    *extra: str,
    on: str = "push_tag",
    value: bool = False,
) -> tuple[int, dict[str, str]]:
    """One job of the release workflow (``on="schedule"``: of a rerun): its own runner files, reports folder
    and rollout cache; SkillSV only when ``value``."""
    name, ref = ("push", f"refs/tags/{TAG}") if on == "push_tag" else (on, "refs/heads/main")
    output, summary = actions_env(monkeypatch, tmp_path, name, event(tmp_path, f"{on}.json"), sha=sha, ref=ref)
    output.write_text("")
    summary.write_text("")
    code = main(
        [
            *("ci", str(tmp_path / "repo"), "--reports", str(tmp_path / job), "--no-cache", "--jobs", "1"),
            *model_flags(server),
            *("--disclosure", "preload", "--runs", "2", "--concurrency", "4", "--value" if value else "--no-value"),
            *("--rollout-cache", str(tmp_path / f"rollouts-{job}"), "--lift-metric", "accuracy"),
            *extra,
        ]
    )
    return code, read_outputs(output)


def _stored(origin: Path, path: str) -> Any:
    done = subprocess.run(
        ["git", "--git-dir", str(origin), "show", f"aces-results:{path}"], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def _report(path: str | Path) -> Any:
    return _without_timings(json.loads(Path(path).read_text()))


def test_a_release_in_two_shard_jobs_and_a_merge_job_gates_reports_and_stores_what_one_job_would(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_accuracy(0.9, 0.2))
    root, sha = _released_repo(tmp_path)

    whole = _origin(tmp_path, root, "whole")
    code, expected = _job(tmp_path, monkeypatch, sha, "whole", server)
    assert (code, expected["work"], expected["verdict"]) == (0, "release", "pass")
    calls = server.calls

    sharded = _origin(tmp_path, root, "sharded")
    parts = []
    for index in (1, 2):
        code, values = _job(tmp_path, monkeypatch, sha, f"shard{index}", server, "--shard", f"{index}/2")
        assert code == 0 and values["work"] == "release" and "verdict" not in values, "a shard does not gate"
        parts.append(Path(values["trial-part"]))
        assert parts[-1] == tmp_path / f"shard{index}" / f"trial-part-{index}-of-2.json"
        assert not (tmp_path / f"shard{index}" / "results.json").exists(), "a shard writes no report"
    assert server.calls - calls == calls, "the two shards together ran exactly the unsharded trial's rollouts"
    assert "aces-results" not in _git(root, "ls-remote", "origin"), "no shard stores anything"
    shards = [json.loads(part.read_text()) for part in parts]
    assert all(part["invocation"] == ["ci"] for part in shards)
    units = [{tuple(unit) for unit in part["units"]} for part in shards]
    assert not units[0] & units[1] and len(units[0] | units[1]) == 16, "each (skill, case) in exactly one shard"
    assert {skill for skill, _ in units[0] | units[1]} == {"marker", "zebra"}
    capsys.readouterr()

    calls = server.calls
    code, merged = _job(tmp_path, monkeypatch, sha, "merge", server, "--trial-parts", *map(str, parts))
    assert code == 0 and server.calls == calls, "the merge job replays the parts: it calls no model"
    assert {k: merged[k] for k in ("work", "verdict", "lift", "lift-ci-low", "lift-ci-high", "lift-contrast")} == {
        k: expected[k] for k in ("work", "verdict", "lift", "lift-ci-low", "lift-ci-high", "lift-contrast")
    }
    assert _report(merged["trial-report"]) == _report(expected["trial-report"])
    assert _report(tmp_path / "merge" / "results.json") == _report(tmp_path / "whole" / "results.json")
    assert _without_timings(_stored(sharded, "baseline.json")) == _without_timings(_stored(whole, "baseline.json"))
    release = f"releases/{TAG}.json"
    assert _without_timings(_stored(sharded, release)) == _without_timings(_stored(whole, release))
    assert "are stored on branch aces-results" in (tmp_path / "step_summary").read_text()

    # A missing shard, and a shard of another trial (another seed), are refused naming the file.
    code, _ = _job(tmp_path, monkeypatch, sha, "merge", server, "--trial-parts", str(parts[0]))
    err = capsys.readouterr().err
    assert code == 2 and "shards missing: 2/2" in err and str(parts[0]) in err
    _job(tmp_path, monkeypatch, sha, "foreign", server, "--shard", "2/2", "--seed", "8")
    foreign = tmp_path / "foreign" / "trial-part-2-of-2.json"
    capsys.readouterr()
    code, _ = _job(tmp_path, monkeypatch, sha, "merge", server, "--trial-parts", str(parts[0]), str(foreign))
    err = capsys.readouterr().err
    assert code == 2 and "'design' differs" in err and str(foreign) in err
    # `aces-ci merge` sends a ci part to the ci merge, rather than failing to parse its command line.
    assert main(["merge", *map(str, parts)]) == 2
    assert "merge it with `aces-ci ci --trial-parts`" in capsys.readouterr().err


def test_a_sharded_rerun_stores_the_record_one_job_would_with_the_run_ids_fresh_seed(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rerun draws with the run id's seed: every shard and the merge job of one workflow run share it."""
    server = scripted_server(planted_accuracy(0.9, 0.2))
    root, sha = _released_repo(tmp_path)
    whole = _origin(tmp_path, root, "whole")
    code, expected = _job(tmp_path, monkeypatch, sha, "whole", server, on="schedule")
    assert (code, expected["work"]) == (0, "rerun")
    sharded = _origin(tmp_path, root, "sharded")
    parts = []
    for index in (1, 2):
        code, values = _job(tmp_path, monkeypatch, sha, f"shard{index}", server, "--shard", f"{index}/2", on="schedule")
        assert (code, values["work"]) == (0, "rerun")
        parts.append(values["trial-part"])
    code, merged = _job(tmp_path, monkeypatch, sha, "merge", server, "--trial-parts", *parts, on="schedule")
    assert (code, merged["verdict"]) == (0, expected["verdict"])
    trial = json.loads(Path(merged["trial-report"]).read_text())
    assert trial["protocol"]["seed"] == 42, "the run id (GITHUB_RUN_ID=42) seeds the rerun, as unsharded"
    assert _report(merged["trial-report"]) == _report(expected["trial-report"])
    record = f"reruns/{trial['generated_at'][:10]}-42.json"
    assert _without_timings(_stored(sharded, record)) == _without_timings(_stored(whole, record))


def test_a_sharded_release_values_its_skills_in_the_merge_job_only_and_pays_what_one_job_pays(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SkillSV runs in the merge job; with the shards' rollouts imported (as the example workflow does) it reuses
    the trials' runs as the unsharded job does, so the matrix calls the model exactly as often as one job."""
    server = scripted_server(planted_accuracy(0.9, 0.2))
    root, sha = _released_repo(tmp_path)
    _origin(tmp_path, root, "whole")
    code, expected = _job(tmp_path, monkeypatch, sha, "whole", server, value=True)
    assert code == 0 and Path(expected["value-report"]).is_dir()
    one_job = server.calls

    _origin(tmp_path, root, "sharded")
    parts = []
    for index in (1, 2):
        code, values = _job(tmp_path, monkeypatch, sha, f"shard{index}", server, "--shard", f"{index}/2", value=True)
        assert code == 0
        parts.append(values["trial-part"])
    rollouts = sum(len(json.loads(Path(part).read_text())["records"]) for part in parts)
    assert server.calls - one_job == rollouts, "a shard calls the model for its trial's rollouts only: no SkillSV"
    for index in (1, 2):
        archive = str(tmp_path / f"rollouts-{index}.jsonl.gz")
        assert main(["cache", "export", "--cache-dir", str(tmp_path / f"rollouts-shard{index}"), "--out", archive]) == 0
        assert main(["cache", "import", archive, "--cache-dir", str(tmp_path / "rollouts-merge")]) == 0
    code, merged = _job(tmp_path, monkeypatch, sha, "merge", server, "--trial-parts", *parts, value=True)
    assert code == 0 and Path(merged["value-report"]).is_dir(), "the merge job values the released skills"
    assert server.calls == 2 * one_job, "the shards and the merge job together pay what the one job paid"
    summary = (tmp_path / "step_summary").read_text()
    assert "#### SkillSV: skills/marker" in summary and "#### SkillSV: skills/zebra" in summary


def test_a_sharded_release_runs_its_trigger_trial_in_the_merge_job_as_one_job_would(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks = planted_accuracy(0.9, 0.2)

    def answer(request: ScriptedRequest) -> object:
        return keyword_model(request) if request.system_text.startswith("You can load skills") else tasks(request)

    server = scripted_server(answer)
    root, sha = _released_repo(tmp_path, queries=True)
    _origin(tmp_path, root, "whole")
    code, expected = _job(tmp_path, monkeypatch, sha, "whole", server)
    assert code == 0 and Path(expected["triggers-report"]).is_file()
    one_job = server.calls
    _origin(tmp_path, root, "sharded")
    parts = []
    for index in (1, 2):
        code, values = _job(tmp_path, monkeypatch, sha, f"shard{index}", server, "--shard", f"{index}/2")
        assert code == 0 and "triggers-report" not in values
        parts.append(values["trial-part"])
    rollouts = sum(len(json.loads(Path(part).read_text())["records"]) for part in parts)
    assert server.calls - one_job == rollouts, "no shard runs the trigger trial"
    code, merged = _job(tmp_path, monkeypatch, sha, "merge", server, "--trial-parts", *parts)
    assert code == 0 and server.calls == 2 * one_job, "the merge job runs the trigger trial, and only it"
    assert _report(merged["triggers-report"]) == _report(expected["triggers-report"])


def test_the_paths_a_trial_part_cannot_carry_are_refused_saying_why(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_accuracy(0.9, 0.2))
    _, sha = _released_repo(tmp_path)
    calls = server.calls
    code, _ = _job(tmp_path, monkeypatch, sha, "value", server, "--shard", "1/2", "--mode", "value")
    assert code == 2 and "`aces-ci value --shard`" in capsys.readouterr().err
    code, _ = _job(tmp_path, monkeypatch, sha, "both", server, "--shard", "1/2", "--trial-parts", "part.json")
    assert code == 2 and "--shard runs one shard and --trial-parts merges them" in capsys.readouterr().err
    code, _ = _job(tmp_path, monkeypatch, sha, "push", server, "--trial-parts", "part.json", on="push")
    assert code == 2 and "a sharded scan is merged by `aces-ci merge shard-*.json`" in capsys.readouterr().err
    assert server.calls == calls, "a refusal pays nothing"


def test_the_release_ci_matrix_workflow_shards_and_merges_one_ci_configuration() -> None:
    """The example's shard and merge jobs run `aces-ci ci` with the same settings, the merge reads the parts the
    shards write and upload, and only the merge job may push the results branch."""
    path = Path(__file__).parents[2] / "examples" / "workflows" / "skill-release-ci-matrix.yml"
    workflow = yaml.safe_load(path.read_text())
    env = {"MODEL": workflow["env"]["MODEL"], "SHARDS": workflow["env"]["SHARDS"], "SHARD": "3"}
    assert workflow["jobs"]["shard"]["strategy"]["matrix"]["shard"] == list(range(1, int(env["SHARDS"]) + 1))
    runs: dict[str, argparse.Namespace] = {}
    for name, job in workflow["jobs"].items():
        for step in job["steps"]:
            words = [re.sub(r"\$(\w+)", lambda m: env[m.group(1)], w) for w in shlex.split(step.get("run", ""))]
            if words[:2] == ["aces-ci", "ci"]:
                runs[name] = build_parser().parse_args(words[1:])
            elif words[:3] == ["aces-ci", "cache", "export"]:
                runs["export"] = build_parser().parse_args(words[1:])
            elif words[:3] == ["aces-ci", "cache", "import"] and name == "merge":
                runs["import"] = build_parser().parse_args(words[1:])
    shard, merge = runs["shard"], runs["merge"]
    assert str(shard.shard) == "3/4" and shard.trial_parts == () and merge.shard is None
    same = {k: v for k, v in vars(shard).items() if k not in ("shard", "trial_parts", "run")}
    assert same == {k: v for k, v in vars(merge).items() if k not in ("shard", "trial_parts", "run")}
    upload = next(s for s in workflow["jobs"]["shard"]["steps"] if "upload-artifact" in s.get("uses", ""))
    written = shard.reports / part_name(shard.shard)
    uploaded = upload["with"]["path"].split()
    assert any(fnmatch.fnmatch(str(written), pattern) for pattern in uploaded)
    archive = Path(f"rollouts-{env['SHARD']}.jsonl.gz")
    assert runs["export"].out == archive and any(fnmatch.fnmatch(str(archive), pattern) for pattern in uploaded)
    assert runs["import"].cache_dir == shard.rollout_cache == merge.rollout_cache, "the merge job's SkillSV reuses them"
    (parts,) = merge.trial_parts
    download = next(s for s in workflow["jobs"]["merge"]["steps"] if "download-artifact" in s.get("uses", ""))
    assert fnmatch.fnmatch(f"{download['with']['path']}/{written.name}", str(parts))
    assert workflow["permissions"]["contents"] == "read" and "permissions" not in workflow["jobs"]["shard"]
    assert workflow["jobs"]["merge"]["permissions"]["contents"] == "write", "the merge stores the baselines"
    assert workflow["jobs"]["shard"]["steps"][0]["with"]["fetch-depth"] == 0, "the previous release tag is needed"


def test_a_labelled_pull_request_is_not_sharded_its_version_contrast_is_a_second_trial(
    scripted_server: Server,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    github: GitHubServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = scripted_server(planted_accuracy(0.9, 0.2))
    root, base = _released_repo(tmp_path)
    write_skill(root / "skills", "marker", body="# Marker\n\nAnswer in one line.")
    commit(root, "a change to trial")
    head = _git(root, "rev-parse", "HEAD")
    path = event(tmp_path, "pull_request_labeled.json")
    path.write_text(path.read_text().replace("1" * 40, base).replace("2" * 40, head))
    actions_env(monkeypatch, tmp_path, "pull_request", path, api_url=github.url, token=WRITE_TOKEN)
    reports = str(tmp_path / "reports")
    code = main(["ci", str(root), "--reports", reports, "--no-cache", *model_flags(server), "--shard", "1/2"])
    assert code == 2 and "a labelled pull request's trials are not sharded" in capsys.readouterr().err
    assert server.calls == 0 and not github.state.ours(7, COMMENT_MARKER), "refused before any work or comment"


def test_a_trial_verbs_part_a_missing_file_and_parts_a_checkout_has_no_trial_for_are_refused(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(planted_accuracy(0.9, 0.2))
    root, sha = _released_repo(tmp_path)
    code, values = _job(tmp_path, monkeypatch, sha, "shard", server, "--shard", "1/1")
    assert code == 0
    part = json.loads(Path(values["trial-part"]).read_text())
    trial_part = tmp_path / "trial-part.json"  # as `aces-ci trial skills/* --shard 1/1 --part …` records it
    trial_part.write_text(json.dumps(part | {"invocation": ["skills/marker", "skills/zebra", "--shard", "1/1"]}))
    capsys.readouterr()
    code, _ = _job(tmp_path, monkeypatch, sha, "merge", server, "--trial-parts", str(trial_part))
    err = capsys.readouterr().err
    assert code == 2 and "a part of `aces-ci trial --shard`" in err and str(trial_part) in err
    for name in ("marker", "zebra"):
        shutil.rmtree(root / "skills" / name / "evals")
    commit(root, "the datasets moved elsewhere")
    _git(root, "tag", "-f", TAG)
    capsys.readouterr()
    head = _git(root, "rev-parse", "HEAD")
    code, _ = _job(tmp_path, monkeypatch, head, "merge", server, "--trial-parts", values["trial-part"])
    err = capsys.readouterr().err
    assert code == 2 and "this checkout has no skill to trial" in err and values["trial-part"] in err
    code, _ = _job(tmp_path, monkeypatch, sha, "missing", server, "--trial-parts", str(tmp_path / "nowhere.json"))
    assert code == 2 and str(tmp_path / "nowhere.json") in capsys.readouterr().err
