#!/usr/bin/env bash
# A throwaway PostgreSQL server for the test suites (local runs and CI).
#
#   scripts/pg-test-server.sh start [--port N] [--durable]
#       init + start in a fresh directory, print the URL (stdout) and, on
#       stderr, where its files are and how to stop it
#   scripts/pg-test-server.sh url  [DIR|URL]   print the URL of a running server
#   scripts/pg-test-server.sh stop [DIR|URL]   stop it and delete its files
#
#   url=$(scripts/pg-test-server.sh start)
#   CMS_TEST_DATABASE_URL=$url pnpm test
#   scripts/pg-test-server.sh stop "$url"
#
# Directory: $PG_TEST_DIR when set (a server already running there is reused,
# and `url`/`stop` need no argument); otherwise a fresh
# ${TMPDIR:-/tmp}/cms-pg-test.XXXXXX per start, so two runs at once never
# share or delete each other's server. `url` and `stop` then take the
# directory or the URL `start` printed.
# Port: --port N or $PG_TEST_PORT, else a free one.
# $PG_TEST_OPTIONS: further server options (`-c name=value ...`), appended
# (the profile bench loads pg_stat_statements and auto_explain with them).
# Needs initdb/pg_ctl on PATH (or in /usr/lib/postgresql/*/bin). Trust auth,
# listening on 127.0.0.1 only; fsync, synchronous_commit and full-page writes
# off (for tests, never for data) unless --durable or PG_TEST_DURABLE=1,
# which keep PostgreSQL's default durability.
# PostgreSQL refuses to run as root. As root the server runs as an existing
# unprivileged user: $PG_TEST_USER when set, else "postgres" (the Debian
# packages' user), else "nobody"; the script says which. It never creates one.
set -euo pipefail

die() { echo "pg-test-server: $*" >&2; exit 1; }
say() { echo "pg-test-server: $*" >&2; }

