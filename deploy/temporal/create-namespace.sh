#!/bin/sh
# Registers the namespace the service runs in (TEMPORAL_NAMESPACE, default `default`) once the server
# answers; does nothing when it exists. Used by docker-compose.prod.yml and scripts/temporal-postgres.sh.
set -eu
ns=${TEMPORAL_NAMESPACE:-default}
cli=${TEMPORAL_CLI:-temporal}
for _ in $(seq 1 60); do
  "$cli" operator cluster health >/dev/null 2>&1 && break
  sleep 1
done
if "$cli" operator namespace describe --namespace "$ns" >/dev/null 2>&1; then
  echo "namespace $ns exists"
else
  "$cli" operator namespace create --namespace "$ns" --retention "${NAMESPACE_RETENTION:-7d}"
fi
