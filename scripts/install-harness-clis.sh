#!/usr/bin/env bash
# Install the agent CLIs that aces-ci's CLI harnesses drive — Claude Code, Codex and OpenCode — from npm
# into a cache directory, and print the folder of their executables: the only line written to stdout,
# so `ACES_CLI_BIN="$(scripts/install-harness-clis.sh)"` works. Progress and npm's output go to stderr.
#
# Idempotent: a package already installed at the wanted version is not touched, so with a warm cache
# the script only reads three package.json files. The versions are pinned to the ones the end-to-end
# tests (tests/agents/cli) were last checked with; set ACES_CLAUDE_CODE_VERSION, ACES_CODEX_VERSION or
# ACES_OPENCODE_VERSION (e.g. to "latest") to try others — "latest" always asks the registry.
#
# Usage: scripts/install-harness-clis.sh [PREFIX]
#   PREFIX defaults to $ACES_CI_NPM_PREFIX, else ~/.cache/aces-ci/npm. Needs Node.js 18+ and npm.
set -euo pipefail

prefix="${1:-${ACES_CI_NPM_PREFIX:-$HOME/.cache/aces-ci/npm}}"
packages=(
  "@anthropic-ai/claude-code@${ACES_CLAUDE_CODE_VERSION:-2.1.197}"
  "@openai/codex@${ACES_CODEX_VERSION:-0.171.0}"
  "opencode-ai@${ACES_OPENCODE_VERSION:-1.18.33}"
)
executables=(claude codex opencode)

say() { echo "install-harness-clis: $*" >&2; }

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  say "node and npm are needed (Node.js 18 or newer); install them first"
  exit 2
fi

# The version of an installed package, or nothing when it is absent or unreadable.
installed_version() {
  local manifest="$prefix/node_modules/$1/package.json"
  [[ -f "$manifest" ]] || return 0
  node -e 'try { process.stdout.write(require(process.argv[1]).version || "") } catch (e) {}' "$manifest"
}

missing=()
for spec in "${packages[@]}"; do
  name="${spec%@*}"
  want="${spec##*@}"
  have="$(installed_version "$name")"
  if [[ "$want" == "latest" || "$have" != "$want" ]]; then
    missing+=("$spec")
  fi
done

bin_dir="$prefix/node_modules/.bin"
for exe in "${executables[@]}"; do
  [[ -x "$bin_dir/$exe" ]] || { missing=("${packages[@]}"); break; }
done

if ((${#missing[@]})); then
  mkdir -p "$prefix"
  say "installing ${missing[*]} into $prefix"
  npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "${missing[@]}" >&2
else
  say "already installed in $prefix"
fi

for exe in "${executables[@]}"; do
  if [[ ! -x "$bin_dir/$exe" ]]; then
    say "npm finished but $bin_dir/$exe is missing"
    exit 1
  fi
done
echo "$bin_dir"
