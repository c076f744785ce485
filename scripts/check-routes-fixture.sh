#!/usr/bin/env bash
# Compares the route manifest the gateway tests use as their oracle
# (apps/gateway/test/fixtures/routes.json) with the reference it was copied
# from. A maintenance check, never run by the tests: the reference lives
# outside the repository and a plain clone does not have it.
#
#   scripts/check-routes-fixture.sh path/to/reference/routes.json            # compare
#   scripts/check-routes-fixture.sh --update path/to/reference/routes.json   # copy the reference over the fixture
# The path is required: nothing in the project assumes a tree beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
FIXTURE=apps/gateway/test/fixtures/routes.json
update=0
if [ "${1:-}" = "--update" ]; then update=1; shift; fi
[ -n "${1:-}" ] || { echo "usage: $0 [--update] path/to/reference/routes.json" >&2; exit 2; }
REFERENCE="$1"
[ -f "$REFERENCE" ] || { echo "check-routes-fixture: no reference at $REFERENCE" >&2; exit 2; }
if cmp -s "$REFERENCE" "$FIXTURE"; then
  echo "check-routes-fixture: $FIXTURE is the same as $REFERENCE"
  exit 0
fi
if [ "$update" = 1 ]; then
  cp "$REFERENCE" "$FIXTURE"
  echo "check-routes-fixture: copied $REFERENCE to $FIXTURE (update the date and sha256 in $(dirname "$FIXTURE")/README.md: $(sha256sum "$FIXTURE" | cut -d' ' -f1))"
  exit 0
fi
echo "check-routes-fixture: $FIXTURE differs from $REFERENCE (run with --update to copy it)" >&2
exit 1
