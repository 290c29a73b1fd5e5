"""Launch order: a policy the caller chooses, because only the caller knows which rollouts belong together.

The engine launches distinct rollouts in the order a :data:`Schedule` returns. A paired trial wants
the conditions of one (case, replicate) next to each other, so they meet the same API load and a
budget stop leaves whole pairs rather than half of many; SkillSV's chains want their own order;
the default is the order of the requests.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..agents import RolloutRequest

Schedule = Callable[[Sequence[RolloutRequest]], Sequence[int]]
"""Request indices in launch order: a permutation of ``range(len(requests))``."""


def in_order(requests: Sequence[RolloutRequest]) -> list[int]:
    """The requests as given."""
    return list(range(len(requests)))


def paired_schedule(condition_order: Sequence[str] = ()) -> Schedule:
    """Group requests by (case, replicate), groups in order of first appearance.

    Within a group, conditions named in ``condition_order`` come first, in that order; any other
    condition follows in request order.
    """
    rank = {condition: position for position, condition in enumerate(condition_order)}

    def schedule(requests: Sequence[RolloutRequest]) -> list[int]:
        groups: dict[tuple[str, int], list[int]] = {}
        for index, request in enumerate(requests):
            groups.setdefault((request.case.id, request.replicate), []).append(index)
        return [
            index
            for members in groups.values()
            for index in sorted(members, key=lambda i: (rank.get(requests[i].condition, len(rank)), i))
        ]

    return schedule


def checked_order(schedule: Schedule, requests: Sequence[RolloutRequest]) -> list[int]:
    """``schedule(requests)``, refused unless it is a permutation of the request indices."""
    order = list(schedule(requests))
    if sorted(order) != list(range(len(requests))):
        raise ValueError(
            f"the schedule must return every request index exactly once; got {len(order)} indices "
            f"for {len(requests)} requests"
        )
    return order
