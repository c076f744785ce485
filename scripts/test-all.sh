#!/usr/bin/env bash
# Runs every test suite. Where the PostgreSQL 15 binaries are installed
# (always in CI) the database suites run on a throwaway PostgreSQL server and
# only the store's own suite also runs on the embedded database (PGlite); the
# suites that start the service without DATABASE_URL use PGlite in either
# case. Without the binaries every suite runs on PGlite.
# CMS_TEST_BOTH=1 runs every database suite on both.
# Ends with one line "N passed, M failed" (", K skipped" added when a test was
# skipped; each skip's reason is printed above it: the browser test skips
# where Chromium is not installed, except under CI=true).
#
#   npx -y pnpm@10.34.8 install --frozen-lockfile && npx -y pnpm@10.34.8 test
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
# A directory of this run's own: a fixed one left by another user (or another
# run) could not be written, and its old logs would be counted.
LOG_DIR="$(mktemp -d "${TMPDIR:-/tmp}/cms-test-logs.XXXXXX")"

# Every extension package under packages/ is found, so adding one needs no edit here.
EXTENSIONS=()
for dir in packages/*/; do
  dir="${dir%/}"
  case "$dir" in packages/rest|packages/store|packages/core|packages/testing) ;; *) EXTENSIONS+=("$dir") ;; esac
done
PACKAGES=(packages/rest packages/store packages/core "${EXTENSIONS[@]}" apps/cli apps/gateway)
DB_PACKAGES=(packages/store packages/core "${EXTENSIONS[@]}" apps/cli apps/gateway)
passed=0
failed=0
skipped=0

# Adds the assertion counts of one tap run to the totals.
count() {
  local log="$1" status="$2" summary p f s
  summary="$(grep -a -E '^# \{ total: [0-9]+' "$log" | tail -1)"
  p="$(sed -nE 's/.*pass: ([0-9]+).*/\1/p' <<<"$summary")"
  f="$(sed -nE 's/.*fail: ([0-9]+).*/\1/p' <<<"$summary")"
  s="$(sed -nE 's/.*skip: ([0-9]+).*/\1/p' <<<"$summary")"
  p="${p:-0}"; f="${f:-0}"; s="${s:-0}"
  skipped=$((skipped + s))
  # A run that crashed or counted nothing is a failure, whatever it printed.
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if [ -z "$summary" ]; then f=$((f > 0 ? f : 1)); fi
  passed=$((passed + p)); failed=$((failed + f))
  echo "  -> $p passed, $f failed$([ "$s" -gt 0 ] && echo ", $s skipped")"
}

suite() {
  local dir="$1" label="$2"; shift 2
  local log="$LOG_DIR/$(echo "$dir-$label" | tr '/' '_').log"
  echo "== $dir ($label)"
  if [ ! -d "$ROOT/$dir/test" ] || [ -z "$(ls "$ROOT/$dir/test"/*.test.ts 2>/dev/null)" ]; then
    echo "  (no tests)"; return
  fi
  local started=$SECONDS
  (cd "$ROOT/$dir" && env "$@" npx tap --reporter=tap) >"$log" 2>&1
  local status=$?
  grep -a -E '^\s*not ok' "$log" | head -40
  grep -a -E '^\s*ok .*# SKIP' "$log" | sed -E 's/^\s*ok [0-9]+ - (.*) # SKIP ?(.*)$/  skipped: \1 (\2)/' | head -20
  count "$log" "$status"
  echo "  ($((SECONDS - started)) s)"
}

# Every package's sources and tests in one compiler run (tsconfig.typecheck.json, the
# packages' shared options): each file is checked once, where a run per package
# checked the core's sources again for every package that imports it (17 s, not 165).
typecheck() {
  echo "== typecheck"
  if (cd "$ROOT" && npx tsc -p tsconfig.typecheck.json) >"$LOG_DIR/tsc.log" 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); grep -v '^npm warn' "$LOG_DIR/tsc.log" | head -40
  fi
}

# One code style (neostandard, eslint.config.js), nothing unused (knip.json) and no
# import cycle in any package's sources (madge; type-only imports count, a cycle of
# types still ties the modules together): one check each.
lint() {
  echo "== lint"
  local check
  for check in eslint knip madge; do
    local args=(.)
    case "$check" in
      knip) args=(--no-progress) ;;
      madge) args=(--circular --no-spinner --extensions ts $(cd "$ROOT" && ls -d packages/*/src apps/*/src bench/src 2>/dev/null)) ;;
    esac
    if (cd "$ROOT" && npx "$check" "${args[@]}") >"$LOG_DIR/$check.log" 2>&1; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1)); echo "  $check:"; head -30 "$LOG_DIR/$check.log"
    fi
  done
}

have_postgres() { command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; }

typecheck
lint
if have_postgres && [ "${CMS_TEST_BOTH:-}" != 1 ]; then
  suite packages/rest pglite CMS_TEST_DATABASE_URL=
  suite packages/store pglite CMS_TEST_DATABASE_URL=
else
  for dir in "${PACKAGES[@]}"; do suite "$dir" pglite CMS_TEST_DATABASE_URL=; done
fi

if have_postgres; then
  if url="$(scripts/pg-test-server.sh start)"; then
    trap 'scripts/pg-test-server.sh stop "$url" >/dev/null 2>&1 || true' EXIT
    echo "PostgreSQL test server: $url"
    for dir in "${DB_PACKAGES[@]}"; do suite "$dir" postgres CMS_TEST_DATABASE_URL="$url"; done
    suite bench postgres CMS_TEST_DATABASE_URL="$url"
    scripts/pg-test-server.sh stop "$url" >/dev/null 2>&1 || true
    trap - EXIT
  else
    echo "PostgreSQL test server failed to start"; failed=$((failed + 1))
  fi
elif [ "${CI:-}" = "true" ]; then
  echo "PostgreSQL server binaries are missing in CI"; failed=$((failed + 1))
else
  echo "(PostgreSQL binaries not found: database suites ran on PGlite only)"
fi

echo "logs: $LOG_DIR"
echo "$passed passed, $failed failed$([ "$skipped" -gt 0 ] && echo ", $skipped skipped")"
[ "$failed" -eq 0 ]
