#!/usr/bin/env bash
# `make release-notes`: what the next release holds — the Unreleased section of CHANGELOG.md,
# then the commits since the last release tag, for the maintainer to check the one against the
# other. With a version (scripts/release-notes.sh 0.1.0) prints that release's section instead.
set -euo pipefail
cd "$(dirname "$0")/.."
heading=${1:-Unreleased}
section=$(awk -v h="## [$heading]" 'index($0, h) == 1 { on = 1; next } /^## \[/ { on = 0 } on' CHANGELOG.md)
if [ -z "$(echo "$section" | tr -d '[:space:]')" ]; then
    echo "release-notes: CHANGELOG.md has no entries under ## [$heading]" >&2
    exit 1
fi
echo "$section" | sed -e '/./,$!d'
if [ "$heading" = Unreleased ]; then
    last=$(git describe --tags --abbrev=0 --match 'v[0-9]*' 2>/dev/null || true)
    echo
    echo "Commits since ${last:-the first commit} (VERSION $(cat VERSION)):"
    git log --no-merges --format='  %h %s' ${last:+"$last"..}HEAD | cut -c1-120
fi
