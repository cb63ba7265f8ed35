"""The job summary of the tether action, from its SARIF (and `tether idem` JSON).

Writes Markdown to stdout (the action appends it to $GITHUB_STEP_SUMMARY) and the
step's outputs `errors=N` and `warnings=N` to file descriptor 3 ($GITHUB_OUTPUT).
"""
import json
import os
import re
import sys
from collections import Counter
from urllib.parse import quote

FIRST = 20

# Markdown's inline punctuation (shown text never starts a line): escaped wherever
# text from a file or a file name is shown, so a name holding `](`, `<img` or a
# newline cannot add a link, an image or a line.
MARKDOWN = re.compile(r"([\\`*_\[\]()<>|~&])")


def text(value):
    """Plain text in Markdown: one line, every punctuation character escaped."""
    return MARKDOWN.sub(r"\\\1", " ".join(str(value).split()))


def code(value):
    """A code span that no backquote in `value` can close: one line."""
    value = " ".join(str(value).split())
    fence = "`" * (max((len(run) for run in re.findall("`+", value)), default=0) + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def fenced(value, language):
    """A fenced block that no line of `value` can close."""
    longest = max((len(run) for run in re.findall("`+", value)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{language}", value, fence]


def counted(count, noun):
    """`1 error`, `3 errors`, `no errors`."""
    if count == 0:
        return f"no {noun}s"
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


# Errors first: the finding that failed the step is never cut off below warnings.
RANK = {"error": 0, "warning": 1, "note": 2, "none": 3}


def moves(check):
    """The comment moves of an idem check, one Markdown line each."""
    lines = []
    for move in check.get("comment_moves", []):
        before = code(move["from"]) if move.get("from") else "no key"
        after = code(move["to"]) if move.get("to") else "no key"
        lines.append(
            f"  - comment {code(move.get('text', ''))} in {code(move.get('file', ''))}"
            f" documented {before}, now {after}"
        )
    return lines


class NoCheck(Exception):
    """The action ran another command than `tether check`: there is no SARIF."""


def main():
    sarif_path, idem_path = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""
    # What kept tether from checking (a broken tether.toml): SARIF's tool execution
    # notifications. No SARIF at all is such a failure too, never "no findings".
    command = os.environ.get("TETHER_COMMAND", "check")
    try:
        if not sarif_path:
            raise NoCheck()
        with open(sarif_path, encoding="utf-8") as handle:
            run = json.load(handle)["runs"][0]
        results = run["results"]
        failures = [
            notification
            for invocation in run.get("invocations", [])
            for notification in invocation.get("toolExecutionNotifications", [])
        ]
    except NoCheck:
        results, failures = [], []
    except (OSError, ValueError, KeyError, IndexError):
        results = []
        failures = [{"message": {"text": "tether wrote no SARIF; see the step's log"}}]
    levels = Counter(result["level"] for result in results)
    levels["error"] += len(failures)
    rules = Counter(result["ruleId"] for result in results)
    server = os.environ.get("GITHUB_SERVER_URL", "https://github.com")
    repository = os.environ.get("GITHUB_REPOSITORY", "")
    sha = os.environ.get("GITHUB_SHA", "")
    out = ["## tether", ""]
    for failure in failures:
        where = ""
        for location in failure.get("locations", [])[:1]:
            physical = location.get("physicalLocation", {})
            path = physical.get("artifactLocation", {}).get("uri", "")
            line = physical.get("region", {}).get("startLine", "")
            where = f" at {code(f'{path}:{line}')}"
        message = failure.get("message", {}).get("text", "")
        out.append(f"- **tether could not check**{where}: {text(message)}")
    if failures:
        out.append("")
    if command != "check":
        status = os.environ.get("TETHER_STATUS", "")
        outcome = "passed" if status == "0" else f"exited {status}: see its annotations and log"
        out.append(f"{code('tether ' + command)} {text(outcome)}.")
    elif not results and not failures:
        out.append("No findings.")
    elif not results:
        out.append("No findings in what was checked.")
    else:
        found = f"{counted(levels['error'], 'error')} and {counted(levels['warning'], 'warning')}."
        out.append(found[0].upper() + found[1:])
        out += ["", "| rule | findings |", "|---|--:|"]
        out += [f"| `{rule}` | {count} |" for rule, count in sorted(rules.items())]
        ordered = sorted(results, key=lambda result: RANK.get(result.get("level"), 4))
        if len(ordered) > FIRST:
            out += ["", f"The first {FIRST} of {len(ordered)}, errors first:", ""]
        else:
            out += [""]
        for result in ordered[:FIRST]:
            location = result["locations"][0]["physicalLocation"]
            path = location["artifactLocation"]["uri"]
            line = location["region"]["startLine"]
            message = text(result["message"]["text"].split("\n")[0])
            where = text(f"{path}:{line}")
            if repository and sha:
                # The SARIF uri is percent-encoded already; parentheses and spaces
                # are encoded too, so the link target cannot end early.
                target = quote(path, safe="/%")
                where = f"[{where}]({server}/{repository}/blob/{sha}/{target}#L{line})"
            out.append(f"- **{text(result['level'])}** {code(result['ruleId'])} {where}: {message}")
    if idem_path:
        out += ["", "### tether idem", ""]
        try:
            with open(idem_path, encoding="utf-8") as handle:
                report = json.load(handle)
        except (OSError, ValueError):
            report = {"targets": []}
            out.append("`tether idem` printed no report; see the step's log.")
        if report.get("note"):
            out.append(text(report["note"]))
        for target in report.get("targets", []):
            for check in target.get("checks", []):
                mark = "passed" if check.get("ok") else "FAILED"
                mutant = f" {code(check['mutant'])}" if check.get("mutant") else ""
                kind = text(check.get("kind"))
                out.append(f"- {mark}: {kind}{mutant} in {code(target.get('dir'))}")
                if not check.get("ok") and check.get("message"):
                    out.append(f"  - {text(check['message'])}")
                out += moves(check)
                if not check.get("ok") and check.get("diff"):
                    out += ["", "<details><summary>diff</summary>", ""]
                    out += fenced(check["diff"].rstrip(), "diff")
                    out += ["", "</details>", ""]
    print("\n".join(out))
    with os.fdopen(3, "w") as outputs:
        outputs.write(f"errors={levels['error']}\nwarnings={levels['warning']}\n")


if __name__ == "__main__":
    main()
