#!/usr/bin/env bash
# `make lint`: `swift format lint` (the toolchain's swift-format) over the Swift sources against
# .swift-format, and no Swift line over 120 characters. Exits non-zero on any finding. With paths
# (files or folders), lints those alone. make test runs it first.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then set -- Package.swift Sources Tests Plugins; fi
status=0
swift format lint --strict --recursive --parallel --configuration .swift-format "$@" || status=1

# swift-format reports a long line only where it could break it: a string literal alone on its
# line passes. So every line is measured here too, in characters (C.UTF-8: é is one).
long=$(LC_ALL=C.UTF-8 grep -rnHE --include='*.swift' '^.{121,}' "$@" || true)
if [ -n "$long" ]; then
    while IFS= read -r hit; do
        location=$(cut -d: -f1,2 <<<"$hit")
        text=${hit#"$location":}
        echo "$location: error: line is $(($(LC_ALL=C.UTF-8 wc -m <<<"$text") - 1)) characters, at most 120" >&2
    done <<<"$long"
    status=1
fi
exit $status
