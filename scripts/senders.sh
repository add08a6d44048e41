#!/usr/bin/env bash
# The sender libraries under senders/ (Python, Node, Go), each tested against a real `pushledger serve`:
#   scripts/senders.sh test [python|node|go …]   the suites (all three by default), each printing its closing line
# DATABASE_URL names the cluster (without it a throwaway one, `senders`, is started and destroyed);
# PUSHLEDGER_BIN the server binary (default .build/debug/pushledger, built when missing). The Python
# suite runs in a virtual environment under .build/ with the package, pytest, aioapns, firebase-admin and
# pywebpush.
# Needs Debian's golang-go, nodejs (18 or later) and python3-venv (make test installs them through scripts/deps.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. "$root/scripts/lib/suite-env.sh"

usage() { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; }

venv=$root/.build/senders-venv

python_suite() {
    if [ ! -x "$venv/bin/python" ]; then
        /usr/bin/python3 -m venv "$venv"
    fi
    # The integrations' clients and the runner; the package itself as a user installs it.
    "$venv/bin/pip" install -q --disable-pip-version-check pytest aioapns firebase-admin pywebpush >&2
    "$venv/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps ./senders/python >&2
    (cd senders/python && "$venv/bin/python" -m pytest -q -p no:cacheprovider tests)
}

node_suite() {
    (cd senders/node && node --test test/*.test.js)
}

# go test prints one line per package; the plain count line below counts every test and subtest.
go_suite() {
    local report=$root/.build/senders-go-test.txt status=0
    (cd senders/go && GOFLAGS=-mod=mod GOPROXY=off go test -count=1 -v ./...) >"$report" 2>&1 || status=$?
    grep -v -e '^=== ' -e '^    --- PASS' -e '^--- PASS' "$report" | grep -v '^ts=' || true
    echo "go-sender: $(grep -c -- '--- PASS' "$report") passed, $(grep -c -- '--- FAIL' "$report") failed"
    return "$status"
}

run_tests() {
    local suites=("$@") status=0
    [ ${#suites[@]} -gt 0 ] || suites=(python node go)
    suite_env senders
    # The suites run pushledger keys create and serve often: their info lines would bury the results.
    export PUSHLEDGER_LOG_LEVEL=${PUSHLEDGER_LOG_LEVEL:-warning}
    "$PUSHLEDGER_BIN" migrate >/dev/null
    for suite in "${suites[@]}"; do
        case "$suite" in
            python|node|go) "${suite}_suite" || status=1 ;;
            *) usage >&2; exit 2 ;;
        esac
    done
    return "$status"
}

case "${1:-}" in
    test) shift; run_tests "$@" ;;
    -h|--help|help) usage ;;
    *) usage >&2; exit 2 ;;
esac
