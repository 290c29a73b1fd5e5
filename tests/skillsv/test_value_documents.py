"""The value JSON keeps the text of the files its units cover, bounded, so a report can show the real lines."""

from __future__ import annotations

from pathlib import Path

from aces_ci.skillsv import compile_skill
from aces_ci.skillsv._value_json import MAX_DOCUMENT_CHARS, MAX_DOCUMENTS_CHARS, documents_json
from tests.skillsv.helpers import PLANTED_BODY, write_skill


def test_skill_md_comes_first_as_the_units_read_it_resources_follow_and_binaries_keep_no_text(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "scripts/tool.sh": "#!/bin/sh\r\necho TOTALS\r\n",
        "assets/logo.png": b"\x89PNG\x00\x01\x02" * 10,
    }
    skill = write_skill(tmp_path, PLANTED_BODY + "</script><b>\u202eevil\n", files)
    game = compile_skill(skill)
    documents = {d["file"]: d for d in documents_json(game)}
    assert next(iter(documents)) == "SKILL.md"
    assert set(documents) == {unit.file for unit in game.players}
    skill_md = documents["SKILL.md"]
    source = (skill / "SKILL.md").read_text(encoding="utf-8")
    assert skill_md["text"] == source and not skill_md["truncated"]
    assert skill_md["lines"] == skill_md["shown_lines"] == len(source.splitlines())
    last_line = max(unit.lines[1] for unit in game.players if unit.file == "SKILL.md")
    assert last_line <= skill_md["lines"]  # every unit's lines are in the text
    assert documents["scripts/tool.sh"]["text"] == "#!/bin/sh\necho TOTALS\n"  # newlines as the units count them
    logo = documents["assets/logo.png"]
    assert logo["binary"] and logo["text"] is None and logo["bytes"] == 70


def test_a_long_file_is_cut_after_a_whole_line_and_all_files_together_stay_bounded(tmp_path: Path) -> None:
    line = "a line of a long reference file, repeated\n"
    long_text = line * (MAX_DOCUMENT_CHARS // len(line) + 500)
    files: dict[str, str | bytes] = {f"references/part{k}.md": long_text for k in range(6)}
    game = compile_skill(write_skill(tmp_path, PLANTED_BODY, files))
    documents = documents_json(game)
    parts = [d for d in documents if d["file"].startswith("references/")]
    first = parts[0]
    assert first["truncated"] and len(first["text"]) <= MAX_DOCUMENT_CHARS and first["text"].endswith("\n")
    assert first["shown_lines"] == first["text"].count("\n") < first["lines"] == long_text.count("\n")
    assert long_text.startswith(first["text"])
    assert sum(len(d["text"] or "") for d in documents) <= MAX_DOCUMENTS_CHARS
    assert parts[-1]["truncated"] and parts[-1]["shown_lines"] < parts[0]["shown_lines"]  # the budget ran out
