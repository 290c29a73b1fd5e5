"""Discovery and loading of skills from a repository tree."""

from __future__ import annotations

import os

from aces_ci.skill import discover_skills, load_skill, read_text


def write(path, text="x"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_finds_skills_in_conventional_and_plain_dirs(tmp_path):
    for rel in ("skills/a", ".claude/skills/b", ".agents/skills/c", ".opencode/skills/d", "misc/e"):
        write(tmp_path / rel / "SKILL.md", f"---\nname: {rel.rsplit('/', 1)[1]}\n---\n")
    write(tmp_path / ".hidden/f/SKILL.md")
    found = [s.rel_dir for s in discover_skills(tmp_path)]
    assert found == [".agents/skills/c", ".claude/skills/b", ".opencode/skills/d", "misc/e", "skills/a"]


def test_excludes_are_gitignore_patterns(tmp_path):
    write(tmp_path / "skills/keep/SKILL.md")
    write(tmp_path / "skills/vendor/drop/SKILL.md")
    write(tmp_path / "node_modules/pkg/SKILL.md")
    found = [s.rel_dir for s in discover_skills(tmp_path, exclude=["vendor/"])]
    assert found == ["skills/keep"]


def test_lowercase_skill_md_loads_with_problem(tmp_path):
    write(tmp_path / "skills/low/skill.md", "---\nname: low\ndescription: d\n---\n")
    (skill,) = discover_skills(tmp_path)
    assert skill.skill_md.rel == "skills/low/skill.md"
    assert [p.code for p in skill.problems] == ["lowercase-skill-md"]
    assert skill.name == "low"


def test_symlink_loop_and_escaping_link_do_not_hang(tmp_path):
    skill_dir = tmp_path / "skills/loop"
    write(skill_dir / "SKILL.md", "---\nname: loop\n---\n")
    os.symlink(skill_dir, skill_dir / "self")
    os.symlink("/etc", skill_dir / "etc-link")
    os.symlink(skill_dir / "missing", skill_dir / "dangling")
    (skill,) = discover_skills(tmp_path)
    links = {r.rel: r for r in skill.resources if r.is_symlink}
    assert set(links) == {"self", "etc-link", "dangling"}
    assert links["etc-link"].symlink_target == "/etc"


def test_resource_kinds(tmp_path):
    skill_dir = tmp_path / "skills/kinds"
    write(skill_dir / "SKILL.md")
    for rel in (
        "scripts/run.py",
        "references/guide.md",
        "assets/logo.txt",
        "evals/evals.json",
        "tool.sh",
        "notes.txt",
    ):
        write(skill_dir / rel)
    skill = load_skill(skill_dir, tmp_path)
    kinds = {r.rel: r.kind for r in skill.resources}
    assert kinds == {
        "scripts/run.py": "script",
        "references/guide.md": "reference",
        "assets/logo.txt": "asset",
        "evals/evals.json": "eval",
        "tool.sh": "script",
        "notes.txt": "other",
    }


def test_binary_and_invalid_utf8_and_huge_files(tmp_path):
    binary = tmp_path / "b.md"
    binary.write_bytes(b"\x89PNG\x00\x00data")
    assert read_text(binary, "b.md").text is None
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"line one\nline \xff two\n")
    result = read_text(bad, "bad.md")
    assert result.text is not None and "\ufffd" in result.text
    assert [(p.code, p.line) for p in result.problems] == [("invalid-utf8", 2)]
    huge = tmp_path / "huge.md"
    huge.write_bytes(b"a" * (3 * 1024 * 1024))
    big = read_text(huge, "huge.md")
    assert big.truncated and big.size == 3 * 1024 * 1024
    assert [p.code for p in big.problems] == ["too-large"]


def test_fifo_is_not_read(tmp_path):
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    result = read_text(fifo, "pipe.md")
    assert result.text is None
    assert [p.code for p in result.problems] == ["not-a-file"]


def test_binary_skill_md_has_no_frontmatter_problems(tmp_path):
    skill_dir = tmp_path / "skills/bin"
    skill_dir.mkdir(parents=True)
    (skill_dir / "SKILL.md").write_bytes(b"\x00\x01\x02")
    skill = load_skill(skill_dir, tmp_path)
    assert skill.skill_md.text is None
    assert [p.code for p in skill.skill_md.problems] == ["binary"]
    assert skill.frontmatter.problems == ()


def test_skill_md_symlinked_out_of_the_repo_is_not_read(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("---\nname: leaked\n---\nprivate text\n")
    repo = tmp_path / "repo"
    skill_dir = repo / "skills/linked"
    skill_dir.mkdir(parents=True)
    os.symlink(outside / "secret.md", skill_dir / "SKILL.md")
    skill = load_skill(skill_dir, repo)
    assert skill.skill_md.text is None
    assert [p.code for p in skill.skill_md.problems] == ["unreadable"]
    assert "private text" not in skill.body.text


def test_frontmatter_closed_past_the_read_cap_is_not_called_never_closed(tmp_path):
    skill_dir = tmp_path / "big"
    skill_dir.mkdir()
    huge = "a" * (3 * 1024 * 1024)
    (skill_dir / "SKILL.md").write_text(f"---\nname: big\ndescription: {huge}\n---\nbody\n", encoding="utf-8")

    skill = load_skill(skill_dir, tmp_path)

    [problem] = [p for p in skill.frontmatter.problems if p.code == "frontmatter-unclosed"]
    assert "never closed" not in problem.message
    assert "not closed within the first" in problem.message
