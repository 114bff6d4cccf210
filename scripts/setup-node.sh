#!/usr/bin/env bash
# `npm run setup:node`: ngym needs the Node.js of package.json's engines. When the Node on PATH is older, this
# puts Node 22 from the npm registry (the `node` package, which fetches the binary for this platform) in .node/,
# or reuses the one already there, and prints the line that puts it first on PATH. .ci/run uses it on machines
# with an older Node. To replace .node/'s Node with the newest 22, remove .node/ first.
set -euo pipefail
cd "$(dirname "$0")/.."
# The floor as written in engines (">=22.13"), for messages.
floor=$(sed -n 's/^ *"node": *">=\([0-9.]*\)".*/\1/p' package.json | head -1)
# Whether the Node at $1 satisfies engines (scripts/check-node.mjs, its advice silenced).
supported() { "$1" scripts/check-node.mjs 2>/dev/null; }
if supported node; then
  echo "Node $(node --version) satisfies ngym's engines (>= $floor); nothing to install." >&2
  exit 0
fi
local_node="$PWD/.node/node_modules/.bin/node"
if [ -x "$local_node" ] && supported "$local_node"; then
  echo "Node $(node --version 2>/dev/null || echo 'on PATH') is older than $floor; reusing Node $("$local_node" --version) in .node/. Use it with:" >&2
else
  echo "Node $(node --version 2>/dev/null || echo 'on PATH') is older than $floor; installing Node 22 from the npm registry into .node/" >&2
  mkdir -p .node
  # The `node` package installs the binary in its preinstall script: approve it, so npm does not warn about it.
  echo '{"private": true, "allowScripts": {"node": true}}' >.node/package.json
  npm install --prefix .node --no-audit --no-fund --no-save --loglevel=error node@22 >&2
  supported "$local_node" || { echo "The Node installed in .node/ ($("$local_node" --version)) does not satisfy $floor either." >&2; exit 1; }
  echo "Installed Node $("$local_node" --version). Use it with:" >&2
fi
echo "export PATH=\"$PWD/.node/node_modules/.bin:\$PATH\""
