#!/usr/bin/env bash
# The `pre-commit` job of release.yml: makes the hook repository's default branch hold
# exactly the files of SOURCE (this repository's `pre-commit/`), commits that as
# "tether TAG" and tags the commit TAG, then pushes both.
#
#   hook-repository.sh SOURCE
#
# Environment:
# - TAG: the release's tag (v0.1.0); `version` in SOURCE/pyproject.toml must be it
#   without the `v`, since the hooks install the wheel of that version;
# - HOOKS: the hook repository (cozystack/tether-pre-commit);
# - PRE_COMMIT_DEPLOY_KEY: the private half of a deploy key with write access to it;
# - HOOKS_URL: where to clone and push instead of git@github.com:HOOKS.git (the
#   tests push to a local bare repository; no key is needed then).
#
# A re-run of the release is no failure: a TAG already in the hook repository with
# the same files passes with a notice; with other files it fails (a tag never moves).
set -euo pipefail
source_dir=$(cd "${1:?usage: hook-repository.sh SOURCE}" && pwd)
: "${TAG:?TAG is the release tag}"

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$source_dir/pyproject.toml")
if [ "v$version" != "$TAG" ]; then
  echo "::error title=hook repository::$source_dir/pyproject.toml has version '$version', not the tag $TAG"
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
url="${HOOKS_URL:-}"
if [ -z "$url" ]; then
  : "${HOOKS:?HOOKS is the hook repository (owner/name)}"
  : "${PRE_COMMIT_DEPLOY_KEY:?PRE_COMMIT_DEPLOY_KEY is the deploy key}"
  url="git@github.com:$HOOKS.git"
  printf '%s\n' "$PRE_COMMIT_DEPLOY_KEY" >"$work/key"
  chmod 600 "$work/key"
  # GitHub's published host key (docs: "GitHub's SSH key fingerprints"), not a scan.
  echo "github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl" \
    >"$work/known_hosts"
  export GIT_SSH_COMMAND="ssh -i $work/key -o IdentitiesOnly=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=$work/known_hosts"
fi

if ! git clone --quiet "$url" "$work/hooks"; then
  echo "::error title=hook repository::cannot clone $url"
  exit 1
fi
cd "$work/hooks"
git config user.name "github-actions[bot]"
git config user.email "41898282+github-actions[bot]@users.noreply.github.com"
# The branch the hook repository's HEAD names (its default branch), new or not.
branch=$(git ls-remote --symref origin HEAD | sed -n 's|^ref: refs/heads/\(.*\)\tHEAD$|\1|p')
branch=${branch:-main}
if git rev-parse -q --verify "refs/remotes/origin/$branch" >/dev/null; then
  git checkout --quiet -B "$branch" "origin/$branch"
else
  git symbolic-ref HEAD "refs/heads/$branch"
fi

# Exactly the files of SOURCE.
git rm -rq --ignore-unmatch -- .
cp -R "$source_dir/." .
git add -A
tree=$(git write-tree)

if git ls-remote --exit-code --tags origin "refs/tags/$TAG" >/dev/null; then
  git fetch --quiet origin "refs/tags/$TAG:refs/tags/$TAG"
  if [ "$(git rev-parse "$TAG^{tree}")" = "$tree" ]; then
    echo "::notice title=hook repository::$TAG is already in $url with these files"
    exit 0
  fi
  echo "::error title=hook repository::$TAG is already in $url with other files; a tag never moves"
  exit 1
fi

if git diff --cached --quiet 2>/dev/null && git rev-parse -q --verify HEAD >/dev/null; then
  echo "the hook repository's $branch already holds these files; tagging it"
else
  git commit --quiet -m "tether $TAG"
fi
git tag -a "$TAG" -m "tether $TAG"
git push --quiet --atomic origin "HEAD:refs/heads/$branch" "refs/tags/$TAG"
echo "$url: $branch at $(git rev-parse --short HEAD), tagged $TAG"
