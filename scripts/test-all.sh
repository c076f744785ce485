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
# The whole plan runs through scripts/test-run.mjs: the static checks and
# every test file of every suite, in one pool of as many jobs as the machine
# has cores (CMS_TEST_JOBS to change it; up to two more while those running leave a core idle,
# CMS_TEST_FILL=0 to keep to that number), longest first. Each suite prints its
# block (failures with tap's diagnostics, skips, counts, time) when its last
# file is done; every file's log is kept under the logs directory.
plan=()

# Every package's sources and tests in one compiler run (tsconfig.typecheck.json, the
# packages' shared options): each file is checked once, where a run per package
# checked the core's sources again for every package that imports it (17 s, not 165).
# The checks keep their tools' caches between runs on a machine (in the temporary directory, per user): a
# re-run reads again only what changed (tsc's build info; ESLint's and knip's caches, by content).
CACHE="${TMPDIR:-/tmp}/cms-check-cache-$(id -u)"
plan+=("check typecheck npx tsc -p tsconfig.typecheck.json --incremental --tsBuildInfoFile $CACHE/tsc.tsbuildinfo")
# One code style (neostandard, eslint.config.js) and nothing unused (knip.json): one check each.
plan+=("check eslint npx eslint --cache --cache-strategy content --cache-location $CACHE/eslint/ .")
plan+=("check knip npx knip --no-progress --cache --cache-location $CACHE/knip")
# No import cycle in any package's sources, between files or between folders (scripts/folder-cycles.mjs;
# type-only imports count, a cycle of types still ties the modules together): the seams hold. A cycle of
# files is one of the nodes of the folder holding them all, so this one check finds both (madge ran as a
# second check of the file cycles alone: 13 s of CPU in the cold run for nothing more).
plan+=("check folder-cycles node scripts/folder-cycles.mjs")

have_postgres() { command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; }

failed_here=0
url=""
if have_postgres; then
  if url="$(scripts/pg-test-server.sh start)"; then
    trap 'scripts/pg-test-server.sh stop "$url" >/dev/null 2>&1 || true' EXIT
    echo "PostgreSQL test server: $url"
  else
    echo "PostgreSQL test server failed to start"; failed_here=$((failed_here + 1)); url=""
  fi
elif [ "${CI:-}" = "true" ]; then
  echo "PostgreSQL server binaries are missing in CI"; failed_here=$((failed_here + 1))
fi

# The PostgreSQL suites are planned first: a file marked `test-all: first pass only` runs in the first
# suite of its package, and the store's lost-connection test then uses this server instead of starting
# (initdb) one of its own.
if [ -n "$url" ]; then
  for dir in "${DB_PACKAGES[@]}"; do plan+=("suite $dir postgres CMS_TEST_DATABASE_URL=$url"); done
  plan+=("suite bench postgres CMS_TEST_DATABASE_URL=$url")
elif ! have_postgres; then
  echo "(PostgreSQL binaries not found: database suites ran on PGlite only)"
fi
if have_postgres && [ "${CMS_TEST_BOTH:-}" != 1 ]; then
  plan+=("suite packages/rest pglite CMS_TEST_DATABASE_URL=")
  plan+=("suite packages/store pglite CMS_TEST_DATABASE_URL=")
else
  for dir in "${PACKAGES[@]}"; do plan+=("suite $dir pglite CMS_TEST_DATABASE_URL="); done
fi

started=$SECONDS
printf '%s\n' "${plan[@]}" | node scripts/test-run.mjs --logs "$LOG_DIR"
runner=$?
if [ -n "$url" ]; then
  scripts/pg-test-server.sh stop "$url" >/dev/null 2>&1 || true
  trap - EXIT
fi

read -r passed failed skipped < "$LOG_DIR/totals" 2>/dev/null || { passed=0; failed=0; skipped=0; }
# A runner that did not finish counted nothing it could vouch for.
if [ "$runner" -ne 0 ] || [ ! -s "$LOG_DIR/totals" ]; then failed=$((failed + 1)); fi
failed=$((failed + failed_here))
echo "logs: $LOG_DIR"
echo "whole run: $((SECONDS - started)) s on $(nproc) cores"
echo "$passed passed, $failed failed$([ "$skipped" -gt 0 ] && echo ", $skipped skipped")"
[ "$failed" -eq 0 ]
