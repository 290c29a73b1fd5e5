#!/usr/bin/env bash
# Set up everything the test suite needs on a fresh machine, then lint, type-check and test.
# Under CI=true (as .ci/run and GitHub Actions set it) a test whose model or CLI is missing fails
# instead of skipping, so a broken install cannot show green.
set -euo pipefail
cd "$(dirname "$0")/.."

ACES_EXTRAS="dev,local" bash scripts/setup.sh
# The real Claude Code, Codex and OpenCode CLIs, for the harness adapters' end-to-end tests. An installer
# that fails here (no network, a proxy's CA) does not stop the suite: its tests skip with the stated
# reason (tests/needs.py), even under CI=true; a tool that did install and then goes missing still fails.
if ACES_CLI_BIN="$(bash scripts/install-harness-clis.sh)"; then
  export ACES_CLI_BIN
else
  export ACES_CLI_UNAVAILABLE="scripts/install-harness-clis.sh failed on this machine (its output is above)"
  echo "test: $ACES_CLI_UNAVAILABLE; the CLI harness tests will skip" >&2
fi
# mermaid and the SARIF 2.1.0 schema from npm, Chromium from Debian: the report rendering/validation tests.
if ACES_REPORT_TOOLS="$(bash scripts/install-report-tools.sh)"; then
  export ACES_REPORT_TOOLS
else
  export ACES_REPORT_TOOLS_UNAVAILABLE="scripts/install-report-tools.sh failed on this machine (its output is above)"
  echo "test: $ACES_REPORT_TOOLS_UNAVAILABLE; the report-tool tests will skip" >&2
fi
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  export ACES_CHROMIUM_UNAVAILABLE="chromium is not installed and install-report-tools.sh could not install it"
  echo "test: $ACES_CHROMIUM_UNAVAILABLE; the mermaid rendering test will skip" >&2
fi

echo "test: ruff, mypy, then pytest on one worker per core (the slowest tests are listed at the end)"
.venv/bin/ruff check aces_ci tests benchmarks
.venv/bin/mypy
# One worker per core (ACES_TEST_WORKERS overrides; 0 runs in this process): a third of the suite's time
# is waiting (hung-CLI timeouts, subprocesses, the embedded model), which the other worker fills.
.venv/bin/python -m pytest -q --durations=10 --numprocesses "${ACES_TEST_WORKERS:-auto}" "$@"
