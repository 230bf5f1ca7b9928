#!/usr/bin/env bash
# The services a cluster profile runs on, from Debian's packages: Postgres (the DuckLake catalog and
# Dagster's instance) and Redis (celery's broker). Installs them when missing; starts nothing (the tests
# and `skill2env cluster up` start private servers in their own directories). Safe to run again.
set -euo pipefail

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo -n "$@"
  else echo "setup-services: '$*' needs root; run this script as root" >&2; return 1
  fi
}

missing=()
compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null || command -v pg_ctl >/dev/null || missing+=(postgresql)
command -v psql >/dev/null || missing+=(postgresql-client)
command -v redis-server >/dev/null || missing+=(redis-server)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup-services: installing ${missing[*]}"
  as_root apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
