"""``aces-ci compress``'s reports: the terminal text and the Markdown section for a PR comment or the HTML report.

Both say first what is proposed (the accepted candidate, or that none was, and why), then per
candidate: tokens kept, Δ on the held-out cases with its interval, n and runs, the verdict and
its reason, and the units it removed or rewrote with their file and lines (linked to the commit
when links are given). Unit text, paths and reasons come from the skill and from a model: every
one goes through :mod:`._md_escape` in Markdown.
"""

from __future__ import annotations

import re
from typing import TextIO

from ..compress import Candidate, CompressResult, UnitChange, changed_units
from ..safe_text import inline, printable
from ._links import SourceLinks
from ._md_escape import cell, code_span

COMPRESS_MARKER = "<!-- aces-ci:compress -->"
_CELL = 160
_BACKTICKS = re.compile(r"`+")


def _kept(candidate: Candidate, result: CompressResult) -> str:
    if not result.original_tokens or not candidate.files:
        return "—"
    return f"{candidate.tokens / result.original_tokens:.0%} ({candidate.tokens:,} of {result.original_tokens:,})"


def _delta(candidate: Candidate) -> str:
    found = candidate.contrast
    if found is None or found.delta is None:
        return "not measured"
    interval = f" [{found.ci[0]:+.3f}, {found.ci[1]:+.3f}]" if found.ci is not None else ""
    return f"{found.delta:+.3f}{interval} (n={found.n_cases} held-out cases × {found.runs} run(s), paired)"


def _headline(result: CompressResult) -> str:
    proposal = result.proposal
    if proposal is not None:
        return f"proposed: the {proposal.kind} skill, {_kept(proposal, result)} tokens kept, Δ {_delta(proposal)}"
    if not result.candidates:
        return "nothing to propose: " + (result.notes[0] if result.notes else "no candidate was built")
    return "nothing accepted: " + "; ".join(f"{c.kind} {c.judgement.verdict}" for c in result.candidates)


def render_compress_text(result: CompressResult, out: TextIO) -> None:
    """The result for a terminal: the proposal, each candidate, what the run paid."""
    out.write(f"compress {inline(result.skill)} ({inline(result.skill_dir)}): {inline(_headline(result))}\n")
    out.write(
        f"  cases: {len(result.attribution)} attribution, {len(result.held_out)} held out; "
        f"tolerance {result.tolerance:+.3f}; {result.decision_line}\n"
    )
    for candidate in result.candidates:
        out.write(f"\n{candidate.kind}: {candidate.judgement.verdict} — {candidate.judgement.reason}\n")
        out.write(f"  tokens kept: {_kept(candidate, result)}\n  Δ (candidate − original): {_delta(candidate)}\n")
        for change in candidate.changes:
            pulled = f", required {change.because_of}" if change.because_of else ""
            out.write(
                f"  {change.change} {change.unit} {inline(change.file)}:{change.lines[0]}-{change.lines[1]} "
                f"({change.decision or 'unvalued'}{pulled})\n"
            )
        for reason in candidate.rejected_answers:
            out.write(f"  editor answer refused: {inline(reason)}\n")
    for note in result.notes:
        out.write(f"\nnote: {inline(note)}\n")
    if result.stopped_by:
        out.write(f"\nstopped by {result.stopped_by}: candidates not yet scored are reported unverified\n")
    cost = result.cost
    out.write(
        f"\npaid this run: {cost.rollouts} rollout(s), ${cost.cost_usd:.4f}; editor: {cost.editor_calls} call(s), "
        f"${cost.editor_cost_usd:.4f}\n"
    )


def _where(change: UnitChange, links: SourceLinks | None) -> str:
    label = f"{change.file}:{change.lines[0]}"
    if links is None:
        return code_span(label, _CELL)
    return f"[{cell(label, _CELL)}]({links.url(change.file, change.lines[0], change.lines[1])})"


