#!/usr/bin/env bash
# The long profiles of the reliability harness (apps/gateway/test/harness).
#
#   bench/reliability/run.sh fuzz [RUNS]              # schema-driven bad input, RUNS per profile (default 50000: 100000 in all)
#   bench/reliability/run.sh load [CLIENTS] [SECONDS] # load + consistency check (default 100 clients, 60 s)
#   bench/reliability/run.sh fault                    # PostgreSQL outage under load
#   bench/reliability/run.sh adversarial [PER_PROBE]  # megabyte adversarial strings to every route that takes a string (default 3 per probe; `all`; `sample`: one probe per route family)
#   bench/reliability/run.sh stall [ONLY_REGEX]       # the work-maximising input to every route; /healthz and cached-read latency beside it
#
# `load` and `stall` run on the PostgreSQL server named by CMS_TEST_DATABASE_URL, else
# on a throwaway one started with scripts/pg-test-server.sh (when its
# binaries are installed), else on PGlite. Figures are printed as TAP
# comments; docs/reliability.md records the last run.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
what="${1:-}"; shift || true

with_postgres() {
  if [ -n "${CMS_TEST_DATABASE_URL:-}" ]; then "$@"; return; fi
  if command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    export PG_TEST_DIR="${TMPDIR:-/tmp}/cms-pg-bench-$$"
    CMS_TEST_DATABASE_URL="$("$ROOT/scripts/pg-test-server.sh" start)"
    export CMS_TEST_DATABASE_URL
    trap '"$ROOT/scripts/pg-test-server.sh" stop "$CMS_TEST_DATABASE_URL" >/dev/null 2>&1 || true' EXIT
  else
    echo "(PostgreSQL binaries not found: running on PGlite)" >&2
  fi
  "$@"
}

case "$what" in
  fuzz)
    cd "$ROOT/apps/gateway"
    CMS_FUZZ_RUNS="${1:-50000}" npx tap --reporter=tap --timeout=14400 test/fuzz.test.ts
    ;;
  load)
    cd "$ROOT/apps/gateway"
    CMS_LOAD_CLIENTS="${1:-100}" CMS_LOAD_SECONDS="${2:-60}" with_postgres npx tap --reporter=tap --timeout=900 test/load.test.ts
    ;;
  fault)
    cd "$ROOT/apps/gateway"
    npx tap --reporter=tap --timeout=300 test/fault.test.ts
    ;;
  adversarial)
    # Timed from outside the service, in wall time: a bench, not part of the test command (whose fuzz.test.ts
    # bounds the CPU of each answer to these strings). Every probe of both profiles, 3 strings per probe by
    # default (`all`: every string); `sample`: one probe of every route family, every string at least once.
    cd "$ROOT/apps/gateway"
    if [ "${1:-}" = sample ]; then
      node --import tsx test/adversarial.run.ts
    else
      CMS_ADVERSARIAL_PER_PROBE="${1:-3}" node --import tsx test/adversarial.run.ts
    fi
    ;;
  stall)
    # Figures (docs/reliability.md records a run); exits 1 when a /healthz took over 200 ms beside some route.
    # CMS_STALL_REPEAT: how many times the contributor's heavy work is sent (default 5).
    # The service runs compiled, as in production (tsx would compile modules on the request thread as they load).
    # STALL_TRACE=<file>: the service's long macrotasks and a CPU profile (test/harness/loop-watch.ts), read by
    # `node --import tsx test/stall-trace.run.ts <file>.A.json`.
    node "$ROOT/scripts/build-dist.mjs" >/dev/null
    cd "$ROOT/apps/gateway"
    with_postgres node --import="$ROOT/scripts/test-loader.mjs" test/stall.run.ts "${1:-}"
    ;;
  *)
    echo "usage: $0 fuzz [RUNS] | load [CLIENTS] [SECONDS] | fault | adversarial [PER_PROBE|all|sample] | stall [ONLY_REGEX]" >&2
    exit 2
    ;;
esac
