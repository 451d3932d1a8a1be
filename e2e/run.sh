#!/usr/bin/env bash
# Installs playwright-core (pinned in package-lock.json) into OUT_DIR and runs
# the browser tests there. Usage: e2e/run.sh ERRDEX_BINARY OUT_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# Absolute: the tests run from OUT_DIR.
errdex=$(realpath "$1")
out=$(realpath -m "$2")
[ -x /usr/bin/chromium ] || { echo "e2e: /usr/bin/chromium is missing: apt-get install chromium" >&2; exit 1; }
mkdir -p "$out"
if ! cmp -s "$here/package-lock.json" "$out/package-lock.json" || [ ! -d "$out/node_modules/playwright-core" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$here/.npmrc" "$out/"
  (cd "$out" && npm ci --ignore-scripts --no-audit --no-fund >/dev/null)
fi
cp "$here/search.test.mjs" "$out/"
cd "$out" && exec node search.test.mjs "$errdex" "$(dirname "$here")" "$out/screenshots"
