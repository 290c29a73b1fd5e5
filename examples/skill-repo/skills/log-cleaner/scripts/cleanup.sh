#!/usr/bin/env bash
# Delete rotated log archives older than 30 days in the given directory.
set -euo pipefail

dir=${1:?usage: cleanup.sh LOG_DIR}
find "$dir" -name '*.log.*' -type f -mtime +30 -print -delete
