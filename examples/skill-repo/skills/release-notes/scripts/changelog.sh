#!/usr/bin/env bash
# Group conventional-commit subjects (one per line on stdin) into release-note sections.
# Usage: git log --pretty=format:%s v1.2.0..HEAD | changelog.sh
set -euo pipefail

breaking=()
features=()
fixes=()
other=()

while IFS= read -r subject || [[ -n "$subject" ]]; do
  if [[ -z "$subject" ]]; then
    continue
  fi
  description="${subject#*: }"
  case "$subject" in
    *!:*) breaking+=("$description") ;;
    feat:* | feat\(*) features+=("$description") ;;
    fix:* | fix\(*) fixes+=("$description") ;;
    chore:* | chore\(* | ci:* | build:* | test:* | style:*) ;;
    *) other+=("$subject") ;;
  esac
done

print_section() {
  local title=$1
  shift
  if (($# == 0)); then
    return 0
  fi
  printf '## %s\n\n' "$title"
  printf -- '- %s\n' "$@"
  printf '\n'
}

print_section "Breaking changes" ${breaking[@]+"${breaking[@]}"}
print_section "Features" ${features[@]+"${features[@]}"}
print_section "Fixes" ${fixes[@]+"${fixes[@]}"}
print_section "Other changes" ${other[@]+"${other[@]}"}
