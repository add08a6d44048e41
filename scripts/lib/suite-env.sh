# Sourced by scripts/android.sh and scripts/senders.sh: what a suite run against the real server needs.
# suite_env NAME: without DATABASE_URL, a throwaway cluster NAME (destroyed when the script exits);
# PUSHLEDGER_BIN (default .build/debug/pushledger, built when missing) and PUSHLEDGER_SQL_DIR exported.
suite_env() {
    if [ -z "${DATABASE_URL:-}" ]; then
        trap "DATABASE_URL= scripts/db.sh destroy $1" EXIT
        scripts/db.sh destroy "$1"
        DATABASE_URL=$(scripts/db.sh start "$1")
        export DATABASE_URL
    fi
    export PUSHLEDGER_BIN=${PUSHLEDGER_BIN:-$root/.build/debug/pushledger}
    export PUSHLEDGER_SQL_DIR=$root/sql
    [ -x "$PUSHLEDGER_BIN" ] || swift build --product pushledger
}
