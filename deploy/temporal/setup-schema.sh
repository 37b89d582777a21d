#!/bin/sh
# Creates Temporal's two PostgreSQL databases (if missing) and brings their schemas to the server's
# version. Safe to run again: an up-to-date schema is left as it is. Used by docker-compose.prod.yml's
# temporal-schema job (temporalio/admin-tools) and by scripts/temporal-postgres.sh.
#   SQL_TOOL     temporal-sql-tool            SCHEMA_DIR              /etc/temporal/schema/postgresql/v12
#   SQL_HOST     postgres                     SQL_PORT                5432
#   SQL_USER     temporal                     SQL_PASSWORD            (read by temporal-sql-tool itself)
#   TEMPORAL_DB  temporal                     TEMPORAL_VISIBILITY_DB  temporal_visibility
set -eu
schema=${SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}
on() {
  db=$1
  shift
  "${SQL_TOOL:-temporal-sql-tool}" --plugin postgres12 --ep "${SQL_HOST:-postgres}" -p "${SQL_PORT:-5432}" -u "${SQL_USER:-temporal}" --db "$db" "$@"
}
for pair in "${TEMPORAL_DB:-temporal}:temporal" "${TEMPORAL_VISIBILITY_DB:-temporal_visibility}:visibility"; do
  db=${pair%%:*}
  kind=${pair#*:}
  on "$db" create >/dev/null 2>&1 && echo "database $db created" || echo "database $db exists"
  # Version 0.0 is only the version table: on a database set up before, this step has nothing to do.
  on "$db" setup-schema -v 0.0 >/dev/null 2>&1 || echo "database $db: version table exists"
  # The tool logs every statement it runs: shown only when it fails.
  if ! out=$(on "$db" update-schema -d "$schema/$kind/versioned" 2>&1); then
    echo "$out"
    exit 1
  fi
  echo "database $db: schema up to date"
done
