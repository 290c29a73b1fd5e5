#!/usr/bin/env bash
# Create .venv and install aces-ci with the extras named in $ACES_EXTRAS (default: local).
#
# The embedded model's runtime, llama-cpp-python, has no wheel on PyPI for this platform: pip builds
# llama.cpp from source (about 5 minutes on 2 cores). We build that wheel once into a cache folder
# (~/.cache/aces-ci/wheels, or $ACES_WHEEL_CACHE) and install from there on every later run.
set -euo pipefail
cd "$(dirname "$0")/.."

extras="${ACES_EXTRAS:-local}"
wheel_cache="${ACES_WHEEL_CACHE:-$HOME/.cache/aces-ci/wheels}"
llama_version="0.3.36"
python="${PYTHON:-python3}"

if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip

if [[ ",$extras," == *",local,"* ]]; then
  mkdir -p "$wheel_cache"
  if ! ls "$wheel_cache"/llama_cpp_python-"$llama_version"-*.whl >/dev/null 2>&1; then
    echo "setup: building llama-cpp-python $llama_version from source (once; cached in $wheel_cache)..."
    CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}" .venv/bin/python -m pip wheel --quiet --no-deps \
      "llama-cpp-python==$llama_version" -w "$wheel_cache"
  fi
fi

.venv/bin/python -m pip install --quiet --find-links "$wheel_cache" -e ".[$extras]"
echo "setup: aces-ci installed in .venv with extras [$extras]"
