#!/usr/bin/env bash
# Install what the report tests render and validate with, and print the npm prefix (the only stdout line):
#   - mermaid (npm), rendered in headless Chromium to check the PR comment's charts;
#   - @microsoft/jest-sarif (npm), only for the SARIF 2.1.0 JSON schema it ships;
#   - Debian's chromium, when it is missing and we may install packages (root with apt-get).
# Measured on the project's machine: chromium ~18 s (apt), the npm packages ~8 s; both idempotent.
#
# A failed apt-get (no network, no mirror) only costs the chromium test, which then skips: it never stops the
# npm part. npm keeps the machine's global config (see install-harness-clis.sh) and shows its warnings.
#
# Usage: ACES_REPORT_TOOLS="$(bash scripts/install-report-tools.sh)"   (PREFIX: $1, else ~/.cache/aces-ci/npm-report)
#   Non-zero when npm failed (reason on stderr): scripts/test.sh then skips the report-tool tests with it.
set -euo pipefail

prefix="${1:-${ACES_REPORT_TOOLS:-$HOME/.cache/aces-ci/npm-report}}"
mermaid_version="${ACES_MERMAID_VERSION:-12.3.0}"
sarif_version="1.0.0-beta.0"
say() { echo "install-report-tools: $*" >&2; }

if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    say "installing Debian's chromium (headless rendering of mermaid charts)..."
    if ! DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2; then
      say "apt-get update failed; trying the package lists already on this machine"
    fi
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >&2; then
      say "chromium could not be installed (apt-get's reason above); the mermaid rendering test will skip"
    fi
  else
    say "chromium is not installed and cannot be installed here; the mermaid rendering test will skip"
  fi
fi

installed() { node -e "process.stdout.write(require('$prefix/node_modules/$1/package.json').version)" 2>/dev/null || true; }
if [ "$(installed mermaid)" != "$mermaid_version" ] || [ "$(installed @microsoft/jest-sarif)" != "$sarif_version" ]; then
  say "installing mermaid@$mermaid_version and the SARIF schema into $prefix (npm's progress and warnings follow)..."
  mkdir -p "$prefix"
  global_config="$(npm config get globalconfig 2>/dev/null || true)"
  npm_flags=(--no-audit --no-fund --ignore-scripts --fetch-retries=2 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=10000)
  if [ -n "$global_config" ] && [ -f "$global_config" ]; then npm_flags+=(--globalconfig "$global_config"); fi
  if ! npm install --prefix "$prefix" "${npm_flags[@]}" "mermaid@$mermaid_version" "@microsoft/jest-sarif@$sarif_version" >&2; then
    say "npm install failed (reason above); the mermaid and SARIF schema tests will skip with this reason"
    exit 1
  fi
fi
echo "$prefix"
