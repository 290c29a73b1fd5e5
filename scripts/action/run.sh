#!/usr/bin/env bash
# The composite action's run step: turn the INPUT_* variables (set through `env:` in action.yml) into
# the arguments of `aces-ci ci`. Values are only ever passed as separate arguments, never evaluated.
set -euo pipefail
venv="${ACES_CI_VENV:-${RUNNER_TEMP:-/tmp}/aces-ci-venv}"
fail() { echo "::error title=aces-ci::$1"; exit 2; }

is_true() {  # name, value: the toolkit's accepted spellings only; anything else stops the step (exit 2)
  case "$2" in
    true|True|TRUE) return 0 ;;
    false|False|FALSE) return 1 ;;
    *) fail "input '$1' must be true or false, got '$2'" ;;
  esac
}
for pair in "comment=${INPUT_COMMENT:-true}" "annotations=${INPUT_ANNOTATIONS:-true}" "check-run=${INPUT_CHECK_RUN:-false}" \
  "value=${INPUT_VALUE:-true}"; do
  is_true "${pair%%=*}" "${pair#*=}" || true
done

args=(ci "${INPUT_PATH:-.}" --mode "${INPUT_MODE:-auto}" --trial-label "${INPUT_TRIAL_LABEL:-aces:trial}")
args+=(--results-branch "${INPUT_RESULTS_BRANCH-aces-results}")  # an empty value turns the results branch off
optional() {  # flag, value: passed only when the input is set
  if [ -n "$2" ]; then args+=("$1" "$2"); fi
}
optional --config "${INPUT_CONFIG:-}"
optional --provider "${INPUT_PROVIDER:-}"
optional --model "${INPUT_MODEL:-}"
optional --harness "${INPUT_HARNESS:-}"
optional --runs "${INPUT_RUNS:-}"
optional --budget-usd "${INPUT_BUDGET_USD:-}"
optional --value-budget-usd "${INPUT_VALUE_BUDGET_USD:-}"
optional --value-holdout "${INPUT_VALUE_HOLDOUT:-}"
optional --min-score "${INPUT_FAIL_ON_SCORE:-}"
optional --fail-band "${INPUT_FAIL_ON_LIFT:-}"
optional --pass-band "${INPUT_PASS_ON_LIFT:-}"
optional --lift-metric "${INPUT_LIFT_METRIC:-}"
optional --comment-key "${INPUT_COMMENT_KEY:-}"
optional --shard "${INPUT_SHARD:-}"
optional --results "${INPUT_RESULTS:-}"
args+=(--junit "${INPUT_JUNIT-}" --sarif "${INPUT_SARIF-}" --json "${INPUT_JSON-}" --markdown "${INPUT_MARKDOWN-}" --html "${INPUT_HTML-}")
is_true comment "${INPUT_COMMENT:-true}" || args+=(--no-comment)
is_true annotations "${INPUT_ANNOTATIONS:-true}" || args+=(--no-annotations)
if is_true check-run "${INPUT_CHECK_RUN:-false}"; then args+=(--check-run); fi
is_true value "${INPUT_VALUE:-true}" || args+=(--no-value)

exec "$venv/bin/aces-ci" "${args[@]}"