def _changes_table(candidate: Candidate, links: SourceLinks | None) -> list[str]:
    rows = [*changed_units(candidate, "removed"), *changed_units(candidate, "rewritten")]
    if not rows:
        return []
    lines = ["| unit | where | change | SkillSV decision |", "|---|---|---|---|"]
    for change in rows:
        decision = change.decision or "unvalued"
        if change.because_of:
            decision += f" (requires removed {change.because_of})"
        lines.append(
            f"| {cell(change.unit, 20)} | {_where(change, links)} | {change.change} | {cell(decision, _CELL)} |"
        )
    return lines


def render_compress_markdown(
    result: CompressResult, links: SourceLinks | None = None, adopt: str = "the patch `aces-ci compress --patch` wrote"
) -> str:
    """The Markdown section: headline, one table of candidates, then each candidate's unit changes.

    ``links`` (the repository at the commit, its prefix the skill's repository root) turns each unit's
    file:line into a link; without it they are code spans. ``adopt`` (Markdown) says where the patch is.
    """
    lines = [COMPRESS_MARKER, f"### Compression of {cell(result.skill, 80)}", "", f"**{cell(_headline(result), 400)}**"]
    lines += [
        "",
        f"{len(result.attribution)} attribution cases valued, {len(result.held_out)} held-out cases verified "
        f"(seeded, disjoint); accepted only when the interval's lower bound is above {result.tolerance:+.2f}. "
        f"SkillSV: {cell(result.decision_line, 300)}.",
        "",
        "| candidate | verdict | tokens kept | Δ vs original [95% CI] | why |",
        "|---|---|---|---|---|",
    ]
    for candidate in result.candidates:
        lines.append(
            f"| {candidate.kind} | {candidate.judgement.verdict} | {_kept(candidate, result)} | "
            f"{_delta(candidate)} | {cell(candidate.judgement.reason, 300)} |"
        )
    for candidate in result.candidates:
        table = _changes_table(candidate, links)
        refused = [f"- editor answer refused: {cell(reason, 300)}" for reason in candidate.rejected_answers]
        if table or refused:
            lines += ["", f"**{candidate.kind}**", "", *table, *([""] if table and refused else []), *refused]
    if result.stopped_by:
        lines += ["", f"Stopped by {cell(result.stopped_by, 40)}: a candidate not yet scored is reported unverified."]
    if result.proposal is not None:
        lines += ["", f"_Nothing is committed: apply {adopt} to adopt the proposal._"]
    return "\n".join(lines) + "\n"


PATCH_CHARS = 6000
"""How much of a proposal's diff the PR comment shows; the whole patch is in the reports folder."""


def _folded_patch(diff: str, name: str, limit: int) -> list[str]:
    """The patch in a collapsed block: whole lines up to ``limit`` characters, fenced longer than any backtick run."""
    text = printable(diff)
    shown = text
    if len(text) > limit:
        cut = text.rfind("\n", 0, limit)
        shown = text[: cut + 1 if cut > 0 else limit]
    longest = max((len(run) for run in _BACKTICKS.findall(shown)), default=0)
    fence = "`" * max(3, longest + 1)
    lines = ["", f"<details>\n<summary>The patch ({len(text.splitlines())} lines)</summary>", "", f"{fence}diff"]
    lines += [shown.rstrip("\n"), fence]
    if shown != text:
        rest = len(text.splitlines()) - len(shown.splitlines())
        lines += ["", f"_{rest} more lines: the whole patch is {code_span(name, 200)} in the reports._"]
    return [*lines, "", "</details>"]


def render_compress_comment(
    result: CompressResult, links: SourceLinks | None, patch_name: str, *, patch_chars: int = PATCH_CHARS
) -> str:
    """The PR comment's section: :func:`render_compress_markdown` with the proposal's diff in a collapsed block,
    at most ``patch_chars`` of it (``patch_name`` says where the whole patch was written)."""
    adopt = f"{code_span(patch_name, 200)} from the run's reports (its artifacts)"
    section = render_compress_markdown(result, links, adopt).rstrip("\n")
    proposal = result.proposal
    if proposal is None or not proposal.diff:
        return section + "\n\n"
    return "\n".join([section, *_folded_patch(proposal.diff, patch_name, patch_chars)]) + "\n\n"
