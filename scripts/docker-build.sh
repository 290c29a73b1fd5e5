#!/usr/bin/env bash
# The image's build step: a venv with aces-ci (no pip cache, no build tools left behind) and an
# unprivileged user to run it. Run by the Dockerfile as root; tests run it as is into a temporary
# prefix (ACES_SKIP_USER=1 where creating users is not wanted).
set -euo pipefail
source_dir="${ACES_SOURCE:?the aces-ci source folder}"
prefix="${ACES_PREFIX:?where to create the venv}"
python="${ACES_PYTHON:-python3}"

"$python" -m venv "$prefix"
# --no-compile: the __pycache__ folders are removed below anyway (the image never writes bytecode), and
# byte-compiling every module of numpy, scipy and the SDKs was about two thirds of this install's time.
"$prefix/bin/python" -m pip install --no-cache-dir --no-compile --quiet --disable-pip-version-check "$source_dir"
"$prefix/bin/python" -m pip uninstall --yes --quiet pip >/dev/null
find "$prefix" -name '__pycache__' -type d -prune -exec rm -rf {} +

if [ "${ACES_SKIP_USER:-0}" != "1" ]; then
  useradd --system --uid 10001 --create-home --home-dir /home/aces --shell /usr/sbin/nologin aces
  git config --system --add safe.directory '*'
fi
"$prefix/bin/aces-ci" --version
