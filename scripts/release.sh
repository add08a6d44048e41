#!/usr/bin/env bash
# `make cut-release VERSION=x.y.z`: on a clean tree, writes VERSION, turns CHANGELOG.md's
# Unreleased section into the release's, writes the release's schema snapshot (the next
# release's upgrade test starts from it; the previous one goes, as the guarantee is one release
# back), commits, tags vx.y.z with the notes, and opens the next -dev version. Pushing is left to
# the maintainer. docs/operations/upgrading.md says what a release promises.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: scripts/release.sh x.y.z}
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "release: $version is not x.y.z" >&2; exit 64; }
[ -z "$(git status --porcelain)" ] || { echo "release: the tree has uncommitted changes" >&2; exit 1; }
git rev-parse -q --verify "refs/tags/v$version" >/dev/null && { echo "release: v$version exists" >&2; exit 1; }
notes=$(scripts/release-notes.sh | sed '/^Commits since/,$d')

# The snapshot first: it builds and migrates, the step that can fail; nothing else is changed yet.
scripts/release-snapshot.sh "$version"
for old in Tests/Fixtures/releases/*.sql; do
    [ "$old" = "Tests/Fixtures/releases/$version.sql" ] || git rm -q "$old"
done
echo "$version" >VERSION
today=$(date -u +%F)
sed -i "s/^## \[Unreleased\]$/## [Unreleased]\n\n## [$version] - $today/" CHANGELOG.md
git add VERSION CHANGELOG.md Tests/Fixtures/releases
git commit -q -m "Release $version"
git tag -a "v$version" -m "PushLedger $version" -m "$notes"
IFS=. read -r major minor _ <<<"$version"
echo "$major.$((minor + 1)).0-dev" >VERSION
git commit -q -m "Open $major.$((minor + 1)).0" VERSION
echo "release: tagged v$version; push the branch and the tag when satisfied"
