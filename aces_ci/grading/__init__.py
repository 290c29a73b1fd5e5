"""Score one rollout against one case.

Minimal on purpose for now: :class:`ExpectedOutputScorer` checks that the final answer contains
the expected output. The six ACES metrics and LLM judges implement the same :class:`Scorer` seam.
"""

from ._expected_output import ExpectedOutputScorer, normalise
from ._scorer import Scorer

__all__ = ["ExpectedOutputScorer", "Scorer", "normalise"]
