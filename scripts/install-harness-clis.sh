#!/usr/bin/env bash
# Install the agent CLIs that aces-ci's CLI harnesses drive — Claude Code, Codex and OpenCode — from npm
# into a cache directory, and print the folder of their executables: the only line written to stdout,
# so `ACES_CLI_BIN="$(scripts/install-harness-clis.sh)"` works. Progress and npm's output go to stderr.
#
# Only this machine's native build of each CLI is fetched. Each wrapper package lists a native package
# per platform as an optional dependency, and npm installs every one whose os/cpu match — on x86-64
# Linux that includes OpenCode's "baseline" build for CPUs without AVX2, a second 177 MB copy. So the
# optional dependencies are omitted and the one matching native package is named explicitly (Codex's
# by its npm alias), chosen the way the wrappers' own launchers choose it.
#
# Idempotent: a package already installed at the wanted version is not touched, so with a warm cache
# the script only reads three package.json files. The versions are pinned to the ones the end-to-end
# tests (tests/agents/cli) were last checked with; set ACES_CLAUDE_CODE_VERSION, ACES_CODEX_VERSION or
# ACES_OPENCODE_VERSION (e.g. to "latest") to try others — "latest" always asks the registry.
#
# npm keeps the machine's own configuration: `--prefix` alone would make npm look for its global
# npmrc under PREFIX and miss the system one (where a proxy's `cafile=` usually lives), so the global
# config is named explicitly; npm_config_* variables (npm_config_cafile…) apply as always. npm's own
# warnings (retries, certificate errors) are shown, and its retries are bounded, so a broken network
# fails in about a minute with npm's reason instead of after minutes of silence.
#
# Usage: scripts/install-harness-clis.sh [PREFIX]
#   PREFIX defaults to $ACES_CI_NPM_PREFIX, else ~/.cache/aces-ci/npm. Needs Node.js 18+ and npm.
#   Exit 0 and one stdout line when the CLIs are there; non-zero (with npm's reason on stderr) otherwise,
#   which scripts/test.sh turns into skipped CLI tests with that reason.
set -euo pipefail

prefix="${1:-${ACES_CI_NPM_PREFIX:-$HOME/.cache/aces-ci/npm}}"
executables=(claude codex opencode)

say() { echo "install-harness-clis: $*" >&2; }

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  say "node and npm are needed (Node.js 18 or newer); install them first"
  exit 2
fi

# A pinned version, or the registry's newest for "latest" (the native package must match it exactly).
# The system's global npmrc (cafile, registry, proxy), read before --prefix would move where npm looks for it.
global_config="$(npm config get globalconfig 2>/dev/null || true)"
npm_flags=(--no-audit --no-fund --fetch-retries=2 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=10000)
if [[ -n "$global_config" && -f "$global_config" ]]; then
  npm_flags+=(--globalconfig "$global_config")
  say "using npm's global config $global_config"
fi
version_of() {
  if [[ "$2" == "latest" ]]; then npm view "${npm_flags[@]}" "$1" version; else echo "$2"; fi
}
claude_version="$(version_of @anthropic-ai/claude-code "${ACES_CLAUDE_CODE_VERSION:-2.1.197}")"
codex_version="$(version_of @openai/codex "${ACES_CODEX_VERSION:-0.171.0}")"
opencode_version="$(version_of opencode-ai "${ACES_OPENCODE_VERSION:-1.18.33}")"

# The native package suffix of each CLI for this machine, picked as each wrapper's own launcher picks it:
# "<os>-<arch>", "-musl" on a musl libc (Codex ships musl builds only), and for OpenCode "-baseline" on an
# x86-64 CPU without AVX2 and "windows" for win32.
mapfile -t native < <(node -e '
  const fs = require("fs");
  const platform = `${process.platform}-${process.arch}`;
  const linux = process.platform === "linux";
  const musl = linux && !process.report.getReport().header.glibcVersionRuntime ? "-musl" : "";
  let baseline = "";
  if (linux && process.arch === "x64") {
    try { baseline = /(^|\s)avx2(\s|$)/.test(fs.readFileSync("/proc/cpuinfo", "utf8")) ? "" : "-baseline"; } catch (e) {}
  }
  console.log(platform + musl);
  console.log(platform);
  console.log(platform.replace("win32", "windows") + baseline + musl);
')
# Three columns per package: the name it installs under, what npm is asked for, the version it then records.
names=(
  "@anthropic-ai/claude-code" "@anthropic-ai/claude-code-${native[0]}"
  "@openai/codex" "@openai/codex-${native[1]}"
  "opencode-ai" "opencode-${native[2]}"
)
specs=(
  "@anthropic-ai/claude-code@$claude_version" "@anthropic-ai/claude-code-${native[0]}@$claude_version"
  "@openai/codex@$codex_version" "@openai/codex-${native[1]}@npm:@openai/codex@$codex_version-${native[1]}"
  "opencode-ai@$opencode_version" "opencode-${native[2]}@$opencode_version"
)
versions=(
  "$claude_version" "$claude_version"
  "$codex_version" "$codex_version-${native[1]}"
  "$opencode_version" "$opencode_version"
)

# The version of an installed package, or nothing when it is absent or unreadable.
installed_version() {
  local manifest="$prefix/node_modules/$1/package.json"
  [[ -f "$manifest" ]] || return 0
  node -e 'try { process.stdout.write(require(process.argv[1]).version || "") } catch (e) {}' "$manifest"
}

missing=()
for i in "${!names[@]}"; do
  if [[ "$(installed_version "${names[$i]}")" != "${versions[$i]}" ]]; then
    missing+=("${specs[$i]}")
  fi
done

bin_dir="$prefix/node_modules/.bin"
for exe in "${executables[@]}"; do
  [[ -x "$bin_dir/$exe" ]] || { missing=("${specs[@]}"); break; }
done

if ((${#missing[@]})); then
  mkdir -p "$prefix"
  say "installing ${missing[*]} into $prefix (npm's progress and warnings follow)"
  if ! npm install --prefix "$prefix" --omit=optional "${npm_flags[@]}" "${missing[@]}" >&2; then
    say "npm install failed (reason above); the CLI harness tests will skip with this reason"
    exit 1
  fi
  say "installed"
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
