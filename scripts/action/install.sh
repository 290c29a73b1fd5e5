#!/usr/bin/env bash
# The composite action's install step: a private venv under $RUNNER_TEMP with aces-ci in it.
# Default: installed from the action's own checkout, i.e. exactly the ref the workflow pinned
# (`uses: owner/aces-ci@v1`); with ACES_VERSION set, that release from PyPI instead.
set -euo pipefail
venv="${ACES_CI_VENV:-${RUNNER_TEMP:-/tmp}/aces-ci-venv}"
python="${ACES_PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
# --no-compile below: a job runs aces-ci a few times, and Python compiles the modules it imports on first use;
# byte-compiling every module of numpy, scipy and the SDKs up front was about two thirds of the install's time.
if [ -n "${ACES_VERSION:-}" ]; then
  if ! [[ "$ACES_VERSION" =~ ^[0-9]+(\.[0-9]+)*([a-z0-9.+-]*)$ ]]; then
    echo "::error title=aces-ci::input 'version' must be a version number like 0.1.0, got '$ACES_VERSION'"
    exit 2
  fi
  "$venv/bin/python" -m pip install --no-compile --quiet --disable-pip-version-check "aces-ci==$ACES_VERSION"
else
  "$venv/bin/python" -m pip install --no-compile --quiet --disable-pip-version-check "${ACES_ACTION_PATH:?}"
fi
"$venv/bin/aces-ci" --version
