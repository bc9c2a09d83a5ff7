#!/usr/bin/env bash
# What the test suite needs beyond npm: a Chromium for the viewer's browser tests (playwright-core drives it
# and never downloads one), zsh for the completion test and man for the manual page's. Installed from Debian's packages when missing
# and we may (root, or sudo without a password); otherwise it says what to install. Nothing else is touched.
# Then promptfoo and the Node 22 it runs on, from the npm registry into a cache (scripts/test-promptfoo.mjs),
# so that one-time install is not timed inside a test; and the OpenTelemetry receivers and Inspect AI the
# e2e tests export into (Arize Phoenix and Inspect AI from PyPI, Jaeger v2 and a Collector built from the Go
# module proxy), into the same cache by scripts/test-receivers.mjs: about 10 minutes once on two cores.
set -euo pipefail
node "$(dirname "$0")/test-promptfoo.mjs" >/dev/null
node "$(dirname "$0")/test-receivers.mjs" >/dev/null
chromium=${TAPEDECK_CHROMIUM:-/usr/bin/chromium}
missing=()
[ -x "$chromium" ] || missing+=(chromium)
command -v zsh >/dev/null || missing+=(zsh)
# man: the packed install's manual page is looked up as a user would (man -w tapedeck).
command -v man >/dev/null || missing+=(man-db)
[ ${#missing[@]} -eq 0 ] && exit 0
if command -v apt-get >/dev/null; then
  run=()
  if [ "$(id -u)" -ne 0 ]; then
    if sudo -n true 2>/dev/null; then run=(sudo -n); else
      echo "the tests need: ${missing[*]}. Install them: sudo apt-get install -y ${missing[*]}" >&2
      exit 1
    fi
  fi
  echo "installing the tests' prerequisites from Debian's packages: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  "${run[@]}" apt-get update -qq
  "${run[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "the tests need: ${missing[*]}. On macOS: brew install --cask chromium, then TAPEDECK_CHROMIUM=\"/Applications/Chromium.app/Contents/MacOS/Chromium\" (zsh ships with macOS)" >&2
exit 1
