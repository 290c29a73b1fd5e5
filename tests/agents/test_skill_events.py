"""Skill events found in ATIF trajectories written by different harnesses."""

from __future__ import annotations

from typing import Any

import pytest

from aces_ci.agents import SkillEvent, detect_skill_events

ROOT = "/tmp/ws/work"
HOME = "/tmp/ws/home"
SKILLS = {"pdf": f"{ROOT}/.agents/skills/pdf", "notes": f"{HOME}/.claude/skills/notes"}


def trajectory(*calls: tuple[str, dict[str, Any]], first_step: int = 3) -> dict[str, Any]:
    """A trajectory with a system and a user step, then one agent step per tool call."""
    steps: list[dict[str, Any]] = [
        {"step_id": 1, "source": "system", "message": "sys"},
        {"step_id": 2, "source": "user", "message": "task"},
    ]
    for offset, (name, arguments) in enumerate(calls):
        steps.append(
            {
                "step_id": first_step + offset,
                "source": "agent",
                "message": "",
                "tool_calls": [{"tool_call_id": f"t{offset}", "function_name": name, "arguments": arguments}],
            }
        )
    return {"schema_version": "ATIF-v1.7", "agent": {"name": "x", "version": "1"}, "steps": steps}


def events(*calls: tuple[str, dict[str, Any]]) -> list[tuple[int, str, str, str | None]]:
    found = detect_skill_events(trajectory(*calls), SKILLS, workspace_root=ROOT, home=HOME)
    return [(e.step_id, e.skill, e.via, e.path) for e in found]


def test_claude_code_skill_tool_and_plugin_namespaces() -> None:
    assert events(("Skill", {"skill": "pdf"})) == [(3, "pdf", "skill_tool", "SKILL.md")]
    assert events(("Skill", {"skill": "my-plugin:notes"})) == [(3, "notes", "skill_tool", "SKILL.md")]
    assert events(("Skill", {"skill": "PDF"})) == [(3, "pdf", "skill_tool", "SKILL.md")]


def test_opencode_skill_tool() -> None:
    assert events(("skill", {"name": "notes"})) == [(3, "notes", "skill_tool", "SKILL.md")]


def test_a_skill_tool_naming_an_unstaged_skill_is_not_an_event() -> None:
    assert events(("Skill", {"skill": "docx"})) == []


@pytest.mark.parametrize(
    ("tool", "arguments", "path"),
    [
        ("Read", {"file_path": f"{ROOT}/.agents/skills/pdf/SKILL.md"}, "SKILL.md"),
        ("read", {"filePath": ".agents/skills/pdf/references/FORMS.md"}, "references/FORMS.md"),
        ("read_file", {"path": "./.agents/skills/pdf/SKILL.md"}, "SKILL.md"),
        ("mcp__fs__read_file", {"path": f"{HOME}/.claude/skills/notes/SKILL.md"}, "SKILL.md"),
    ],
)
def test_read_tools_with_absolute_and_relative_paths(tool: str, arguments: dict[str, Any], path: str) -> None:
    found = events((tool, arguments))
    assert len(found) == 1 and found[0][2:] == ("file_read", path)


def test_reads_outside_every_skill_are_not_events() -> None:
    assert events(("Read", {"file_path": f"{ROOT}/SKILL.md"}), ("read_file", {"path": "/etc/passwd"})) == []


@pytest.mark.parametrize(
    ("command", "skill", "path"),
    [
        ("cat .agents/skills/pdf/SKILL.md", "pdf", "SKILL.md"),
        ("cd .agents/skills/pdf && head -n 40 SKILL.md", "pdf", "SKILL.md"),
        ("sed -n '1,80p' ~/.claude/skills/notes/SKILL.md | grep -i usage", "notes", "SKILL.md"),
        ("ls; cat < .agents/skills/pdf/references/FORMS.md", "pdf", "references/FORMS.md"),
        ("LANG=C timeout 5 cat /tmp/ws/work/.agents/skills/pdf/SKILL.md 2>&1", "pdf", "SKILL.md"),
        ("bash -lc \"cat '.agents/skills/pdf/SKILL.md'\"", "pdf", "SKILL.md"),
        ('cat "pdf/SKILL.md', "pdf", "SKILL.md"),  # unbalanced quote: still understood
    ],
)
def test_shell_reads(command: str, skill: str, path: str) -> None:
    assert events(("Bash", {"command": command})) == [(3, skill, "shell_read", path)]


