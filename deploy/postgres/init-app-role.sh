#!/bin/sh
# Runs once, when the PostgreSQL volume is first initialised (docker-entrypoint-initdb.d): the service's own
# role, which owns its database and nothing else: not a superuser, cannot create roles or databases.
# Temporal keeps the superuser (its schema job creates its two databases).
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v app_password="$APP_DB_PASSWORD" <<'SQL'
CREATE ROLE store_commerce LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'app_password';
-- The service also asks for this at connect (db/orm.ts); set on the role too, for a pooler that drops the option.
ALTER ROLE store_commerce SET jit = off;
CREATE DATABASE store_commerce OWNER store_commerce;
REVOKE ALL ON DATABASE store_commerce FROM PUBLIC;
SQL
