#!/usr/bin/env bash
# The first step of action.yml: which tether to install, and the cache key of that
# binary. Writes `version` (a release tag, or empty: build from source) and `key` to
# $GITHUB_OUTPUT.
#
# - `version` input, else the action's own ref when it is a release tag (`@v0.1.0`):
#   that release's binary, cached under the tag.
# - `build-from-source: true`, or a ref that is no release (`@main`, a commit): a
#   build from the action's checkout, cached under a hash of that checkout's sources,
#   so a new commit on the branch is a new key (never the first binary forever).
#
# The `version` input is checked before anything uses or prints it: a release tag
# (v1.2.3, v1.2.3-rc.1) or nothing. Anything else fails the step with an error whose
# text is escaped, so a newline in the input cannot print a workflow command.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
version="${TETHER_VERSION_INPUT:-}"
if [ -n "$version" ] && ! is_release_tag "$version"; then
  say_error "the version input '$version' is not a release tag: write vMAJOR.MINOR.PATCH (v0.1.0), or leave it empty"
  exit 2
fi
if [ -z "$version" ] && is_release_tag "${TETHER_ACTION_REF:-}"; then
  version="$TETHER_ACTION_REF"
fi
# sha256sum where coreutils has it (Linux, Git Bash), shasum on macOS.
sha256() {
  if command -v sha256sum >/dev/null; then
    sha256sum "$@"
  else
    shasum -a 256 "$@"
  fi
}
if [ "${TETHER_BUILD_FROM_SOURCE:-false}" = true ] || [ -z "$version" ]; then
  # Everything the build reads: the manifests, the lock file, the code and queries.
  sources=$(cd "$TETHER_SOURCE" && find Cargo.toml Cargo.lock build.rs src queries -type f \
    | LC_ALL=C sort | while IFS= read -r file; do sha256 "$file"; done | sha256 | cut -c1-16)
  echo "version=" >> "$GITHUB_OUTPUT"
  echo "key=source-$sources" >> "$GITHUB_OUTPUT"
else
  echo "version=$version" >> "$GITHUB_OUTPUT"
  echo "key=release-$version" >> "$GITHUB_OUTPUT"
fi
