# Sourced by the benchmarks: a throwaway PostgreSQL on 127.0.0.1 (initdb into a folder under
# $pg_parent, default /tmp, as the postgres user when run as root, which PostgreSQL refuses). Sets $shared (the address
# workers are given), $pg_data, and pg_stop and psql_shared (a statement's result, unaligned).
source "$(dirname "${BASH_SOURCE[0]}")/free-port.sh"
pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
pg_folder=$(mktemp -d "${pg_parent:-/tmp}/mirror-bench-postgres.XXXXXX")
pg_data=$pg_folder/data
pg_port=$(free_port)
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$pg_folder"
as_postgres "$pg_bin/initdb" -D "$pg_data" -U mirror --auth=trust >/dev/null
as_postgres "$pg_bin/pg_ctl" -D "$pg_data" -l "$pg_folder/log" -w start \
  -o "-p $pg_port -k $pg_folder -c listen_addresses=127.0.0.1 -c max_connections=200" >/dev/null
shared="postgres://mirror@127.0.0.1:$pg_port/postgres"
pg_stop() { as_postgres "$pg_bin/pg_ctl" -D "$pg_data" -m immediate -w stop >/dev/null 2>&1 || true; rm -rf "$pg_folder"; }
psql_shared() { "$pg_bin/psql" -X -A -t -h 127.0.0.1 -p "$pg_port" -U mirror -d postgres -c "$1"; }
