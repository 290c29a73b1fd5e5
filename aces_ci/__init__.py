"""aces-ci: a CI gate for agent skills.

The static tier (:mod:`aces_ci.scan`) checks every skill on every push; the live tier
(:mod:`aces_ci.agents`, :mod:`aces_ci.engine`) runs the same tasks with and without a skill.
"""

__version__ = "0.1.0"
