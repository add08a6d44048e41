#!/usr/bin/env bash
# `make lint`: `swift format lint` (the toolchain's swift-format) over the Swift sources against
# .swift-format (line length 120). Exits non-zero on any finding. With paths, lints those alone.
# make test runs it first when PUSHLEDGER_LINT=1.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then set -- Package.swift Sources Tests Plugins; fi
swift format lint --strict --recursive --parallel --configuration .swift-format "$@"
