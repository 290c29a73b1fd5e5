#!/usr/bin/env bash
# Set up everything the test suite needs on a fresh machine, then lint, type-check and test.
# Under CI=true (as .ci/run and GitHub Actions set it) a test whose model or CLI is missing fails
# instead of skipping, so a broken install cannot show green.
set -euo pipefail
cd "$(dirname "$0")/.."

ACES_EXTRAS="dev,local" bash scripts/setup.sh
# The real Claude Code, Codex and OpenCode CLIs, for the harness adapters' end-to-end tests.
ACES_CLI_BIN="$(bash scripts/install-harness-clis.sh)"
export ACES_CLI_BIN
# mermaid and the SARIF 2.1.0 schema from npm, Chromium from Debian: the report rendering/validation tests.
ACES_REPORT_TOOLS="$(bash scripts/install-report-tools.sh)"
export ACES_REPORT_TOOLS

echo "test: ruff, mypy, then pytest on one worker per core (the slowest tests are listed at the end)"
.venv/bin/ruff check aces_ci tests benchmarks
.venv/bin/mypy
# One worker per core (ACES_TEST_WORKERS overrides; 0 runs in this process): a third of the suite's time
# is waiting (hung-CLI timeouts, subprocesses, the embedded model), which the other worker fills.
.venv/bin/python -m pytest -q --durations=10 --numprocesses "${ACES_TEST_WORKERS:-auto}" "$@"
