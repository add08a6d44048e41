#!/usr/bin/env bash
# The browser SDK under web/, tested twice: its pure core under Node, and the SDK in Debian's headless Chromium
#   scripts/web.sh test [unit|browser …]   the suites (both by default), each printing its closing line
# The browser suite drives Chromium over the DevTools protocol (a stdlib Python client, no packages) against a real
# `pushledger serve`. DATABASE_URL names the cluster (without it a throwaway one, `web`, is started and destroyed);
# PUSHLEDGER_BIN the server binary (default .build/debug/pushledger, built when missing).
# Needs Debian's nodejs (18 or later), chromium, python3 and postgresql-client (make test installs them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. "$root/scripts/lib/suite-env.sh"

usage() { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; }

# node --test's own summary is TAP comments; the plain count line matches the other suites'.
unit_suite() {
    local report=$root/.build/web-unit.txt status=0
    mkdir -p "$root/.build"
    node --test --test-reporter=tap web/test/*.test.mjs >"$report" 2>&1 || status=$?
    grep -E '^(not ok|# Subtest)' "$report" | grep -B1 '^not ok' || true
    grep -A12 '^not ok' "$report" | grep -E 'error:|expected|got' || true
    echo "web-unit: $(grep -c '^ok ' "$report") passed, $(grep -c '^not ok ' "$report") failed"
    return "$status"
}

browser_suite() {
    python3 web/test/browser_suite.py
}

run_tests() {
    local suites=("$@") status=0
    [ ${#suites[@]} -gt 0 ] || suites=(unit browser)
    for suite in "${suites[@]}"; do
        case "$suite" in
            unit) unit_suite || status=1 ;;
            browser)
                suite_env web
                export PUSHLEDGER_LOG_LEVEL=${PUSHLEDGER_LOG_LEVEL:-warning}
                "$PUSHLEDGER_BIN" migrate >/dev/null
                browser_suite || status=1
                ;;
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
