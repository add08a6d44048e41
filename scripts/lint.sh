#!/usr/bin/env bash
# `make lint`: `swift format lint` (the toolchain's swift-format) over the Swift sources against
# .swift-format, and no line over 120 characters in the Swift sources, the SQL files and the
# shell scripts (with the Makefile). Exits non-zero on any finding. With paths (files or
# folders), lints those Swift files alone. make test runs it first.
set -euo pipefail
cd "$(dirname "$0")/.."
whole=0
if [ $# -eq 0 ]; then
    whole=1
    set -- Package.swift Sources Tests Plugins
fi
status=0
swift format lint --strict --recursive --parallel --configuration .swift-format "$@" || status=1

# Reports every line of the files on stdin (one path a line) over 120 characters, measured in
# characters (C.UTF-8: é is one); fails when there is one.
long_lines() {
    local long
    long=$(xargs -r -d '\n' env LC_ALL=C.UTF-8 grep -nHE '^.{121,}' || true)
    [ -z "$long" ] && return 0
    while IFS= read -r hit; do
        location=$(cut -d: -f1,2 <<<"$hit")
        text=${hit#"$location":}
        echo "$location: error: line is $(($(LC_ALL=C.UTF-8 wc -m <<<"$text") - 1)) characters, at most 120" >&2
    done <<<"$long"
    return 1
}

# swift-format reports a long line only where it could break it: a string literal alone on its
# line passes. So every line is measured here too.
find "$@" -name '*.swift' | long_lines || status=1

if [ $whole = 1 ]; then
    # A released migration is never edited, so its long lines stay: the migrations the newest
    # release's schema snapshot records as applied (schema_migrations rows) are left out.
    snapshot=$(ls Tests/Fixtures/releases/*.sql | sort -V | tail -n 1)
    released=$(sed -nE "s/^INSERT INTO public\.schema_migrations VALUES \(([0-9]+), '([a-z0-9_]+)'.*/\1 \2/p" \
        "$snapshot" | while read -r version name; do printf 'sql/migrations/%04d_%s.sql\n' "$version" "$name"; done)
    files() { git ls-files --cached --others --exclude-standard "$@"; }
    files 'sql/*.sql' | grep -vxF -f <(echo "$released") | long_lines || status=1
    files '*.sh' .ci/run Makefile | long_lines || status=1
fi
exit $status
