"""The job summary of the tether action, from its SARIF (and `tether idem` JSON).

Writes Markdown to stdout (the action appends it to $GITHUB_STEP_SUMMARY) and the
step's outputs `errors=N` and `warnings=N` to file descriptor 3 ($GITHUB_OUTPUT).
"""
import json
import os
import sys
from collections import Counter

FIRST = 20


def main():
    sarif_path, idem_path = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""
    try:
        with open(sarif_path, encoding="utf-8") as handle:
            results = json.load(handle)["runs"][0]["results"]
    except (OSError, ValueError, KeyError, IndexError):
        results = []
    levels = Counter(result["level"] for result in results)
    rules = Counter(result["ruleId"] for result in results)
    server = os.environ.get("GITHUB_SERVER_URL", "https://github.com")
    repository = os.environ.get("GITHUB_REPOSITORY", "")
    sha = os.environ.get("GITHUB_SHA", "")
    out = ["## tether", ""]
    if not results:
        out.append("No findings.")
    else:
        out.append(f"{levels['error']} errors and {levels['warning']} warnings.")
        out += ["", "| rule | findings |", "|---|--:|"]
        out += [f"| `{rule}` | {count} |" for rule, count in sorted(rules.items())]
        out += ["", f"First {min(FIRST, len(results))} of {len(results)}:", ""]
        for result in results[:FIRST]:
            location = result["locations"][0]["physicalLocation"]
            path = location["artifactLocation"]["uri"]
            line = location["region"]["startLine"]
            text = result["message"]["text"].split("\n")[0].replace("|", "\\|")
            where = f"{path}:{line}"
            if repository and sha:
                where = f"[{where}]({server}/{repository}/blob/{sha}/{path}#L{line})"
            out.append(f"- **{result['level']}** `{result['ruleId']}` {where}: {text}")
    if idem_path:
        out += ["", "### tether idem", ""]
        try:
            with open(idem_path, encoding="utf-8") as handle:
                report = json.load(handle)
        except (OSError, ValueError):
            report = {"targets": []}
            out.append("`tether idem` printed no report; see the step's log.")
        for target in report.get("targets", []):
            for check in target.get("checks", []):
                mark = "passed" if check.get("ok") else "FAILED"
                mutant = f" `{check['mutant']}`" if check.get("mutant") else ""
                out.append(f"- {mark}: {check.get('kind')}{mutant} in `{target.get('dir')}`")
                if not check.get("ok") and check.get("diff"):
                    out += ["", "<details><summary>diff</summary>", "", "```diff",
                            check["diff"].rstrip(), "```", "", "</details>", ""]
    print("\n".join(out))
    with os.fdopen(3, "w") as outputs:
        outputs.write(f"errors={levels['error']}\nwarnings={levels['warning']}\n")


if __name__ == "__main__":
    main()
