#!/usr/bin/env bash
# The gateway's HTTP suites (conformance, the permission matrix, the fuzz quick
# profile) against the split-b topology started by scripts/topology.sh, as they
# run against one process in `pnpm test`. Always stops the topology. Ends with
# one line "N passed, M failed" (the assertions of the three files).
#
#   scripts/split-suite.sh
set -uo pipefail
cd "$(dirname "$0")/.."
LOG_DIR="$(mktemp -d "${TMPDIR:-/tmp}/cms-split-suite.XXXXXX")"
trap 'scripts/topology.sh down split-b >/dev/null 2>&1 || true' EXIT

# The suites send thousands of requests from one address, as no real client
# does: the topology runs with rate limits off (docs/guides/rate-limits.md),
# from the Compose secrets file plus that one setting.
secrets="$LOG_DIR/secrets.env"
cat "${CMS_SECRETS_FILE:-deploy/secrets.example.env}" > "$secrets"
printf '\nCMS_RATE_LIMITS=off\n' >> "$secrets"
export CMS_SECRETS_FILE="$secrets"

if ! scripts/topology.sh up split-b >"$LOG_DIR/up.log" 2>&1; then
  cat "$LOG_DIR/up.log"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "split-b up at $(tail -1 "$LOG_DIR/up.log")"
# shellcheck disable=SC2046
export $(scripts/topology.sh env split-b | xargs)

passed=0
failed=0
# One after another (they share the topology's database), each as scripts/test-run.mjs runs a file: node
# with the test loader (the workspace compiled, built by `topology.sh up`), no tap runner around it.
for file in conformance permissions fuzz; do
  log="$LOG_DIR/$file.log"
  (cd apps/gateway && TAP_TIMEOUT=480 node --import="$PWD/../../scripts/test-loader.mjs" "test/$file.test.ts") >"$log" 2>&1
  status=$?
  summary="$(grep -a -E '^# \{ total: [0-9]+' "$log" | tail -1)"
  p="$(sed -nE 's/.*pass: ([0-9]+).*/\1/p' <<<"$summary")"; p="${p:-0}"
  f="$(sed -nE 's/.*fail: ([0-9]+).*/\1/p' <<<"$summary")"; f="${f:-0}"
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  grep -a -E '^\s*not ok|# FAIL' "$log" | head -20
  echo "== split-b $file: $p passed, $f failed"
  passed=$((passed + p)); failed=$((failed + f))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
