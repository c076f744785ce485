#!/usr/bin/env bash
# A topology of docker-compose.yml (a Compose profile: a, b, split-b) as local
# processes, for machines without a container engine:
#
#   scripts/topology.sh up split-b      start it; the last line printed is the entry point's URL
#   scripts/topology.sh down split-b    stop every process it started (by process id)
#   scripts/topology.sh env split-b     CMS_TEST_TARGET... for the HTTP suites (apps/gateway/test/harness/target.ts)
#   scripts/topology.sh kill|start split-b seo 1    one replica (bench/src/failover.ts)
#
# Needs the PostgreSQL server binaries and HAProxy (apt-get install -y haproxy).
# CMS_PORT picks the entry port (default: a free one); CMS_SECRETS_FILE the
# secrets file (default deploy/secrets.example.env), as for Compose.
# The work is scripts/topology/run.ts; the Compose file is read by scripts/topology/plan.ts.
set -euo pipefail
cd "$(dirname "$0")/.."
exec node --import tsx scripts/topology/run.ts "$@"
