#!/usr/bin/env bash
# The benchmark's baseline: `bash scripts/baseline.sh <commit>` builds that commit's dist/ files
# into test-output/baseline/<commit>/ (in a temporary git worktree; its cargo target folder is
# kept under test-output/baseline/ for the next build) and prints the command that benches
# this build against it (bench/bench.mjs, BASELINE).
set -euo pipefail
cd "$(dirname "$0")/.."
rev=$(git rev-parse --short "${1:?usage: bash scripts/baseline.sh <commit>}")
out=test-output/baseline/$rev
tree=$(mktemp -d)
trap 'git worktree remove --force "$tree"' EXIT
git worktree add --quiet --detach "$tree" "$rev"
mkdir -p test-output/baseline/target
ln -s "$PWD/node_modules" "$tree/node_modules"
ln -s "$PWD/test-output/baseline/target" "$tree/target"
(cd "$tree" && bash scripts/build.sh)
mkdir -p "$out"
cp "$tree"/dist/* "$out"/
echo "built $rev: BASELINE=$out npm run bench"
