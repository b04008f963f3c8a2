#!/usr/bin/env bash
# Runs a command with the project's own toolchain on PATH.
# System Node 20 is too old for wrangler, miniflare and vitest, so a Node 24 binary and pnpm
# come from the npm registry into tools/node_modules (pinned by tools/package-lock.json), and the
# workspace's dependencies are installed from pnpm-lock.yaml. Both steps are skipped when current.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

if [ ! -x tools/node_modules/.bin/node ] || [ ! -x tools/node_modules/.bin/pnpm ] \
  || [ tools/package-lock.json -nt tools/node_modules/.package-lock.json ]; then
  echo "› installing the project's Node and pnpm (tools/)" >&2
  npm ci --prefix tools --no-audit --no-fund --loglevel=error
fi
export PATH="$root/tools/node_modules/.bin:$root/node_modules/.bin:$PATH"

if [ ! -f node_modules/.modules.yaml ] || [ pnpm-lock.yaml -nt node_modules/.modules.yaml ]; then
  echo "› installing workspace dependencies (pnpm install)" >&2
  pnpm install --frozen-lockfile
fi

exec "$@"
