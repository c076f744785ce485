#!/usr/bin/env bash
# A throwaway PostgreSQL server for the test suites (local runs and CI).
#
#   scripts/pg-test-server.sh start   # init + start on a free port, print the URL
#   scripts/pg-test-server.sh url     # print the URL of the running server
#   scripts/pg-test-server.sh stop    # stop it and delete its files
#
#   export CMS_TEST_DATABASE_URL=$(scripts/pg-test-server.sh start)
#   pnpm test
#   scripts/pg-test-server.sh stop
#
# Needs initdb/pg_ctl on PATH (or in /usr/lib/postgresql/*/bin). Trust auth,
# listening on 127.0.0.1 only, fsync off: for tests, never for data.
# PostgreSQL refuses to run as root; as root the server runs as the user
# $PG_TEST_USER (default pgtest, created when missing).
# State lives in $PG_TEST_DIR (default ${TMPDIR:-/tmp}/cms-pg-test).
set -euo pipefail

DIR="${PG_TEST_DIR:-${TMPDIR:-/tmp}/cms-pg-test}"
RUN_AS="${PG_TEST_USER:-pgtest}"

die() { echo "pg-test-server: $*" >&2; exit 1; }

find_bin() {
  if command -v "$1" >/dev/null 2>&1; then command -v "$1"; return; fi
  local b
  for b in /usr/lib/postgresql/*/bin/"$1"; do
    [ -x "$b" ] && { echo "$b"; return; }
  done
  die "$1 not found (install PostgreSQL server binaries)"
}

# Run a command as the server's user (as root: $RUN_AS; otherwise: ourselves).
as_pg() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u "$RUN_AS" -- "$@"
  else
    "$@"
  fi
}

free_port() {
  if command -v node >/dev/null 2>&1; then
    node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
  else
    python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1]);s.close()'
  fi
}

url() { echo "postgres://postgres@127.0.0.1:$(cat "$DIR/port")/postgres"; }

running() {
  [ -f "$DIR/port" ] && [ -d "$DIR/data" ] && as_pg "$PG_CTL" -D "$DIR/data" status >/dev/null 2>&1
}

PG_CTL="$(find_bin pg_ctl)"

case "${1:-}" in
  start)
    if running; then url; exit 0; fi
    INITDB="$(find_bin initdb)"
    if [ "$(id -u)" = 0 ] && ! id "$RUN_AS" >/dev/null 2>&1; then
      useradd --system --create-home --shell /bin/sh "$RUN_AS" >/dev/null
    fi
    rm -rf "$DIR"
    mkdir -p "$DIR"
    if [ "$(id -u)" = 0 ]; then chown "$RUN_AS" "$DIR"; fi
    as_pg "$INITDB" -D "$DIR/data" -U postgres --auth=trust -E UTF8 --no-sync >"$DIR/initdb.log" 2>&1 \
      || { cat "$DIR/initdb.log" >&2; die "initdb failed"; }
    port="$(free_port)"
    echo "$port" >"$DIR/port"
    as_pg "$PG_CTL" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 \
      -o "-p $port -k $DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
      start >/dev/null \
      || { cat "$DIR/server.log" >&2 || true; die "server did not start"; }
    url
    ;;
  url)
    running || die "not running (use: $0 start)"
    url
    ;;
  stop)
    if running; then as_pg "$PG_CTL" -D "$DIR/data" -m fast -w stop >/dev/null; fi
    rm -rf "$DIR"
    ;;
  *)
    echo "usage: $0 start|stop|url" >&2
    exit 2
    ;;
esac
