#!/usr/bin/env bash
# `make test`: a throwaway cluster, the whole Swift suite, the Android core's suite, the sender libraries'
# suites, the browser SDK's suites, and the cluster gone afterwards even when tests fail. A caller-provided
# DATABASE_URL is used as is.
#   scripts/test.sh                  everything (make test), after scripts/lint.sh
#   scripts/test.sh --unit           the unit suites alone: no database, no service (make test-unit)
#   scripts/test.sh ARGS…            swift test ARGS on the cluster, e.g. --filter Suite (make test FILTER=Suite)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# The whole run starts with the lint (swift format and line length): a finding fails it in seconds.
if [ $# -eq 0 ]; then scripts/lint.sh; fi

# Exit tests (the programming-error traps) run in a process of their own: Swift Testing's
# exit-test monitor waits for any child, so beside tests that run commands through
# Foundation's Process it can take their children's exits and leave both waiting forever.
# Each run is under scripts/watchdog.sh: a test that hangs fails the run after PUSHLEDGER_TEST_LIMIT
# seconds (default 40 minutes; the whole suite takes 8 to 30), naming what never ended.
# $1: a filter of what to run ("" for everything).
swift_tests() {
    local guarded=(scripts/watchdog.sh "${PUSHLEDGER_TEST_LIMIT:-2400}" swift test --skip-build)
    if [ -z "$1" ]; then
        "${guarded[@]}" --skip ProgrammingError
        "${guarded[@]}" --filter ProgrammingError
    else
        "${guarded[@]}" --filter "$1" --skip ProgrammingError
        "${guarded[@]}" --filter "($1).*ProgrammingError"
    fi
}

if [ "${1:-}" = --unit ]; then
    # The unit targets are the ones Package.swift lists under "Unit suites". Without a database
    # URL any database access fails, so a unit suite that needs one cannot pass unnoticed.
    targets=$(sed -n '/Unit suites/,/Integration suites/p' Package.swift | grep -o 'name: "[A-Za-z]*"' |
        cut -d'"' -f2 | paste -sd'|')
    [ -n "$targets" ] || { echo "test: no unit targets found in Package.swift" >&2; exit 1; }
    swift build --build-tests
    unset DATABASE_URL PUSHLEDGER_TEST_DATABASE_URL
    swift_tests "^($targets)\\."
    exit 0
fi

if [ -z "${DATABASE_URL:-}" ]; then
    # DATABASE_URL is exported below; db.sh would leave a caller's database alone, so clear it.
    trap 'DATABASE_URL= scripts/db.sh destroy test; scripts/patroni.sh destroy failover' EXIT
    scripts/db.sh destroy test
    DATABASE_URL=$(scripts/db.sh start test)
    export DATABASE_URL
fi
export PUSHLEDGER_TEST_DATABASE_URL="$DATABASE_URL"
swift build --build-tests
if [ $# -eq 0 ]; then
    swift_tests ""
elif [ $# -eq 2 ] && [ "$1" = --filter ]; then
    swift_tests "$2"
else
    scripts/watchdog.sh "${PUSHLEDGER_TEST_LIMIT:-2400}" swift test --skip-build "$@"
fi
# The Android SDK's core (JUnit 5) on the same cluster and the server just built; its own
# "N passed, N failed" line. (Skipped when arguments pick some tests: scripts/android.sh test runs it alone.)
if [ $# -eq 0 ]; then PUSHLEDGER_BIN="$root/.build/debug/pushledger" scripts/watchdog.sh 900 scripts/android.sh test; fi
# The sender libraries (Python, Node, Go) against the same server binary and cluster; each suite its
# own closing line. (Skipped when arguments pick some tests: scripts/senders.sh test runs them alone.)
if [ $# -eq 0 ]; then PUSHLEDGER_BIN="$root/.build/debug/pushledger" scripts/watchdog.sh 900 scripts/senders.sh test; fi
# The browser SDK: its core under Node and the SDK in headless Chromium against the same server binary and
# cluster; each suite its own closing line. (Skipped when arguments pick some tests: scripts/web.sh test runs it alone.)
if [ $# -eq 0 ]; then PUSHLEDGER_BIN="$root/.build/debug/pushledger" scripts/watchdog.sh 900 scripts/web.sh test; fi
# The benchmark code, tiny, on the same cluster: fails when it breaks, never on speed.
# (Skipped when arguments pick some tests.)
if [ $# -eq 0 ]; then scripts/bench.sh smoke; fi
