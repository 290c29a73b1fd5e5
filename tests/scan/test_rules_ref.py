"""REF rules: links, mentions and script commands resolve inside the skill, one level deep."""

from __future__ import annotations

import os

import pytest

from aces_ci.scan import Severity
from aces_ci.scan.rules.ref import RULES, local_path, script_invocations
from aces_ci.skill import load_skill
from tests.scan.helpers import front, lines_of, make_skill, run_rule

HEADER = front(name="demo", description="Fill PDF forms. Use when the user uploads a PDF form.")
# The frontmatter takes lines 1-4: the body starts on line 5.
SKILL_MD = "skills/demo/SKILL.md"


def hits(tmp_path, rule_id, body, files=None):
    skill = make_skill(tmp_path, HEADER + body, files=files)
    return run_rule(RULES, rule_id, skill)


def test_rule_ids_are_sequential_and_documented():
    assert [rule.id for rule in RULES] == [f"REF{i:03d}" for i in range(1, len(RULES) + 1)]
    for rule in RULES:
        assert "PASS" in rule.doc and "FAIL" in rule.doc, rule.id


def test_a_well_referenced_skill_has_no_findings(tmp_path):
    body = (
        "# Forms\n\nRead [the API notes](references/api.md#auth) and ![logo](assets/logo.png).\n"
        "See https://example.com/docs.md, [mail](mailto:a@b.c) and [top](#forms).\n\n"
        "```bash\npython3 scripts/fill.py form.pdf\n```\n"
    )
    files = {
        "references/api.md": "# API\n\nRun `scripts/fill.py` when needed.\n",
        "assets/logo.png": b"\x89PNG\x00\x00",
        "scripts/fill.py": "print('ok')\n",
    }
    skill = make_skill(tmp_path, HEADER + body, files=files)
    assert [hit for rule in RULES for hit in run_rule(RULES, rule.id, skill)] == []


# local_path


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("references/a.md#part", "references/a.md"),
        ("my%20notes.md?raw=1", "my notes.md"),
        ("<references/a b.md>", "references/a b.md"),
        ("https://example.com/a.md", None),
        ("mailto:someone@example.com", None),
        ("#section", None),
        ("//cdn.example.com/x.js", None),
        ("C:\\notes\\a.md", "C:\\notes\\a.md"),
        ("", None),
    ],
)
def test_local_path_keeps_files_and_drops_urls_and_anchors(target, expected):
    assert local_path(target) == expected


# REF001 broken-link


def test_missing_link_target_is_an_error_at_its_line(tmp_path):
    found = hits(tmp_path, "REF001", "# T\n\nintro\nSee [api](references/api.md).\n", {"references/x.md": "x"})
    assert [h.message for h in found] == ["link target 'references/api.md' does not exist in the skill"]
    assert lines_of(found) == [8]
    assert found[0].location.path == SKILL_MD
    assert found[0].evidence == "See [api](references/api.md)."


def test_link_differing_only_in_case_names_the_real_file(tmp_path):
    found = hits(tmp_path, "REF001", "[api](references/API.md)\n", {"references/api.md": "x"})
    assert found[0].message == (
        "link target 'references/API.md' does not exist in the skill "
        "('references/api.md' exists: file names are case-sensitive on Linux)"
    )


def test_missing_image_is_reported_as_image(tmp_path):
    found = hits(tmp_path, "REF001", "![diagram](assets/flow.svg)\n")
    assert [h.message for h in found] == ["image 'assets/flow.svg' does not exist in the skill"]
    assert lines_of(found) == [5]


def test_absurdly_long_target_is_shortened_in_the_message(tmp_path):
    found = hits(tmp_path, "REF001", "[x](" + "a/" * 3000 + "b.md)\n")
    assert len(found) == 1
    assert len(found[0].message) < 200 and "…" in found[0].message


def test_links_to_existing_files_and_folders_pass(tmp_path):
    body = "[a](references/a.md) [folder](references/) [self](SKILL.md#top)\n"
    assert hits(tmp_path, "REF001", body, {"references/a.md": "x"}) == []


# REF002 broken-file-mention


def test_mention_under_a_skill_folder_that_is_missing_is_a_warning(tmp_path):
    found = hits(tmp_path, "REF002", "# T\n\nFill in `references/forms.md` first.\n", {"references/api.md": "x"})
    assert [h.message for h in found] == ["'references/forms.md' is mentioned but does not exist in the skill"]
    assert lines_of(found) == [7]
    rule = next(r for r in RULES if r.id == "REF002")
    assert rule.severity is Severity.WARNING


def test_examples_under_a_folder_the_skill_lacks_are_not_checked(tmp_path):
    body = "Bundle brand files, e.g. `assets/logo.png` or `references/finance.md`.\n"
    assert hits(tmp_path, "REF002", body, {"scripts/x.py": "pass\n"}) == []


