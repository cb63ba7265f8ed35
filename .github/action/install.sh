#!/usr/bin/env bash
# The install step of action.yml: puts `tether` in $TETHER_BIN.
#
# - A tether already on PATH is used as it is (a self-hosted runner's own).
# - With a release `TETHER_VERSION`: that release's archive for this runner, checked
#   against the release's SHA-256 checksum before anything is unpacked; a mismatch
#   fails the step. A release without an archive for this runner falls back to a
#   build, said as a warning on the run (why, and that it takes minutes).
# - Otherwise (`build-from-source`, a branch or a commit): `cargo install --locked`
#   from the action's own checkout, said as a notice. cargo's progress is shown.
#
# Only the archive's own binary is installed: `tether-TARGET/tether` (`tether.exe`)
# must be a regular file in a real folder. A link there (to /etc/passwd, say) fails
# the step rather than installing a copy of what it points at.
#
# TETHER_RELEASES_URL replaces https://github.com/REPOSITORY/releases/download (the
# tests serve archives from a folder).
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
mkdir -p "$TETHER_BIN"
if [ -x "$TETHER_BIN/tether" ] || [ -x "$TETHER_BIN/tether.exe" ]; then
  exit 0
fi
if existing=$(command -v tether); then
  echo "using the tether on PATH: $existing ($("$existing" --version))"
  cp "$existing" "$TETHER_BIN/"
  exit 0
fi

# The release target of this runner.
target=""
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) target=x86_64-unknown-linux-musl ;;
  Linux-aarch64 | Linux-arm64) target=aarch64-unknown-linux-musl ;;
  Darwin-x86_64) target=x86_64-apple-darwin ;;
  Darwin-arm64) target=aarch64-apple-darwin ;;
  MINGW*-x86_64 | MSYS*-x86_64 | CYGWIN*-x86_64) target=x86_64-pc-windows-msvc ;;
esac

# The resolve step let only a release tag through; checked again before it is used.
if [ -n "${TETHER_VERSION:-}" ] && ! is_release_tag "$TETHER_VERSION"; then
  say_error "the version '$TETHER_VERSION' is not a release tag (vMAJOR.MINOR.PATCH); refusing to download it"
  exit 2
fi
why=""
if [ -n "${TETHER_VERSION:-}" ] && [ -z "$target" ]; then
  why="release $TETHER_VERSION has no archive for this platform ($(uname -s) $(uname -m))"
fi
if [ -n "${TETHER_VERSION:-}" ] && [ -n "$target" ]; then
  base="${TETHER_RELEASES_URL:-https://github.com/${TETHER_REPOSITORY:-cozystack/tether}/releases/download}"
  suffix=tar.gz
  [[ "$target" == *windows* ]] && suffix=zip
  archive="tether-$target.$suffix"
  url="$base/$TETHER_VERSION/$archive"
  download=$(mktemp -d)
  trap 'rm -rf "$download"' EXIT
  if curl -fsSL --retry 3 "$url" -o "$download/$archive"; then
    if ! curl -fsSL --retry 3 "$url.sha256" -o "$download/$archive.sha256"; then
      echo "::error title=tether::$url has no checksum ($archive.sha256); refusing to install it"
      exit 1
    fi
    expected=$(cut -d' ' -f1 < "$download/$archive.sha256")
    if command -v sha256sum >/dev/null; then
      actual=$(sha256sum "$download/$archive" | cut -d' ' -f1)
    else
      actual=$(shasum -a 256 "$download/$archive" | cut -d' ' -f1)
    fi
    if [ -z "$expected" ] || [ "$expected" != "$actual" ]; then
      echo "::error title=tether::checksum mismatch for $url: expected ${expected:-nothing}, got $actual; refusing to install it"
      exit 1
    fi
    if [ "$suffix" = zip ]; then
      if command -v unzip >/dev/null; then
        unzip -q "$download/$archive" -d "$download"
      else
        powershell -NoProfile -Command "Expand-Archive -LiteralPath '$download/$archive' -DestinationPath '$download'"
      fi
    else
      tar -xzf "$download/$archive" -C "$download"
    fi
    binary=tether
    [ "$suffix" = zip ] && binary=tether.exe
    unpacked="$download/tether-$target"
    if [ -L "$unpacked" ] || [ ! -d "$unpacked" ] || [ -L "$unpacked/$binary" ] || [ ! -f "$unpacked/$binary" ]; then
      say_error "$archive from $url has no regular file tether-$target/$binary (it is missing, a link or not a file); refusing to install it"
      exit 1
    fi
    cp "$unpacked/$binary" "$TETHER_BIN/$binary"
    echo "installed tether $TETHER_VERSION ($target) from $url"
    exit 0
  fi
  why="no release archive at $url (release $TETHER_VERSION has no $archive for this runner, or it cannot be downloaded)"
fi
if [ -n "$why" ]; then
  echo "::warning title=tether is built from source::$why; building tether from source with cargo install instead, which takes several minutes"
else
  echo "::notice title=tether is built from source::no release version asked (build-from-source, or the action's ref is a branch or commit); building tether from source with cargo install, which takes several minutes"
fi
cargo install --locked --root "$TETHER_BIN/cargo" --path "$TETHER_SOURCE"
cp "$TETHER_BIN/cargo/bin/"tether* "$TETHER_BIN/"