find_bin() {
  if command -v "$1" >/dev/null 2>&1; then command -v "$1"; return; fi
  local b
  for b in /usr/lib/postgresql/*/bin/"$1"; do
    [ -x "$b" ] && { echo "$b"; return; }
  done
  die "$1 not found (install PostgreSQL server binaries)"
}

# The unprivileged user a new server runs as when we are root.
pick_user() {
  if [ -n "${PG_TEST_USER:-}" ]; then
    id "$PG_TEST_USER" >/dev/null 2>&1 || die "PG_TEST_USER=$PG_TEST_USER is not a user on this machine"
    echo "$PG_TEST_USER"; return
  fi
  local u
  for u in postgres nobody; do
    if id "$u" >/dev/null 2>&1; then echo "$u"; return; fi
  done
  die "running as root and neither postgres nor nobody exists: set PG_TEST_USER to an unprivileged user"
}

# Runs a command as the owner of the server's data directory (as root), so a
# server started by any version of this script is stopped by its own user.
as_pg() {
  if [ "$(id -u)" = 0 ]; then
    local owner
    owner="$(stat -c %U "$DIR/data" 2>/dev/null || echo "${RUN_AS:-nobody}")"
    runuser -u "$owner" -- "$@"
  else
    "$@"
  fi
}

# A free port below the kernel's own range (ip_local_port_range), skipping those a test process has claimed
# (freePort of @cms/store/testing): while the server is down (the fault test stops and restarts it on its port),
# a port of that range may be given to another test's server (listen(0)), and then it cannot listen there again;
# and a client retrying it may be given it as its own local end and connect to itself.
free_port() {
  if command -v node >/dev/null 2>&1; then
    node -e '
      const fs = require("fs"), net = require("net"), os = require("os"), path = require("path")
      let high = 32768
      try { const low = Number(fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]); if (low > 1024) high = low } catch {}
      const low = high - 1024 > 20000 ? 20000 : 1024
      const dir = path.join(os.tmpdir(), `cms-test-ports-${process.getuid()}`)
      const claimed = (port) => { try { return fs.readdirSync(dir).some((n) => { const [p, pid] = n.split("-"); if (p !== String(port)) return false; try { process.kill(Number(pid), 0); return true } catch (e) { return e.code === "EPERM" } }) } catch { return false } }
      const next = (tries) => {
        if (tries === 0) { console.error("no free port"); process.exit(1) }
        const port = low + Math.floor(Math.random() * (high - low))
        if (claimed(port)) return next(tries - 1)
        const s = net.createServer()
        s.once("error", () => next(tries - 1))
        s.listen(port, "127.0.0.1", () => { s.close(() => console.log(port)) })
      }
      next(200)'
  else
    python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1]);s.close()'
  fi
}

url() { echo "postgres://postgres@127.0.0.1:$(cat "$DIR/port")/postgres"; }

running() {
  [ -f "$DIR/port" ] && [ -d "$DIR/data" ] && as_pg "$PG_CTL" -D "$DIR/data" status >/dev/null 2>&1
}

# The directory of an existing server: the argument (a directory, or a URL
# whose port one of ours holds), else $PG_TEST_DIR.
existing_dir() {
  local arg="${1:-}"
  if [ -z "$arg" ]; then
    [ -n "${PG_TEST_DIR:-}" ] || die "which server? pass the directory or URL that start printed (or set PG_TEST_DIR)"
    echo "$PG_TEST_DIR"; return
  fi
  if [ -d "$arg" ]; then echo "$arg"; return; fi
  local port="${arg##*:}"; port="${port%%/*}"
  [[ "$port" =~ ^[0-9]+$ ]] || die "not a directory or a postgres://...:port URL: $arg"
  local d
  for d in "${TMPDIR:-/tmp}"/cms-pg-test.* ${PG_TEST_DIR:+"$PG_TEST_DIR"}; do
    if [ -f "$d/port" ] && [ "$(cat "$d/port")" = "$port" ]; then echo "$d"; return; fi
  done
  die "no server of this script on port $port"
}

PG_CTL="$(find_bin pg_ctl)"
command="${1:-}"
[ $# -gt 0 ] && shift

case "$command" in
  start)
    port="${PG_TEST_PORT:-}"
    durable="${PG_TEST_DURABLE:-}"
    while [ $# -gt 0 ]; do
      case "$1" in
        --port) port="${2:-}"; shift 2 ;;
        --port=*) port="${1#--port=}"; shift ;;
        --durable) durable=1; shift ;;
        *) die "unknown option $1 (start [--port N] [--durable])" ;;
      esac
    done
    [ -z "$port" ] || [[ "$port" =~ ^[0-9]+$ ]] || die "--port must be a number, got \"$port\""
    if [ -n "${PG_TEST_DIR:-}" ]; then
      DIR="$PG_TEST_DIR"
      if running; then url; exit 0; fi
      rm -rf "$DIR"
      mkdir -p "$DIR"
    else
      DIR="$(mktemp -d "${TMPDIR:-/tmp}/cms-pg-test.XXXXXX")"
    fi
    INITDB="$(find_bin initdb)"
    if [ "$(id -u)" = 0 ]; then
      RUN_AS="$(pick_user)"
      chown "$RUN_AS" "$DIR"
      say "running as root: the server runs as the existing user $RUN_AS (set PG_TEST_USER to choose another)"
      runuser -u "$RUN_AS" -- mkdir -p "$DIR/data"
    else
      mkdir -p "$DIR/data"
    fi
    chmod 700 "$DIR/data" 2>/dev/null || true
    as_pg "$INITDB" -D "$DIR/data" -U postgres --auth=trust -E UTF8 --no-sync >"$DIR/initdb.log" 2>&1 \
      || { cat "$DIR/initdb.log" >&2; die "initdb failed"; }
    port="${port:-$(free_port)}"
    echo "$port" >"$DIR/port"
    options="-p $port -k $DIR -c listen_addresses=127.0.0.1 -c max_connections=200"
    if [ "$durable" != 1 ]; then
      options="$options -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    fi
    options="$options ${PG_TEST_OPTIONS:-}"
    as_pg "$PG_CTL" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 -o "$options" start >/dev/null \
      || { cat "$DIR/server.log" >&2 || true; die "server did not start"; }
    say "started on port $port, files in $DIR$([ "$durable" = 1 ] && echo ' (default durability)'); stop it with: $0 stop $DIR"
    url
    ;;
  url)
    DIR="$(existing_dir "${1:-}")"
    running || die "not running (use: $0 start)"
    url
    ;;
  stop)
    DIR="$(existing_dir "${1:-}")"
    if running; then as_pg "$PG_CTL" -D "$DIR/data" -m fast -w stop >/dev/null; fi
    rm -rf "$DIR"
    ;;
  *)
    echo "usage: $0 start [--port N] [--durable] | url [DIR|URL] | stop [DIR|URL]" >&2
    exit 2
    ;;
esac
