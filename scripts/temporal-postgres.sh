#!/usr/bin/env bash
# A production-style Temporal server on PostgreSQL persistence without Docker: the same server version
# as the dev server (1.29.1), built with Go into .tools/bin, its two databases set up by
# deploy/temporal/setup-schema.sh, the config deploy/temporal/config/production-postgres.yaml, and the
# namespace registered. Runs in the foreground until stopped (Ctrl-C / SIGTERM).
#   TEMPORAL_DB_HOST / _PORT / _USER / _PASSWORD   PostgreSQL (127.0.0.1 / 5432 / postgres / none)
#   TEMPORAL_DB / TEMPORAL_VISIBILITY_DB           temporal / temporal_visibility
#   TEMPORAL_PORT                                  frontend port (7233; it also takes the next 20 up)
# Then: TEMPORAL_ADDRESS=127.0.0.1:$TEMPORAL_PORT npm run test:topology   (or start:api / start:worker)
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=v1.29.1
bin=$PWD/.tools/bin
export TEMPORAL_DB_HOST=${TEMPORAL_DB_HOST:-127.0.0.1} TEMPORAL_DB_PORT=${TEMPORAL_DB_PORT:-5432}
export TEMPORAL_DB_USER=${TEMPORAL_DB_USER:-postgres} TEMPORAL_DB_PASSWORD=${TEMPORAL_DB_PASSWORD:-}
export TEMPORAL_DB=${TEMPORAL_DB:-temporal} TEMPORAL_VISIBILITY_DB=${TEMPORAL_VISIBILITY_DB:-temporal_visibility}
export TEMPORAL_PORT=${TEMPORAL_PORT:-7233}
log() { printf '[temporal-postgres] %s\n' "$*"; }

# The server and its schema tool, built once (minutes of CPU the first time; the module cache keeps the schema files).
if [ ! -x "$bin/temporal-server" ] || [ ! -x "$bin/temporal-sql-tool" ]; then
  log "building the Temporal server $VERSION and temporal-sql-tool with $(go version)"
  tmp=$(mktemp -d)
  GOBIN=$tmp go install "go.temporal.io/server/cmd/server@$VERSION" "go.temporal.io/server/cmd/tools/sql@$VERSION"
  mkdir -p "$bin" && mv "$tmp/server" "$bin/temporal-server" && mv "$tmp/sql" "$bin/temporal-sql-tool" && rmdir "$tmp"
fi
schema=$(go env GOMODCACHE)/go.temporal.io/server@$VERSION/schema/postgresql/v12
[ -d "$schema" ] || go mod download "go.temporal.io/server@$VERSION"

log "schema of $TEMPORAL_DB and $TEMPORAL_VISIBILITY_DB on $TEMPORAL_DB_HOST:$TEMPORAL_DB_PORT"
SQL_TOOL=$bin/temporal-sql-tool SCHEMA_DIR=$schema SQL_HOST=$TEMPORAL_DB_HOST SQL_PORT=$TEMPORAL_DB_PORT \
  SQL_USER=$TEMPORAL_DB_USER SQL_PASSWORD=$TEMPORAL_DB_PASSWORD sh deploy/temporal/setup-schema.sh

cli=${TEMPORAL_CLI:-$(command -v temporal || echo "$bin/temporal")}
TEMPORAL_ADDRESS=127.0.0.1:$TEMPORAL_PORT TEMPORAL_CLI=$cli TEMPORAL_NAMESPACE=${TEMPORAL_NAMESPACE:-default} \
  sh deploy/temporal/create-namespace.sh &
log "Temporal server $VERSION on 127.0.0.1:$TEMPORAL_PORT (PostgreSQL persistence and visibility)"
exec "$bin/temporal-server" --root . --config deploy/temporal/config --env production-postgres --allow-no-auth start