def test_codex_command_lists() -> None:
    found = events(("exec_command", {"command": ["bash", "-lc", "cat .agents/skills/pdf/SKILL.md"]}))
    assert found == [(3, "pdf", "shell_read", "SKILL.md")]


@pytest.mark.parametrize(
    ("command", "path"),
    [
        ("python3 .agents/skills/pdf/scripts/fill.py --in form.pdf", "scripts/fill.py"),
        ("python -u /tmp/ws/work/.agents/skills/pdf/scripts/fill.py", "scripts/fill.py"),
        ("bash .agents/skills/pdf/scripts/merge.sh a b", "scripts/merge.sh"),
        ("./.agents/skills/pdf/scripts/merge.sh", "scripts/merge.sh"),
        ("uv run python .agents/skills/pdf/scripts/fill.py", "scripts/fill.py"),
        ("cd .agents/skills/pdf; node scripts/x.js", "scripts/x.js"),
    ],
)
def test_script_runs(command: str, path: str) -> None:
    assert events(("run", {"command": command})) == [(3, "pdf", "script_run", path)]


def test_inline_code_and_modules_are_not_script_runs() -> None:
    assert events(("run", {"command": "python -c 'print(1)' .agents/skills/pdf/scripts/fill.py"})) == []
    assert events(("run", {"command": "python -m pdf.fill"})) == []


def test_detection_does_not_stop_at_unrelated_tools_and_keeps_step_order() -> None:
    found = events(
        ("list_files", {"path": "."}),
        ("Bash", {"command": "ls -la"}),
        ("Read", {"file_path": f"{ROOT}/.agents/skills/pdf/SKILL.md"}),
        ("write_file", {"path": "out.txt", "content": "x"}),
        ("run", {"command": "python .agents/skills/pdf/scripts/fill.py"}),
        ("Skill", {"skill": "notes"}),
    )
    assert found == [
        (5, "pdf", "file_read", "SKILL.md"),
        (7, "pdf", "script_run", "scripts/fill.py"),
        (8, "notes", "skill_tool", "SKILL.md"),
    ]


def test_repeated_identical_calls_in_one_step_count_once() -> None:
    doc = trajectory(("Read", {"file_path": f"{ROOT}/.agents/skills/pdf/SKILL.md"}))
    doc["steps"][2]["tool_calls"] *= 2
    assert detect_skill_events(doc, SKILLS, workspace_root=ROOT) == [SkillEvent(3, "pdf", "file_read", "SKILL.md")]


def test_relative_paths_are_matched_even_without_a_workspace_root() -> None:
    found = detect_skill_events(trajectory(("cat", {"path": "skills/pdf/SKILL.md"})), SKILLS)
    assert found == [SkillEvent(3, "pdf", "file_read", "SKILL.md")]


@pytest.mark.parametrize(
    "broken",
    [
        {},
        {"steps": "nope"},
        {"steps": [None, {"source": "agent"}, {"source": "agent", "step_id": 3, "tool_calls": "x"}]},
        {
            "steps": [
                {
                    "source": "agent",
                    "step_id": 3,
                    "tool_calls": [
                        None,
                        {"function_name": 7, "arguments": {}},
                        {"function_name": "Read", "arguments": []},
                        {"function_name": "Read", "arguments": {"file_path": 5}},
                    ],
                }
            ]
        },
    ],
)
def test_malformed_trajectories_yield_no_events_and_no_crash(broken: dict[str, Any]) -> None:
    assert detect_skill_events(broken, SKILLS) == []


def test_events_only_come_from_agent_steps() -> None:
    doc = trajectory(("Skill", {"skill": "pdf"}))
    doc["steps"][2]["source"] = "user"
    assert detect_skill_events(doc, SKILLS) == []


def test_shell_commands_split_unwrap_and_follow_bash_c():
    from aces_ci.agents import shell_commands

    assert shell_commands("/bin/bash -lc 'cd /w && sudo rm -rf build; FOO=1 timeout 5 python3 x.py | tee log'") == [
        ["cd", "/w"],
        ["rm", "-rf", "build"],
        ["python3", "x.py"],
        ["tee", "log"],
    ]
    assert shell_commands("echo 'unterminated") == [["echo", "unterminated"]]
