#!/usr/bin/env bash
# The main job on the bundled example repo, with no API key: the static tier on every skill, then
# a small paired trial (with and without the knowledge skill) on the embedded local model.
set -euo pipefail
cd "$(dirname "$0")/.."

ACES_EXTRAS="local" bash scripts/setup.sh
mkdir -p out

echo "== aces-ci scan examples/skill-repo"
status=0
.venv/bin/aces-ci scan examples/skill-repo \
  --json out/scan.json --junit out/scan.xml --sarif out/scan.sarif --markdown out/scan.md || status=$?
case "$status" in
  0) echo "scan: gate passed" ;;
  1) echo "scan: gate failed (exit 1) — expected: the example repo holds deliberately flawed skills" ;;
  *) echo "scan: error (exit $status)"; exit "$status" ;;
esac
echo "reports: out/scan.json out/scan.xml out/scan.sarif out/scan.md"

echo
echo "== aces-ci trial: the knowledge skill, with and without it, on the embedded local model"
# Every case of acme-support's evals.json, 2 runs per case in each condition (preload disclosure:
# SmolLM2-135M cannot call tools). The lift of each metric comes with its interval, n, runs and the
# smallest detectable lift; the verdict reads the interval. A rerun answers from .aces-cache without
# running the model again.
status=0
.venv/bin/aces-ci trial examples/skill-repo/skills/acme-support --runs 2 --provider local --cache-dir .aces-cache \
  --json out/trial.json --markdown out/trial.md --junit out/trial.xml || status=$?
case "$status" in
  0) echo "trial: the skill passed (or was neutral / underpowered, with a warning)" ;;
  1) echo "trial: the skill failed the lift gate (exit 1)" ;;
  *) echo "trial: error (exit $status)"; exit "$status" ;;
esac
echo "reports: out/trial.json out/trial.md out/trial.xml"
echo "demo: done in ${SECONDS}s"
