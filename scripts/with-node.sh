#!/usr/bin/env bash
# Runs a command under one Node.js line, for a machine whose own Node is older than package.json's
# engines (or to measure another maintained line):
#
#   scripts/with-node.sh 24 npm run bench      the command, with Node 24 first on PATH
#   scripts/with-node.sh --bin 24              prints the folder that holds that line's node
#
# The line comes from the npm registry's `node` package (no other download), installed once into
# $PAYLINKS_NODE_CACHE (default: $TMPDIR/paylinks-ci-node, the folder .ci/run uses). Whatever the
# command starts through PATH (npm, npx, bin/paylinks.js's `env node`) runs on that line too.
set -euo pipefail

usage() {
  echo "usage: scripts/with-node.sh <major> <command> [args...] | --bin <major>" >&2
  exit 2
}

print_bin=0
if [ "${1:-}" = "--bin" ]; then
  print_bin=1
  shift
fi
line="${1:-}"
[[ "$line" =~ ^[0-9]+$ ]] || usage
shift
[ "$print_bin" = 1 ] || [ $# -gt 0 ] || usage

dir="${PAYLINKS_NODE_CACHE:-${TMPDIR:-/tmp}/paylinks-ci-node}/$line"
if [ ! -x "$dir/node_modules/.bin/node" ]; then
  npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "node@$line" >/dev/null
fi
bin="$dir/node_modules/.bin"
if [ "$print_bin" = 1 ]; then
  echo "$bin"
  exit 0
fi
PATH="$bin:$PATH" exec "$@"
