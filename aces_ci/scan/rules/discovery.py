"""DISC: will the agent find the skill? The host's listing budget and siblings that claim the same requests.

These are repository rules (:mod:`aces_ci.scan._repo_rules`): each runs once over every skill of the
scan, because a skill's place in the host's listing, and its collisions, depend on its siblings.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...evals import load_trigger_queries
from .._context import ScanContext
from .._finding import Hit, Location, Severity
from .._listing import HOST_PROFILES, HostListing, ListedEntry, build_listing
from .._registry import Rule, define
from .._repo_rules import RepoContext, RepoHit, define_repository
from .._siblings import collisions

RULES: list[Rule] = []
_LOST_SHOWN = 160
"""Characters of the lost words a finding quotes; the rest is counted, not shown."""


def _listings(ctx: RepoContext) -> tuple[HostListing, ...]:
    """The listing of every host that has a budget or a cap, built once for DISC001 and DISC002."""
    limited = [profile for profile in HOST_PROFILES if profile.budget is not None or profile.per_description_chars]
    return ctx.cached(_listings, lambda: tuple(build_listing(profile, ctx.skills) for profile in limited))


def _quoted(words: str) -> str:
    if len(words) <= _LOST_SHOWN:
        return f'"{words}"'
    return f'"{words[:_LOST_SHOWN].rsplit(" ", 1)[0]} …" ({len(words):,} characters in all)'


def _at(entry: ListedEntry) -> Location:
    return Location(entry.skill.skill_md, entry.skill.description_line)


def _clause(listing: HostListing) -> str:
    profile = listing.profile
    kind = "measured from source" if profile.measured else "stated"
    return f"{profile.name} listing ({kind}): {profile.source}"


@define_repository(
    RULES,
    id="DISC001",
    name="listing-description-cut",
    severity=Severity.WARNING,
    summary="A host would cut this skill's description in its skill listing, so the model never sees its last words.",
    fix="Put the trigger words first and shorten the description (and when_to_use) so it fits; "
    "or shorten long sibling descriptions, which share the listing's budget.",
)
def listing_description_cut(ctx: RepoContext) -> Iterator[RepoHit]:
    """The model chooses a skill from the host's listing of names and descriptions, within a budget.
    A description cut short loses its last words — often the "Use when …" clause that says when to
    load the skill — so requests phrased in those words no longer find it.

    The listing is rebuilt for each host from this repository's skills alone (an install with other
    skills has less room):

    - **Claude Code** (stated in anthropics/claude-code#68135 and its skills documentation, not
      measured): the listing gets 1% of the context at 4 characters per token, 8,000 characters at
      the 200,000-token context it assumes when the window is unknown; each entry's text
      (description + `when_to_use`) is cut at 1,536 characters.
    - **Codex** (measured from `codex-rs/core-skills/src/render.rs`, commit 0899b7c; openai/codex#18925):
      2% of the context window in tokens of 4 bytes, 5,440 tokens at a 272,000-token context; each
      entry is `- name: description (file: path)`, the path taken here as
      `/home/user/.agents/skills/<skill>/SKILL.md`. Over budget, descriptions grow one character
      per skill per round until the budget is spent, so every long description is cut to the
      same length.
    - **OpenCode** states no budget or cut: it is never the reason for this finding.

    The finding names the host, how many characters are kept, and the words lost.

    Fails: a 1,700-character description (cut at 1,536 by Claude Code); twenty skills with
    1,000-character descriptions (Codex shortens each).
    Passes: descriptions that fit, with the trigger clause first.
    """
    for listing in _listings(ctx):
        for entry in listing.entries:
            if not entry.cut or entry.dropped:
                continue
            lost = entry.lost_words()
            message = (
                f"{listing.profile.budget_text()}: it would show {len(entry.shown):,} of this description's "
                f"{len(entry.full):,} characters; lost: {_quoted(lost)}"
            )
            yield RepoHit(entry.skill.rel_dir, Hit(message, _at(entry), clause=_clause(listing)))


@define_repository(
    RULES,
    id="DISC002",
    name="listing-description-dropped",
    severity=Severity.WARNING,
    summary="The repository's skills overflow a host's listing budget: this skill would be listed without its "
    "description, or not at all.",
    fix="Shorten the repository's descriptions until their total fits the host's budget (the finding gives both), "
    "or split rarely used skills into a separate install.",
)
def listing_description_dropped(ctx: RepoContext) -> Iterator[RepoHit]:
    """When the descriptions together overflow the budget, a host stops describing some skills:

    - **Claude Code** keeps every name but grants full descriptions in order of how often the user
      invoked each skill, and lists the rest as bare names. A repository has no usage history, so
      its own order (by directory) stands in: the skills past the budget in that order are
      reported; which ones a user loses depends on their history, but that some are lost does not.
    - **Codex**, when even the names and paths overflow, removes every description and then omits
      the skills that do not fit from the listing.

    A skill listed without a description is found only when the user names it: a trigger eval on it
    measures a recall near 0. Budgets and sources are those of DISC001.

    Fails: 30 skills whose descriptions total 12,000 characters (over Claude Code's 8,000).
    Passes: the same skills with descriptions of 200 characters.
    """
    for listing in _listings(ctx):
        for entry in listing.entries:
            if not entry.dropped:
                continue
            profile = listing.profile
            fate = "omit this skill from its listing" if entry.omitted else "list this skill by name only"
            message = (
                f"{profile.budget_text()}, and the repository's listing costs {listing.cost:,}: it would {fate}; "
                f"lost: {_quoted(entry.full)}"
            )
            yield RepoHit(entry.skill.rel_dir, Hit(message, _at(entry), clause=_clause(listing)))


@define_repository(
    RULES,
    id="DISC003",
    name="sibling-trigger-overlap",
    severity=Severity.WARNING,
    summary="Two skills' descriptions claim the same requests, so which one the agent loads is left to chance.",
    fix="Make each description say what sets it apart (the inputs, the outcome, when NOT to use it), "
    "or merge the two skills.",
)
def sibling_trigger_overlap(ctx: RepoContext) -> Iterator[RepoHit]:
    """The agent picks one skill per request from the listing; two descriptions that claim the same
    requests split the triggers between them, and a trigger eval of either shows the other taking
    its queries. Compared are the *claim terms* of each description: the content words of its
    trigger clauses ("Use when …", "whenever …", "Trigger when the user asks …"; the whole
    description when it has none), stemmed, without function words, the words every skill
    description uses ("skill", "user", "file", "create"), or the repository's own vocabulary (a
    term in more than a quarter of its skills, and in more than 3). A pair is reported when it
    shares at least 4 claim terms covering at least half of the smaller claim: one finding per
    pair, on the first skill's description line, naming the second skill's file and line.

    The thresholds were measured on real multi-skill repositories before being chosen:
    anthropics/skills (18 skills, 153 pairs) and openai/skills (10 skills, 45 pairs) report no
    pair (the closest, docx/pdf, shares two terms); dotnet/skills (35 skills, 595 pairs) reports
    3, the `migrate-dotnetN-to-dotnetM` skills, templated descriptions told apart only by their
    version numbers; MetaMask/skills (51 skills, 1,275 pairs) reports 25: 21 among deprecated
    stubs with the same redirect text, and 4 among skills sharing most of their trigger words
    (`visual-testing` and `mobile-visual-testing`, for one).

    Fails: "Use when the user wants to convert a CSV file to a chart or plot spreadsheet columns"
    beside "Use when asked to plot CSV columns as a chart or convert spreadsheet data to a graph".
    Passes: the same pair, one of them saying "Use for Excel workbooks (.xlsx) with formulas, not CSV".
    """
    texts = [f"{skill.description} {skill.when_to_use}".strip() for skill in ctx.skills]
    for found in collisions(texts):
        first, second = ctx.skills[found.first], ctx.skills[found.second]
        message = (
            f"the description claims the same requests as {second.skill_md}:{second.description_line} "
            f"({second.name}): {len(found.shared)} shared trigger terms, {found.overlap:.0%} of the smaller claim "
            f"({', '.join(found.shared[:8])}{', …' if len(found.shared) > 8 else ''})"
        )
        location = Location(first.skill_md, first.description_line)
        yield RepoHit(first.rel_dir, Hit(message, location, clause="trigger overlap between sibling skills"))


@define(
    RULES,
    id="DISC004",
    name="trigger-queries-invalid",
    severity=Severity.ERROR,
    summary="evals/eval_queries.json, the skill's trigger-eval dataset, is not a valid list of queries.",
    fix='Make the file a JSON array of {"query": "...", "should_trigger": true|false} objects, as the finding '
    "names by line and JSON pointer.",
)
def trigger_queries_invalid(ctx: ScanContext) -> Iterator[Hit]:
    """The agentskills.io guide "Optimizing skill descriptions" keeps trigger evals in
    `evals/eval_queries.json`: a JSON array of objects, each with a non-empty `query` and a boolean
    `should_trigger` (true: the skill should load for it; false: a near-miss it must ignore). A
    malformed file measures nothing, or the wrong thing: one finding per problem, at its line, with
    the JSON pointer of the value and, for an unknown key, the key it resembles.

    Fails: `[{"query": "plot my CSV", "should_triger": true}]` (did you mean 'should_trigger'?)
    Passes: `[{"query": "plot my CSV", "should_trigger": true}]`
    """
    found = load_trigger_queries(ctx.skill.dir, ctx.skill.repo_root)
    if found is None:
        return
    for problem in found.problems:
        yield Hit(problem.message, Location(found.rel, problem.line), clause="agentskills.io: optimizing descriptions")
