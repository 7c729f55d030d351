#!/bin/sh
# The container's entrypoint: the migrations once, then the service in this process's place (exec),
# so that the SIGTERM the runtime sends on stop reaches node itself, which finishes the requests and
# deliveries under way and exits. With arguments, it runs them instead (e.g. a one-off command).
set -eu
cd "${APP_DIR:-/app}"
if [ "$#" -gt 0 ]; then
  exec "$@"
fi
node dist/scripts/migrate.js
# Migrated just now: instances started together need not take turns on the migration lock again.
export MIGRATE_ON_START=off
exec node dist/server/main.js
