#!/usr/bin/env bash
# Writes Tests/Fixtures/releases/VERSION.sql: the schema a database has once migrated by release
# VERSION (the sql/ folder of git revision REV, default HEAD), as `pg_dump --schema-only` prints
# it, plus the rows its migrations inserted, among them the migrator's own (schema_migrations,
# schema_definitions) that tell the next release what is applied. The upgrade test (StoreTests,
# "Upgrading a database of the previous release") restores it and runs the migrator of the tree on it.
#   scripts/release-snapshot.sh VERSION [REV]
# Uses a project-local cluster of its own (scripts/db.sh) unless DATABASE_URL is set.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
version=${1:?usage: scripts/release-snapshot.sh VERSION [REV]}
rev=${2:-HEAD}
out="Tests/Fixtures/releases/$version.sql"
pgbin=/usr/lib/postgresql/15/bin

work=$(mktemp -d)
own_cluster=
cleanup() {
    rm -rf "$work"
    if [ -n "$own_cluster" ]; then DATABASE_URL= scripts/db.sh destroy snapshot; fi
}
trap cleanup EXIT
if [ -z "${DATABASE_URL:-}" ]; then
    own_cluster=1
    DATABASE_URL=$(scripts/db.sh start snapshot)
fi
git archive "$rev" sql | tar -x -C "$work"
swift build --product pushledger >&2

database="release_snapshot_$$"
admin=$DATABASE_URL
"$pgbin/psql" -q -v ON_ERROR_STOP=1 -d "$admin" -c "create database $database"
url=${admin/\/pushledger\?/\/$database?}
.build/debug/pushledger migrate --database-url "$url" --sql-dir "$work/sql" >&2
{
    echo "-- The schema of a database migrated by PushLedger $version (git $(git rev-parse --short "$rev")),"
    echo "-- written by scripts/release-snapshot.sh. Never edit it: it stands for databases in the field."
    # Roles belong to the cluster: made here when missing (tests restore it concurrently).
    echo "do \$\$ begin create role pushledger_reader nologin;"
    echo "    exception when duplicate_object or unique_violation then null; end \$\$;"
    "$pgbin/pg_dump" --schema-only --no-owner --dbname="$url"
    # What the migrations inserted (settings, the migrator's own rows): the database is new.
    "$pgbin/pg_dump" --data-only --inserts --no-owner --dbname="$url"
} | grep -v '^\\\(un\)\{0,1\}restrict' >"$out"
"$pgbin/psql" -q -d "$admin" -c "drop database $database"
echo "wrote $out" >&2
