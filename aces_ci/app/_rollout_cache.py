"""``aces-ci cache export`` / ``import``: a matrix job's rollout cache and journal as one file, and back.

The work is :func:`aces_ci.engine.export_rollouts` and :func:`~aces_ci.engine.import_rollouts`
(content-addressed, so an import is a union); this module only opens the cache the way every
command does.
"""

from __future__ import annotations

from pathlib import Path

from ..engine import Imported, RolloutCache, export_rollouts, import_rollouts


def export_cache(cache_dir: Path, journal: Path | None, out: Path) -> int:
    """Write every completed rollout of ``cache_dir`` (and ``journal``) to the archive ``out``; how many."""
    return export_rollouts(RolloutCache(cache_dir), journal, out)


def import_cache(archive: Path, cache_dir: Path) -> Imported:
    """Add the rollouts of ``archive`` that ``cache_dir`` lacks."""
    return import_rollouts(archive, RolloutCache(cache_dir))
