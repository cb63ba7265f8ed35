#!/usr/bin/env bash
# The install step of action.yml: puts `tether` in $TETHER_BIN. A tether already on
# PATH is used as it is; else a release binary for this runner, when the release has
# one; else `cargo install --locked` from the action's own checkout (its ref).
set -euo pipefail
mkdir -p "$TETHER_BIN"
if [ -x "$TETHER_BIN/tether" ]; then
  exit 0
fi
if existing=$(command -v tether); then
  cp "$existing" "$TETHER_BIN/tether"
  exit 0
fi
if [ -n "${TETHER_VERSION:-}" ] && [ -n "${TETHER_REPOSITORY:-}" ] && [ "$(uname -s)" = Linux ]; then
  archive="tether-$(uname -m)-unknown-linux-gnu.tar.gz"
  url="https://github.com/$TETHER_REPOSITORY/releases/download/$TETHER_VERSION/$archive"
  if curl -fsSL "$url" -o "$TETHER_BIN/$archive" 2>/dev/null; then
    tar -xzf "$TETHER_BIN/$archive" -C "$TETHER_BIN" tether && rm -f "$TETHER_BIN/$archive"
    exit 0
  fi
  echo "no release binary at $url; building tether from source"
fi
cargo install --locked --quiet --root "$TETHER_BIN/cargo" --path "$TETHER_SOURCE"
cp "$TETHER_BIN/cargo/bin/tether" "$TETHER_BIN/tether"