def test_mentions_of_the_users_files_are_not_checked(tmp_path):
    body = "Write the result to `output/report.md` and edit `src/app.py` or `config.json`.\n"
    assert hits(tmp_path, "REF002", body) == []


def test_mention_under_a_folder_the_skill_has_is_checked(tmp_path):
    found = hits(tmp_path, "REF002", "See `docs/missing.md`.\n", {"docs/present.md": "x"})
    assert lines_of(found) == [5]


def test_script_commands_are_left_to_ref005(tmp_path):
    assert hits(tmp_path, "REF002", "```bash\npython scripts/missing.py\n```\n") == []


# REF003 path-outside-skill


def test_parent_directory_link_is_reported(tmp_path):
    found = hits(tmp_path, "REF003", "# T\n\n[style](../shared/style.md)\n")
    assert [h.message for h in found] == [
        "'../shared/style.md' leaves the skill directory: it breaks when the skill is installed on its own"
    ]
    assert lines_of(found) == [7]


def test_absolute_link_is_reported(tmp_path):
    found = hits(tmp_path, "REF003", "[notes](/home/me/notes.md)\n")
    assert [h.message for h in found] == [
        "'/home/me/notes.md' is an absolute path: it breaks when the skill is installed on its own"
    ]


def test_parent_path_that_comes_back_inside_passes(tmp_path):
    assert hits(tmp_path, "REF003", "[a](references/../references/a.md)\n", {"references/a.md": "x"}) == []


# REF004 symlink-escape


