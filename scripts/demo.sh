#!/usr/bin/env bash
# `make demo`: the main job, end to end on the project-local cluster.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

swift build -c release --product pushledger >&2
bin="$(swift build -c release --show-bin-path)/pushledger"
DATABASE_URL=$(scripts/db.sh start demo)
export DATABASE_URL

"$bin" --help
"$bin" migrate
"$bin" migrate --status
