#!/bin/sh
# End-to-end test of `awp mcp` with a real MCP client nobody here wrote:
# the official TypeScript SDK (@modelcontextprotocol/sdk), pinned by
# package-lock.json and installed with `npm ci`. It runs two `awp run`
# peers and drives `awp mcp` over stdio (e2e.mjs says what it checks).
#
# Needs node and npm (Debian: nodejs npm; scripts/deps.sh test installs
# them) and network access to the npm registry, or its packages in the npm
# cache. Run from anywhere:
#   scripts/mcp/e2e.sh [path/to/awp]     (default: build/awp, `make awp`)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
awp=${1:-$root/build/awp}
for tool in node npm; do
	command -v "$tool" >/dev/null 2>&1 || { echo "mcp e2e: $tool is missing (apt-get install nodejs npm)" >&2; exit 1; }
done
[ -x "$awp" ] || { echo "mcp e2e: no $awp (make awp builds it)" >&2; exit 1; }
case $awp in /*) ;; *) awp=$(pwd)/$awp ;; esac
cd "$root/scripts/mcp"
npm ci --no-audit --no-fund --loglevel=error >&2
exec node e2e.mjs "$awp"
