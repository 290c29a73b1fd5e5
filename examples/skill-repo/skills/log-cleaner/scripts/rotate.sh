#!/usr/bin/env bash
# Rotate log files larger than 100 MB in the given directory.
set -euo pipefail

dir=${1:?usage: rotate.sh LOG_DIR}
for file in "$dir"/*.log; do
  if [ "$(stat -c %s "$file")" -gt 104857600 ]; then
    mv "$file" "$file.$(date +%Y%m%d)"
  fi
fi
