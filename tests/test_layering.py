"""The house's arrows point one way: no room imports a room above it, nor another room's private modules."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tests.layering import LAYERS, layering_violations, private_imports, room_table

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "aces_ci"


def test_no_room_imports_a_room_above_it() -> None:
    assert layering_violations(PACKAGE) == []


def test_the_check_catches_an_up_arrow_from_skill_to_scan(tmp_path: Path) -> None:
    copy = tmp_path / "aces_ci"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "_schemas"))
    model = copy / "skill" / "_model.py"
    model.write_text(model.read_text(encoding="utf-8") + "\nfrom ..scan import Finding\n", encoding="utf-8")
    (problem,) = layering_violations(copy)
    assert problem.startswith(f"{model}:") and problem.endswith("skill imports scan, which sits above it")


def test_the_check_catches_a_cycle_and_a_room_it_does_not_know(tmp_path: Path) -> None:
    copy = tmp_path / "aces_ci"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "_schemas"))
    (copy / "scan" / "_late.py").write_text("def f():\n    from ..config import AcesConfig\n", encoding="utf-8")
    (copy / "extras.py").write_text("from .skill import Skill\n", encoding="utf-8")
    problems = layering_violations(copy)
    assert any(p.endswith("scan imports config, which sits above it") for p in problems)
    assert any("room 'extras' is not in tests/layering.py LAYERS" in p for p in problems)


def test_the_face_may_name_any_room_for_type_checkers_but_import_none_above_it(tmp_path: Path) -> None:
    """``aces_ci/__init__.py`` runs before every ``aces_ci.*`` import: a real import of a room there is an
    up-arrow (and a cycle); under ``if TYPE_CHECKING:`` it is never run, and the face's ``__getattr__`` imports
    the room on first use."""
    copy = tmp_path / "aces_ci"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "_schemas"))
    face = copy / "__init__.py"
    text = face.read_text(encoding="utf-8")
    assert "if TYPE_CHECKING:\n    from .app import" in text, "the face names app's entries for type checkers"
    assert layering_violations(copy) == []
    face.write_text(text + "\nfrom .trials import TrialResult as _Eager\n", encoding="utf-8")
    (problem,) = layering_violations(copy)
    assert problem.startswith(f"{face}:") and problem.endswith("__init__ imports trials, which sits above it")


def test_rooms_use_each_others_public_names_only() -> None:
    assert private_imports(PACKAGE, REPO / "tests") == []


def test_architecture_md_states_the_arrows_the_code_has() -> None:
    """The room table's "imports of ours" column is the code's, row for row, in layer order."""
    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `aces_ci/([a-z_]+)(?:/|\.py)` \|[^|]*\| ([^|]*) \|$", text, flags=re.MULTILINE)
    stated = [(room, imports.strip()) for room, imports in rows]
    assert stated == room_table(PACKAGE), "regenerate the column with: python -m tests.layering"


def test_every_room_on_disk_has_a_place_in_the_layers() -> None:
    rooms = {path.name.removesuffix(".py") for path in PACKAGE.iterdir() if path.suffix == ".py" or path.is_dir()}
    rooms -= {"__pycache__", "_schemas", "py"}
    assert rooms <= set(LAYERS)
