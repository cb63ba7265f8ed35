#!/usr/bin/env bash
# The checks of the Action's self-test (.github/workflows/action.yml): what a run of
# the Action (`uses: ./`) gave against what it should.
#
#   expect-action.sh OUTCOME ERRORS WARNINGS SARIF [RULE...]
#
# The step's outcome (success or failure), its `errors` and `warnings` outputs, its
# `sarif-file` output (relative to the workspace), and that SARIF file: as many
# results at error and warning level as the outputs say, and a result of each RULE.
# The run's values come in OUTCOME, ERRORS, WARNINGS and SARIF of the environment.
set -euo pipefail
want_outcome=$1 want_errors=$2 want_warnings=$3 want_sarif=$4
shift 4
failed=0
expect() {
  if [ "$2" != "$3" ]; then
    echo "::error title=action self-test::$1 is '$2', expected '$3'"
    failed=1
  else
    echo "$1: $2"
  fi
}
expect outcome "${OUTCOME:-}" "$want_outcome"
expect errors "${ERRORS:-}" "$want_errors"
expect warnings "${WARNINGS:-}" "$want_warnings"
expect sarif-file "${SARIF:-}" "$want_sarif"
sarif="${GITHUB_WORKSPACE:-.}/$want_sarif"
if [ ! -f "$sarif" ]; then
  echo "::error title=action self-test::no SARIF at $want_sarif"
  exit 1
fi
# Results by level, and by rule, as `level N` and `rule NAME` lines.
counts=$(python3 - "$sarif" <<'PY'
import json, sys
from collections import Counter
results = json.load(open(sys.argv[1], encoding="utf-8"))["runs"][0]["results"]
for level, count in Counter(r["level"] for r in results).items():
    print("level", level, count)
for rule in sorted({r["ruleId"] for r in results}):
    print("rule", rule)
PY
)
count() {
  awk -v level="$1" '$1 == "level" && $2 == level { print $3; found = 1 } END { if (!found) print 0 }' <<<"$counts"
}
expect "error results in $want_sarif" "$(count error)" "$want_errors"
expect "warning results in $want_sarif" "$(count warning)" "$want_warnings"
for rule in "$@"; do
  if grep -qx "rule $rule" <<<"$counts"; then
    echo "a result of $rule"
  else
    echo "::error title=action self-test::no result of $rule in $want_sarif"
    failed=1
  fi
done
exit "$failed"
