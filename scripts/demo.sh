#!/usr/bin/env bash
# The main job on the bundled example repo, with no API key: the static tier on every skill, then
# a small paired batch of rollouts (with and without the knowledge skill) on the embedded local model.
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
echo "== aces-ci rollout: the knowledge skill, with and without it, on the embedded local model"
# Every case of acme-support's evals.json in both arms (preload disclosure: SmolLM2-135M cannot call
# tools). A rerun answers from the rollout cache in .aces-cache without running the model again.
.venv/bin/aces-ci rollout examples/skill-repo/skills/acme-support --all-cases --arm both \
  --provider local --cache-dir .aces-cache --trajectory out/rollouts.jsonl
echo "trajectories (ATIF): out/rollouts.jsonl"
echo "demo: done in ${SECONDS}s"
