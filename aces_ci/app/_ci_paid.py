"""The paid paths of ``aces-ci ci``: paired trials for a release, a labelled pull request and a scheduled rerun.

What each event measures (the plan of :func:`aces_ci.github.plan_run` chose it; fork code never
gets here):

* **release** (tag push or ``release``): the skills changed since the previous release tag (all
  of them on a first release), each with against without; the gate reads each lift's interval
  against the bands (a harmful skill fails the release, exit 1). Then SkillSV values their units
  on what the trials left of the budget (:mod:`aces_ci.app._ci_value`; ``--no-value`` turns
  it off). A release that passes the gate stores its lifts as the new baselines on the results
  branch; every release's full trial result is kept there under ``releases/<tag>.json``, and its
  SkillSV reports under ``releases/<tag>/value/``.
* **trial** (a same-repository pull request labelled for trials, or ``mode: trial``): the pull
  request's version of each changed skill against the base branch's (``trial --against <base
  sha>``: "did this change help?") and with against without; a skill new in the pull request has
  no base version and gets the second only. The two share the run's budget (the second gets what
  the first left), and with a rollout cache the with-condition's runs of the second are cache hits.
* **rerun** (``schedule``, ``workflow_dispatch``, ``mode: rerun``): every skill with against
  without on the configured (possibly updated) model, with a fresh seed (the run id), compared
  with the last release's baselines: per skill the lift now and then and the interval of the
  difference; a regression fails the run only when that interval lies below zero. Each rerun is
  stored as ``reruns/<utc-date>-<run id>.json`` on the results branch, and the comment shows the
  lifts of the last few stored reruns beside this one.
* **value** (``mode: value``): SkillSV alone on the pull request's changed skills (a same-repository
  pull request), else on every skill under the path, within the run's budget; no trials.

On the three trial events, each changed skill with an ``evals/eval_queries.json`` also gets a
trigger trial (:func:`aces_ci.app.triggers`: one decision call per
query and run, the repository's skills listed as Claude Code lists them; a pull request's against
the base branch's descriptions when every such skill has one). Its line per skill goes in the
comment, its JSON in ``triggers.json``; with aces.yml ``trial.min_recall`` each skill's recall is a
``recall`` criterion of the gate (:func:`~aces_ci.gate.recall_criteria`), else it only informs. A query
file with a problem or a model API that fails it becomes a note; the trials' verdict stands. It runs
only while the run's budget has something left, and what it pays counts against that budget.

Skills without an eval dataset cannot be measured: each gets a warning criterion naming what is
missing, never a silent pass. A skill whose rollouts infrastructure lost (no measured pair, or more
than :data:`~aces_ci.gate.MAX_INFRA_SHARE` of its design) gets an ``error`` criterion instead of its
lift's verdict: the run's verdict is ``error``, exit 3, and nothing is stored on the results branch
(:func:`~aces_ci.app._ci_outcome.gated_lifts`, :meth:`PaidRun.store_release`).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ..agents import render_skill_dir
from ..atomic import write_output
from ..config import CiConfig, NotGiven, Project, RunFlags, TrialConfig, TrialFlags, resolve_run, resolve_trial
from ..engine import Budget
from ..errors import AcesError, InputError
from ..evals import Dataset
from ..gate import GateCriterion, GateDecision, recall_criteria
from ..github import (
    BASELINE_FILE,
    MAX_STORED_BYTES,
    RERUNS_DIR,
    Annotation,
    Baselines,
    ChangeSet,
    GitHubContext,
    Plan,
    Reader,
    ResultsBranch,
    ResultsBranchError,
    SkillChange,
    Stored,
    baselines_to_dict,
    change_criteria,
    change_set,
    compare,
    latest_reruns,
    parse_baselines,
    parse_rerun,
    release_change_set,
    rerun_path,
    rerun_to_dict,
    say,
    trend_section,
)
from ..redact import command_writer, environment_secrets, redact_text
from ..report import SourceLinks, json_bytes, render_trigger_json, trial_result_to_dict, write_trial_json
from ..stats import Bands
from ..trials import Spent, TrialPart, TrialResult, skill_at_ref
from ._ci_outcome import PaidOutcome, Trialable, gated_lifts, no_lift, outage, with_dataset
from ._ci_value import ValueBudget, ValueOutcome, ValueRun, cannot_value, no_dataset
from ._merge_trial import merge_trial
from ._trial import trial, triggers

VALUE_OFF_NOTE = "SkillSV valuation of the released skills is turned off (--no-value): only the paired trials ran."
VALUE_OUTAGE_NOTE = (
    "SkillSV valuation did not run: the trials could not be measured (infrastructure), and a valuation on the "
    "same model API would pay for the same outage."
)
NOT_STORED = (
    "Nothing from this run is stored on branch {branch}: a measurement the gate needs could not be made "
    "(infrastructure). Rerun the job once the model API answers: completed rollouts come from the cache."
)


def _run_flags(config: CiConfig, seed: int | None = None) -> RunFlags:
    """ci's run flags (their rollout cache is ``--rollout-cache``/``--no-rollout-cache``: its ``--cache-dir`` is the
    scan's); ``seed`` replaces ``--seed`` (a rerun's fresh draw)."""
    return config.run if seed is None else dataclasses.replace(config.run, seed=seed)


def _unless_lost(changes: Sequence[GateCriterion], lifts: Sequence[GateCriterion]) -> list[GateCriterion]:
    """A rerun's regressions, except for a skill whose lift infrastructure made unusable (``error``): a change read
    off that lift would gate on the data the rule refused, so it is skipped, saying why."""
    lost = {criterion.subject for criterion in lifts if criterion.status == "error"}
    return [
        dataclasses.replace(
            c, status="skipped", message=f"not compared: the lift now is an infrastructure error; {c.message}"
        )
        if c.subject in lost and c.status != "skipped"
        else c
        for c in changes
    ]


def _has_version(path: Path, ref: str) -> bool:
    """Whether the skill at ``path`` existed at ``ref`` (a pull request's new skill has no base version)."""
    try:
        skill_at_ref(path, ref, render_skill_dir(path).name)
    except InputError:
        return False
    return True


def _renamed(criteria: Sequence[GateCriterion], prefix: str) -> list[GateCriterion]:
    return [dataclasses.replace(c, name=f"{prefix}{c.name}") for c in criteria]


def _write_or_warn(
    branch: ResultsBranch, files: Callable[[Reader], Mapping[str, bytes]], message: str, *, failed: str, title: str
) -> Stored | str:
    """Push ``files`` to the results branch, or warn (an annotation) and return the warning's words.

    A results branch the workflow may not push to must not fail the run: the trial already happened.
    ``failed`` begins the warning ("This rerun was", "The results of v1 were").
    """
    try:
        return branch.write(files, message)
    except ResultsBranchError as exc:
        cause = (
            f"the checkout has no `{branch.remote}` remote to push to"
            if branch.lacks_remote()
            else "the workflow needs `permissions: contents: write`"
        )
        warning = f"{failed} not stored on branch {branch.branch} ({cause}): {exc}"
        command_writer(sys.stdout)(Annotation("warning", warning, title=title).command() + "\n")
        return warning


def _valuations(outcome: PaidOutcome, tag: str) -> dict[str, bytes]:
    """The SkillSV reports this release wrote (redacted as written) as ``releases/<tag>/value/<name>``: kept for
    good beside the trial record, where the run's artifact expires. One that cannot be read, or is larger than
    a later run would read back, is left out and said; the trial record is stored all the same."""
    folder = outcome.reports.get("value")
    if folder is None:
        return {}
    out = {}
    for path in sorted(p for p in outcome.skill_reports if p.parent == folder):
        try:
            size = path.stat().st_size
            if size > MAX_STORED_BYTES:
                say(f"the SkillSV report {path} ({size:,} bytes) is too large to store on the results branch")
                continue
            out[f"releases/{tag}/value/{path.name}"] = path.read_bytes()
        except OSError as exc:
            say(f"the SkillSV report {path} is not stored on the results branch: {exc}")
    return out


class PaidRun:
    """One paid path of a ``ci`` run: the settings it measures with, and the work of its event."""

    def __init__(
        self,
        ci: CiConfig,
        context: GitHubContext,
        plan: Plan,
        project: Project,
        top: Path,
        *,
        links: SourceLinks | None = None,
        parts: Sequence[tuple[Path, TrialPart]] = (),
    ):
        self.ci, self.context, self.plan, self.top = ci, context, plan, top
        self.links = links
        """Where the scanned root lies in the repository: what the comment's tables name skills from."""
        self.parts = tuple(parts)
        """A merge job's trial parts (``--trial-parts``): the trial is replayed over them instead of run
        (:mod:`aces_ci.app._ci_shard`, which refuses the paths with more than one trial)."""
        self.project = project
        """The scanned root's project, read once by the run (its aces.yml, its root naming the skills)."""
        self.config = project.config
        self.read: dict[Path, Dataset] = {}
        """Datasets read to choose the skills (by resolved folder): the trials and valuations reuse them."""
        self._spent: list[Spent] = []
        """What the trials of this run paid so far: a second trial gets what the budget has left."""

    def _left(self, budget: Budget) -> Budget:
        usd = sum(s.usd or 0.0 for s in self._spent)
        rollouts = sum(s.rollouts_run for s in self._spent)
        return dataclasses.replace(
            budget,
            max_usd=None if budget.max_usd is None else max(budget.max_usd - usd, 0.0),
            max_rollouts=None if budget.max_rollouts is None else max(budget.max_rollouts - rollouts, 0),
        )

    def _trial_config(self, bands: Bands | None, against: str | None, seed: int | None = None) -> TrialConfig:
        """The trial's config: aces.yml's protocol (``trial:``) and judge, ci's run flags, the gate's ``bands``
        (None: aces.yml's)."""
        config = resolve_trial(self.config, TrialFlags(run=_run_flags(self.ci, seed), against=against))
        return config if bands is None else dataclasses.replace(config, gate=bands)

    def _measure(self, paths: Sequence[Path], bands: Bands, against: str | None, seed: int | None) -> TrialResult:
        """A trial on what the run's earlier trials left of its budget."""
        config = self._trial_config(bands, against, seed)
        config = dataclasses.replace(config, run=dataclasses.replace(config.run, budget=self._left(config.run.budget)))
        if self.parts:
            result = merge_trial(self.parts, paths, self.project, config)
        else:
            result = trial(paths, self.project, config, read=self.read)
        self._spent.append(result.spent)
        return result

    def shard_config(self, bands: Bands) -> TrialConfig:
        """The config of the one trial a shardable path runs (release, rerun, a pull request's with-vs-without):
        what :meth:`_measure` would give it as the run's first trial."""
        seed = self._rerun_seed() if self.plan.work == "rerun" else None
        return self._trial_config(bands, None, seed)

    def _report(self, name: str, result: TrialResult) -> Path:
        path = self.ci.reports.folder / name
        write_trial_json(result, path)
        return path

    def run(self, skill_dirs: Sequence[str], bands: Bands) -> PaidOutcome:
        """Measure what the plan asks for over ``skill_dirs`` (repository-relative), then the trigger trial."""
        outcome = self._run_trials(skill_dirs, bands)
        if self.plan.work == "value":
            return outcome
        return self._with_triggers(outcome)

    def _with_triggers(self, outcome: PaidOutcome) -> PaidOutcome:
        """``outcome`` with the trigger trial of its changed skills that hold ``evals/eval_queries.json``."""
        paths = [self.top / skill for skill in outcome.changes.skills]
        paths = [path for path in paths if (path / "evals" / "eval_queries.json").is_file()]
        if not paths or outage(outcome.criteria):
            return outcome
        base = self.plan.base if self.plan.work == "trial" else None
        if base is not None and not all(_has_version(path, base) for path in paths):
            base = None
        config = self._trial_config(None, base)
        left = self._left(config.run.budget)
        if left.max_usd == 0 or left.max_rollouts == 0:
            note = "Trigger trial not run: the trials spent the run's budget (--budget-usd / --max-rollouts)."
            return dataclasses.replace(outcome, notes=(*outcome.notes, note))
        try:
            trigger_trial = triggers(paths, self.project, config)
        except AcesError as error:
            note = f"Trigger trial not run: {redact_text(str(error), environment_secrets())}"
            return dataclasses.replace(outcome, notes=(*outcome.notes, note))
        usage = trigger_trial.usage
        self._spent.append(Spent(0, 0, usage.prompt_tokens, usage.completion_tokens, usage.cost_usd))
        path = self.ci.reports.folder / "triggers.json"
        write_output(
            path, redact_text(render_trigger_json(trigger_trial), environment_secrets()), "trigger trial's JSON"
        )
        reports = dict(outcome.reports) | {"triggers": path}
        criteria = (*outcome.criteria, *recall_criteria(trigger_trial))
        return dataclasses.replace(outcome, triggers=trigger_trial, reports=reports, criteria=criteria)

    def changes(self, skill_dirs: Sequence[str]) -> ChangeSet:
        """The skills the plan's work measures among ``skill_dirs``, and why."""
        work = self.plan.work
        if work == "release":
            changes = release_change_set(self.top, self.plan.head, skill_dirs)
        elif work in ("trial", "value") and self.plan.base is not None:
            changes = change_set(self.top, self.plan.base, self.plan.head, skill_dirs)
        else:
            changes = change_set(None, None, None, skill_dirs)
            what = "valued" if work == "value" else "trialled"
            changes = dataclasses.replace(changes, reason=f"every skill is {what}")
        return changes

    def trialled(self, changes: ChangeSet, bands: Bands) -> tuple[list[Path], list[GateCriterion]]:
        """The changed skills a trial measures, and a warning for each that has no cases."""
        trialable = self._trialable(changes.skills)
        for _, error in trialable.broken[:1]:
            raise error  # a dataset with a problem stops the run before any rollout, as it stops `aces-ci trial`
        return list(trialable.paths), list(trialable.missing(no_lift(bands)))

    def _run_trials(self, skill_dirs: Sequence[str], bands: Bands) -> PaidOutcome:
        work, changes = self.plan.work, self.changes(skill_dirs)
        if work == "value":
            return self._value_only(changes)
        paths, missing = self.trialled(changes, bands)
        if not paths and self.parts:
            raise InputError(
                f"this checkout has no skill to trial ({changes.reason}), so these parts are not of its trial: merge "
                "in the checkout the shards ran in",
                path=str(self.parts[0][0]),
            )
        if not paths:
            note = f"No skill to trial ({changes.reason}; {len(missing)} changed skill(s) without an eval dataset)."
            return PaidOutcome(changes, tuple(missing), None, notes=(note,))
        if work == "rerun":
            return self._rerun(changes, paths, missing, bands)
        if work == "trial" and self.plan.base is not None:
            return self._pull_request(changes, paths, missing, bands, self.plan.base)
        result = self._measure(paths, bands, None, None)
        outcome = PaidOutcome(
            changes,
            (*missing, *gated_lifts(result)),
            result,
            reports={"trial": self._report("trial.json", result)},
        )
        if work != "release":
            return outcome
        if not self.ci.value:
            return dataclasses.replace(outcome, notes=(*outcome.notes, VALUE_OFF_NOTE))
        if outage(outcome.criteria):
            return dataclasses.replace(outcome, notes=(*outcome.notes, VALUE_OUTAGE_NOTE))
        return outcome.valued(self._value(paths))

    def _value(self, paths: Sequence[Path]) -> ValueOutcome:
        """SkillSV of ``paths`` on its share: what the trials left of the run's budget, at most
        ``--value-budget-usd``; the trials' rollout cache."""
        options = resolve_run(self.config, _run_flags(self.ci))
        cache = options.cache_dir
        runner = ValueRun(self.ci, self.project, self.top, cache.resolve() if cache else None, self.read)
        budget = ValueBudget.share(self._left(options.budget), self.ci.value_budget_usd)
        if budget.spent:
            say(f"SkillSV: the trials spent the run's budget; nothing is left for a valuation ({budget.describe()})")
        return runner.run(paths, budget)

    def _trialable(self, skills: Sequence[str]) -> Trialable:
        """:func:`~aces_ci.app._ci_outcome.with_dataset`; the trials of this run reuse what it read."""
        trialable = with_dataset(skills, self.top, self.project)
        self.read.update(trialable.datasets)
        return trialable

    def _value_only(self, changes: ChangeSet) -> PaidOutcome:
        trialable = self._trialable(changes.skills)
        missing = (*trialable.missing(no_dataset), *(cannot_value(skill, error) for skill, error in trialable.broken))
        if not trialable.paths:
            note = f"No skill to value ({changes.reason}; {len(missing)} skill(s) without an eval dataset)."
            return PaidOutcome(changes, missing, None, notes=(note,))
        return PaidOutcome(changes, missing, None).valued(self._value(trialable.paths))

    def _pull_request(
        self, changes: ChangeSet, paths: list[Path], missing: list[GateCriterion], bands: Bands, base: str
    ) -> PaidOutcome:
        versioned, notes = [], []
        for path in paths:
            if not _has_version(path, base):
                notes.append(
                    f"{path.relative_to(self.top).as_posix()} is new in this pull request: it has no base version "
                    "to compare with, so only with-vs-without was measured"
                )
                continue
            versioned.append(path)
        presence = self._measure(paths, bands, None, None)
        criteria = [*missing, *gated_lifts(presence)]
        reports: dict[str, Path | None] = {"trial-without": self._report("trial-without.json", presence)}
        if outage(criteria):
            notes.append(
                "This version was not compared with the base branch's: with-vs-without could not be measured "
                "(infrastructure), and a second trial on the same model API would pay for the same outage."
            )
            versioned = []
        if not versioned:
            return PaidOutcome(changes, tuple(criteria), presence, notes=tuple(notes), reports=reports)
        version = self._measure(versioned, bands, base, None)
        criteria += _renamed(gated_lifts(version), "version-")
        reports["trial"] = self._report("trial.json", version)
        return PaidOutcome(
            changes,
            tuple(criteria),
            version,
            trials_title="This version vs the base branch's",
            more_trials=(("With vs without the skill", presence),),
            notes=tuple(notes),
            reports=reports,
        )

    def _rerun_seed(self) -> int | None:
        """A flag's seed, else the run id: a rerun must draw independently of the release it is compared with."""
        if not isinstance(self.ci.run.seed, NotGiven):
            return self.ci.run.seed
        run_id = self.context.run_id
        return int(run_id) % 2**31 if run_id is not None and run_id.isdigit() else None

    def _rerun(self, changes: ChangeSet, paths: list[Path], missing: list[GateCriterion], bands: Bands) -> PaidOutcome:
        result = self._measure(paths, bands, None, self._rerun_seed())
        criteria = [*missing, *gated_lifts(result)]
        notes: list[str] = []
        history: list[SkillChange] = []
        baselines = self._read_baselines(notes)
        if baselines is not None:
            edited = self._edited_since(baselines, notes)
            history = compare(result, baselines.skills, self.config.gate.alpha, edited)
            criteria += _unless_lost(change_criteria(history, result.confidence), criteria)
        trend = self._trend(result, notes)
        stored = self._not_stored() if outage(criteria) else self._store_rerun(result, history)
        return PaidOutcome(
            changes,
            tuple(criteria),
            result,
            history=tuple(history),
            trend=trend,
            notes=(*notes, stored) if stored else tuple(notes),
            reports={"trial": self._report("trial.json", result)},
        )

    def _trend(self, result: TrialResult, notes: list[str]) -> str:
        """The last stored reruns beside this one; a record that cannot be read is named, not fatal."""
        branch = self._branch()
        if branch is None:
            return ""
        try:
            raw = branch.read_folder(RERUNS_DIR, latest_reruns)
        except ResultsBranchError as exc:
            notes.append(f"The earlier reruns could not be read from branch {branch.branch}: {exc}")
            return ""
        records = []
        for path, content in raw.items():
            try:
                records.append(parse_rerun(content, f"{branch.branch}:{path}"))
            except InputError as exc:
                notes.append(f"An earlier rerun is left out of the trend: {exc}")
        shown = self.links.scanned if self.links is not None else str
        return trend_section(records, result, self.context.run_id, [s.skill for s in result.skills], shown)

    def _not_stored(self) -> str:
        """The note of a run with an unmade measurement: nothing of it goes to the results branch."""
        branch = self._branch()
        return NOT_STORED.format(branch=branch.branch) if branch is not None else ""

    def _store_rerun(self, result: TrialResult, history: Sequence[SkillChange]) -> str:
        """Keep this rerun on the results branch, so the reruns' history accumulates."""
        branch = self._branch()
        if branch is None:
            return ""
        run_id = self.context.run_id
        path = rerun_path(result.generated_at, run_id)
        record = rerun_to_dict(result, history, run_id, self.context.sha)
        content = redact_text(json.dumps(record, indent=2, sort_keys=True) + "\n", environment_secrets()).encode()
        stored = _write_or_warn(
            branch,
            lambda _read: {path: content},
            f"aces-ci: rerun {run_id or result.generated_at}",
            failed="This rerun was",
            title="aces-ci: rerun not stored",
        )
        if isinstance(stored, str):
            return stored
        return f"This rerun is stored on branch {stored.branch} as {path} ({stored.commit[:12]})."

    def _edited_since(self, baselines: Baselines, notes: list[str]) -> set[str]:
        """The skills whose files changed since their release's commit (a note for each that cannot be told)."""
        edited = set()
        for name, base in baselines.skills.items():
            since = change_set(self.top, base.commit, self.context.sha or "HEAD", [name])
            if not since.known:
                notes.append(f"Whether {name} changed since {base.release} cannot be told: {since.reason}.")
            elif since.skills:
                edited.add(name)
        return edited

    def _branch(self) -> ResultsBranch | None:
        name = self.ci.results_branch
        return ResultsBranch(self.top, name) if name else None

    def _read_baselines(self, notes: list[str]) -> Baselines | None:
        branch = self._branch()
        if branch is None:
            notes.append("No results branch (--results-branch ''): the rerun is not compared with a release.")
            return None
        try:
            raw = branch.read(BASELINE_FILE)
        except ResultsBranchError as exc:
            notes.append(f"The release baselines could not be read from branch {branch.branch}: {exc}")
            return None
        if raw is None:
            notes.append(
                f"No release baseline on branch {branch.branch} yet (a release that passes the gate stores one): "
                "this rerun reports the lift now only."
            )
            return None
        return parse_baselines(raw, f"{branch.branch}:{BASELINE_FILE}")

    def store_release(self, outcome: PaidOutcome, decision: GateDecision) -> str:
        """Keep the release's trial on the results branch; its lifts become the baselines unless the gate failed.

        A release with an unmade measurement (``error``) stores nothing: a baseline from an outage would
        be compared with every later rerun."""
        result, branch, tag = outcome.trials, self._branch(), self.plan.head
        if result is None or branch is None or tag is None:
            return ""
        if not decision.measured:  # an outage: no baseline, no release record (a rerun of the job stores them)
            return self._not_stored()
        record = redact_text(json_bytes(trial_result_to_dict(result)).decode(), environment_secrets()).encode()
        valuations = _valuations(outcome, tag)
        passed = decision.verdict != "fail"
        commit = self.context.sha

        def files(read: Reader) -> dict[str, bytes]:
            out = {f"releases/{tag}.json": record, **valuations}
            if passed:
                current = read(BASELINE_FILE)
                previous = parse_baselines(current, BASELINE_FILE) if current else Baselines()
                updated = previous.updated(result, tag, commit)
                out[BASELINE_FILE] = (json.dumps(baselines_to_dict(updated), indent=2, sort_keys=True) + "\n").encode()
            return out

        stored = _write_or_warn(
            branch,
            files,
            f"aces-ci: results of release {tag}",
            failed=f"The results of {tag} were",
            title="aces-ci: baseline not stored",
        )
        if isinstance(stored, str):
            return stored
        what = "and are the new baselines" if passed else "but are not the baselines: the release failed the gate"
        count = len(valuations)
        kept = f" (its trials and {count} SkillSV valuation{'s' if count > 1 else ''})" if count else ""
        return f"The results of {tag}{kept} are stored on branch {stored.branch} ({stored.commit[:12]}) {what}."
