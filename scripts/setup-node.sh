#!/usr/bin/env bash
# `npm run setup:node`: ngym needs Node.js >= 22.13 (package.json engines). When the Node on PATH is older, this
# installs Node 22 from the npm registry (the `node` package, which fetches the binary for this platform) into
# .node/ and prints the line that puts it first on PATH. .ci/run uses it on machines with an older Node.
set -euo pipefail
cd "$(dirname "$0")/.."
supported='const [major, minor] = process.versions.node.split(".").map(Number); process.exit(major > 22 || (major === 22 && minor >= 13) ? 0 : 1)'
if node -e "$supported"; then
  echo "Node $(node --version) satisfies ngym's engines (>= 22.13); nothing to install." >&2
  exit 0
fi
echo "Node $(node --version) is older than 22.13; installing Node 22 from the npm registry into .node/" >&2
mkdir -p .node
# The `node` package installs the binary in its preinstall script: approve it, so npm does not warn about it.
echo '{"private": true, "allowScripts": {"node": true}}' >.node/package.json
npm install --prefix .node --no-audit --no-fund --no-save --loglevel=error node@22 >&2
PATH="$PWD/.node/node_modules/.bin:$PATH" node -e "$supported"
echo "Installed Node $(.node/node_modules/.bin/node --version). Use it with:" >&2
echo "export PATH=\"$PWD/.node/node_modules/.bin:\$PATH\""
