#!/usr/bin/env bash
# The run step of action.yml. `args` names the command:
# - check (the default): an annotation for every finding and for every error that
#   kept tether from checking (a broken tether.toml, on its file and line), SARIF
#   (kept where `sarif-file` says), and the exit code by the `fail-on` policy;
# - snapshot, idem: their GitHub format (idem's failures are annotations on the first
#   changed line), idem's JSON report for the summary;
# - anything else (map, rules): run as it is.
# Then the Markdown job summary and the step's outputs. `idem: true` runs
# `tether idem` after a check too.
#
# `args` is split into words at spaces, tabs and newlines (every line counts), and
# quotes keep a word whole (`check "charts/my chart"`); nothing in it is expanded or
# run. A quote left open fails the step.
set -uo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
tether="$TETHER_BIN/tether"
if ! split_words "${TETHER_ARGS:-check}"; then
  say_error "the args input has a quote that is not closed: ${TETHER_ARGS}; close it, as in: check \"charts/my chart\""
  exit 2
fi
args=("${words[@]}")
if [ "${#args[@]}" -eq 0 ]; then
  args=(check)
fi
command="${args[0]}"
extra=()
if [ -n "${TETHER_CONFIG:-}" ]; then
  extra+=(--config "$TETHER_CONFIG")
fi
temp="${RUNNER_TEMP:-$(mktemp -d)}"
workspace="${GITHUB_WORKSPACE:-$PWD}"

# SARIF where `sarif-file` says (relative to the working directory), and the output
# naming it relative to the workspace, as upload-sarif and later steps read it.
sarif=""
sarif_output=""
if [ "$command" = check ]; then
  sarif="$temp/tether.sarif"
  if [ -n "${TETHER_SARIF:-}" ]; then
    case "$TETHER_SARIF" in
      /*) sarif="$TETHER_SARIF" ;;
      *) sarif="$PWD/$TETHER_SARIF" ;;
    esac
    sarif_output="$sarif"
    case "$sarif" in
      "$workspace"/*) sarif_output="${sarif#"$workspace"/}" ;;
    esac
  fi
fi

run_idem() {
  idem="$temp/tether-idem.json"
  rm -f "$idem"
  "$tether" "$@" --format github --report-json "$idem"
}

idem=""
case "$command" in
  check)
    # Every finding as an annotation; the exit code comes from the SARIF run.
    "$tether" "${args[@]}" "${extra[@]}" --format github --fail-on never
    "$tether" "${args[@]}" "${extra[@]}" --format sarif --fail-on "${TETHER_FAIL_ON:-error}" >"$sarif"
    status=$?
    ;;
  snapshot)
    "$tether" "${args[@]}" "${extra[@]}" --format github
    status=$?
    ;;
  idem)
    run_idem "${args[@]}" "${extra[@]}"
    status=$?
    ;;
  *)
    "$tether" "${args[@]}" "${extra[@]}"
    status=$?
    ;;
esac

if [ "${TETHER_IDEM:-false}" = "true" ] && [ "$command" != idem ]; then
  run_idem idem "${extra[@]}"
  idem_status=$?
  if [ "$status" -eq 0 ] || [ "$idem_status" -eq 2 ]; then
    status=$idem_status
  fi
fi

TETHER_COMMAND="$command" TETHER_STATUS="$status" \
  python3 "$(dirname "$0")/summary.py" "$sarif" "$idem" \
  >>"${GITHUB_STEP_SUMMARY:-/dev/null}" 3>>"${GITHUB_OUTPUT:-/dev/null}"
if [ -n "$sarif_output" ]; then
  echo "sarif-file=$sarif_output" >>"${GITHUB_OUTPUT:-/dev/null}"
fi
exit "$status"
