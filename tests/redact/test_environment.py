"""Which environment variables count as secrets, and so never reach a child process or a trajectory."""

from __future__ import annotations

from aces_ci.redact import is_secret_name


def test_secret_names_are_recognised_beyond_api_keys():
    for name in ("ANTHROPIC_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "NPM_AUTH_TOKEN"):
        assert is_secret_name(name), name
    for name in ("PATH", "HOME", "LANG", "CI"):
        assert not is_secret_name(name), name
