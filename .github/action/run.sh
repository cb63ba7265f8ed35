#!/usr/bin/env bash
# The run step of action.yml: annotations for every finding, SARIF (kept where
# `sarif-file` says), a Markdown job summary, the step's outputs, and the exit code
# by the `fail-on` policy. `tether idem` too when `idem` is true.
set -uo pipefail
tether="$TETHER_BIN/tether"
read -r -a args <<<"${TETHER_ARGS:-check}"
extra=()
if [ -n "${TETHER_CONFIG:-}" ]; then
  extra+=(--config "$TETHER_CONFIG")
fi
temp="${RUNNER_TEMP:-$(mktemp -d)}"
sarif="${TETHER_SARIF:-}"
if [ -z "$sarif" ]; then
  sarif="$temp/tether.sarif"
fi

# Every finding as an annotation; the exit code comes from the SARIF run below.
"$tether" "${args[@]}" "${extra[@]}" --format github --fail-on never
"$tether" "${args[@]}" "${extra[@]}" --format sarif --fail-on "${TETHER_FAIL_ON:-error}" >"$sarif"
status=$?

idem=""
if [ "${TETHER_IDEM:-false}" = "true" ]; then
  idem="$temp/tether-idem.json"
  "$tether" idem --format json >"$idem"
  idem_status=$?
  if [ "$status" -eq 0 ] || [ "$idem_status" -eq 2 ]; then
    status=$idem_status
  fi
fi

python3 "$(dirname "$0")/summary.py" "$sarif" "$idem" \
  >>"${GITHUB_STEP_SUMMARY:-/dev/null}" 3>>"${GITHUB_OUTPUT:-/dev/null}"
if [ -n "${TETHER_SARIF:-}" ]; then
  echo "sarif-file=$TETHER_SARIF" >>"${GITHUB_OUTPUT:-/dev/null}"
fi
exit "$status"
