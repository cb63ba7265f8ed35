#!/usr/bin/env bash
# Lays out the real-chart corpus that `cargo xtask ci` requires with CI=true (the
# corpus tests and `cargo xtask precision --check`) at DEST, by default
# `../shared/corpus` beside the checkout: five public chart repositories at pinned
# commits, each in a folder of its name, with only the files the corpus keeps
# (CONTRIBUTING.md, "The corpus"):
#
# - cozystack: the `*.yaml`, `*.yml` and `*.tpl` files under `packages/`;
# - the others: under their chart folders, those and `*.gotmpl`, `.helmignore`,
#   `Makefile` and (but in the k8s-at-home pair, whose READMEs a fork of helm-docs
#   wrote) `README.md`; argo-helm also its `.github/configs/lintconf.yaml` and
#   `ct-lint.yaml`;
# - each repository's LICENSE.
#
#   corpus.sh [DEST]
#
# Each folder must then hold exactly the files the precision page was judged on: its
# file count and a hash of its `sha256sum` listing are pinned below, and a mismatch
# fails with both counts. A folder already there (a restored cache) is only checked,
# never replaced. Only the pinned commit of each repository is fetched, with the
# blobs of the kept folders alone (a shallow, partial, sparse git fetch).
#
# CORPUS_GIT_BASE replaces https://github.com (the tests fetch from local
# repositories).
set -euo pipefail
dest="${1:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/corpus}"
base="${CORPUS_GIT_BASE:-https://github.com}"

# folder | repository | commit | kept folders | README.md kept | files kept by name | files | hash
corpora=(
  "cozystack|cozystack/cozystack|3c780acd417f086f8f18d040d0d7020ff55d3ba3|packages|no||2904|17dc05fca7fee3644f14833f48be85398e7c57c993bbb9d3fcbdceb289d1698c"
  "prometheus-community|prometheus-community/helm-charts|cf408a290aec489277a94450bb3511432477a53a|charts|yes||1014|73cd5a1286bbc5a7649892604ea49c3e366aa68d5f4f5a8e24501e71945ebd5c"
  "argo-helm|argoproj/argo-helm|af0a9310bacbaa4636018dfe22c801a6d33a5c43|charts|yes|.github/configs/lintconf.yaml .github/configs/ct-lint.yaml|319|7b5fcee6af30edda8d904787ca3d014d497b7c0c58e2de7663d2fc398cd12559"
  "k8s-at-home-charts|k8s-at-home/charts|2463dec153a8c2eaf9c6783ce0cd5a3502f5dfb5|charts|no||944|ab326b4de735b2d3ef81dd41f715798533a79e0aaf03be1ee6b2ce33bd30a4df"
  "k8s-at-home-library-charts|k8s-at-home/library-charts|1b8b81ceb368e378c01aaf826142cfd948a93042|charts helper-charts|no||101|d9b945bb521495dca4eed32c6f204d4a6574b41d74f9eff2dd961884c9529570"
)

# The file count and the hash of the `sha256sum` listing of a folder's files.
fingerprint() {
  local count hash
  count=$(cd "$1" && find . -type f | wc -l)
  hash=$(cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum | sha256sum | cut -c1-64)
  echo "$((count)) $hash"
}

mkdir -p "$dest"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
for corpus in "${corpora[@]}"; do
  IFS='|' read -r folder repository commit kept readme extra files hash <<<"$corpus"
  read -r -a folders <<<"$kept"
  read -r -a extras <<<"$extra"
  out="$dest/$folder"
  if [ -d "$out" ]; then
    got=$(fingerprint "$out")
    if [ "$got" = "$files $hash" ]; then
      echo "corpus: $folder is laid out ($files files)"
    else
      # Never removed here: it may be a corpus of someone's own.
      echo "::error title=corpus::$out holds ${got%% *} files hashing to ${got#* }, not the pinned $files files hashing to $hash; remove it to lay it out again"
      failed=1
    fi
    continue
  fi
  src="$work/$folder"
  git init --quiet "$src"
  git -C "$src" remote add origin "$base/$repository"
  # Cone mode: the kept folders, the folders of the files kept by name, and the files
  # at the top (LICENSE).
  git -C "$src" sparse-checkout set "${folders[@]}" "${extras[@]%/*}"
  git -C "$src" fetch --quiet --depth 1 --filter=blob:none origin "$commit"
  git -C "$src" -c advice.detachedHead=false checkout --quiet FETCH_HEAD
  if [ "$folder" = cozystack ]; then
    names=(-name '*.yaml' -o -name '*.yml' -o -name '*.tpl')
  else
    names=(-name '*.yaml' -o -name '*.yml' -o -name '*.tpl' -o -name '*.gotmpl'
      -o -name .helmignore -o -name Makefile)
    if [ "$readme" = yes ]; then
      names+=(-o -name README.md)
    fi
  fi
  mkdir -p "$out"
  (
    cd "$src"
    find "${folders[@]}" -type f \( "${names[@]}" \) -print0 | xargs -0 -r cp --parents -t "$out"
    cp --parents -t "$out" LICENSE "${extras[@]}"
  )
  rm -rf "$src"
  got=$(fingerprint "$out")
  if [ "$got" != "$files $hash" ]; then
    echo "::error title=corpus::$folder ($repository at $commit) laid out ${got%% *} files hashing to ${got#* }; the corpus the precision page was judged on has $files files hashing to $hash"
    failed=1
    continue
  fi
  echo "corpus: $folder laid out from $repository at ${commit:0:7} ($files files)"
done
exit "$failed"