def test_symlink_out_of_the_repository_is_an_error(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("secret stuff")
    repo = tmp_path / "repo"
    skill_dir = repo / "skills" / "demo"
    (skill_dir / "references").mkdir(parents=True)
    os.symlink(outside, skill_dir / "references" / "notes.md")
    skill = make_skill(repo, HEADER + "body\n")
    found = run_rule(RULES, "REF004", skill)
    assert len(found) == 1
    assert found[0].message.startswith("symlink points outside the repository (to '")
    assert found[0].location.path == "skills/demo/references/notes.md"
    assert found[0].severity is None


def test_symlink_to_a_sibling_folder_in_the_repository_is_a_warning(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "style.md").write_text("# style")
    skill_dir = tmp_path / "skills" / "demo"
    skill_dir.mkdir(parents=True)
    os.symlink("../../shared/style.md", skill_dir / "style.md")
    found = run_rule(RULES, "REF004", make_skill(tmp_path, HEADER + "body\n"))
    assert [h.message for h in found] == [
        "symlink points outside the skill directory (to '../../shared/style.md'): "
        "it dangles when the skill is installed on its own"
    ]
    assert found[0].severity is Severity.WARNING


def test_symlink_loop_is_reported_and_does_not_hang(tmp_path):
    skill_dir = tmp_path / "skills" / "demo"
    skill_dir.mkdir(parents=True)
    os.symlink("b", skill_dir / "a")
    os.symlink("a", skill_dir / "b")
    found = run_rule(RULES, "REF004", make_skill(tmp_path, HEADER + "body\n"))
    assert sorted(h.location.path for h in found) == ["skills/demo/a", "skills/demo/b"]
    assert all("loops" in h.message for h in found)


def test_skill_md_itself_linked_from_outside_the_repository_is_an_error(tmp_path):
    outside = tmp_path / "elsewhere.md"
    outside.write_text(HEADER + "body\n")
    skill_dir = tmp_path / "repo" / "skills" / "demo"
    skill_dir.mkdir(parents=True)
    os.symlink(outside, skill_dir / "SKILL.md")
    found = run_rule(RULES, "REF004", load_skill(skill_dir, tmp_path / "repo"))
    assert [h.location.path for h in found] == [SKILL_MD]
    assert found[0].message.startswith("symlink points outside the repository")


def test_symlink_inside_the_skill_passes(tmp_path):
    skill_dir = tmp_path / "skills" / "demo" / "references"
    skill_dir.mkdir(parents=True)
    (skill_dir / "real.md").write_text("x")
    os.symlink("real.md", skill_dir / "alias.md")
    assert run_rule(RULES, "REF004", make_skill(tmp_path, HEADER + "body\n")) == []


# REF005 missing-script


def test_missing_script_in_a_code_block_is_an_error_at_its_line(tmp_path):
    body = "# Run\n\n```bash\ncd work\npython3 -u scripts/fill.py form.pdf\n```\n"
    found = hits(tmp_path, "REF005", body, {"scripts/other.py": "pass\n"})
    assert [h.message for h in found] == ["SKILL.md runs 'scripts/fill.py', which the skill does not have"]
    assert lines_of(found) == [9]
    assert found[0].evidence == "python3 -u scripts/fill.py form.pdf"


def test_script_behind_the_skill_dir_variable_is_checked(tmp_path):
    body = 'Run `bash "${CLAUDE_SKILL_DIR}/scripts/setup.sh"` once.\n'
    found = hits(tmp_path, "REF005", body)
    assert [h.message for h in found] == ["SKILL.md runs 'scripts/setup.sh', which the skill does not have"]


def test_direct_run_and_uv_run_with_options_are_checked(tmp_path):
    body = "```\n./scripts/go.sh --fast\nuv run --with pandas scripts/stats.py\n```\n"
    found = hits(tmp_path, "REF005", body)
    assert [(h.location.line, h.message.split("'")[1]) for h in found] == [
        (6, "scripts/go.sh"),
        (7, "scripts/stats.py"),
    ]


def test_commands_naming_the_users_files_are_not_checked(tmp_path):
    body = "```\npython main.py\npython -m pytest\nbash /opt/tool/run.sh\nnode $HOME/bin/x.js\n```\n"
    assert hits(tmp_path, "REF005", body) == []


def test_present_script_passes(tmp_path):
    assert hits(tmp_path, "REF005", "Run `python scripts/fill.py`.\n", {"scripts/fill.py": "pass\n"}) == []


def test_links_to_documents_are_not_commands(tmp_path):
    body = "- [Guide](./references/guide.md) and `./references/notes.md`\n"
    assert hits(tmp_path, "REF005", body, {"references/other.md": "x"}) == []


def test_script_invocations_tell_direct_runs_from_interpreted_ones(tmp_path):
    body = "```\nbash scripts/a.sh\n./scripts/b.sh\n$ scripts/c.sh\n```\n"
    skill = make_skill(tmp_path, HEADER + body, files={"scripts/c.sh": "x"})
    runs = [(run.path, run.line, run.direct) for run in script_invocations(skill)]
    assert runs == [("scripts/a.sh", 6, False), ("scripts/b.sh", 7, True)]


# REF006 nested-reference


def test_reference_sending_the_agent_one_level_deeper_is_reported_in_that_file(tmp_path):
    files = {
        "references/api.md": "# API\n\nFor errors see [errors](errors.md).\n",
        "references/errors.md": "# Errors\n",
    }
    found = hits(tmp_path, "REF006", "Read [api](references/api.md).\n", files)
    assert [h.message for h in found] == [
        "'references/api.md', referenced from SKILL.md, sends the agent on to "
        "'references/errors.md', which SKILL.md does not reference"
    ]
    assert found[0].location.path == "skills/demo/references/api.md"
    assert lines_of(found) == [3]


def test_an_index_of_many_deeper_files_is_one_finding(tmp_path):
    index = "# Templates\n\n" + "".join(f"- [{n}]({n}.md)\n" for n in ("a", "b", "c", "d", "e"))
    files = {"reference/index.md": index, **{f"reference/{n}.md": n for n in "abcde"}}
    found = hits(tmp_path, "REF006", "Pick one from [the index](reference/index.md).\n", files)
    assert [h.message for h in found] == [
        "'reference/index.md', referenced from SKILL.md, sends the agent on to "
        "'reference/a.md', 'reference/b.md', 'reference/c.md' and 2 more, which SKILL.md does not reference"
    ]
    assert lines_of(found) == [3]


def test_deeper_file_that_skill_md_also_references_passes(tmp_path):
    files = {
        "references/api.md": "See `references/errors.md`.\n",
        "references/errors.md": "# Errors\n",
    }
    body = "Read [api](references/api.md) and [errors](references/errors.md).\n"
    assert hits(tmp_path, "REF006", body, files) == []


def test_scripts_named_by_a_reference_are_not_nesting(tmp_path):
    files = {"references/api.md": "Run `scripts/fill.py`.\n", "scripts/fill.py": "pass\n"}
    assert hits(tmp_path, "REF006", "Read [api](references/api.md).\n", files) == []


def test_binary_or_escaping_references_are_not_followed(tmp_path):
    outside = tmp_path / "elsewhere.md"
    outside.write_text("[deep](references/deep.md)\n")
    skill_dir = tmp_path / "repo" / "skills" / "demo" / "references"
    skill_dir.mkdir(parents=True)
    os.symlink(outside, skill_dir / "linked.md")
    files = {"references/bin.md": b"\x00\x01binary", "references/deep.md": "x"}
    skill = make_skill(tmp_path / "repo", HEADER + "[a](references/bin.md) [b](references/linked.md)\n", files)
    assert run_rule(RULES, "REF006", skill) == []


def test_unreadable_skill_md_produces_no_ref_findings(tmp_path):
    skill = make_skill(tmp_path, b"\x00\x01\x02 binary SKILL.md")
    assert [hit for rule in RULES for hit in run_rule(RULES, rule.id, skill)] == []
