#!/usr/bin/env bash
# Installs the third-party MCP servers that the optional peer tests (tests/peers/test_peers.py,
# docs/peers.md) run the harness against, into one folder, nothing global:
#
#   DIR/server-everything/   npm --prefix: @modelcontextprotocol/server-everything (stdio, HTTP)
#   DIR/server-memory/       npm --prefix: @modelcontextprotocol/server-memory (stdio)
#   DIR/mcp-server-time/     a virtual environment of its own with mcp-server-time (stdio);
#                            its `mcp` pin may differ from the kit's, so never the kit's venv
#
# Usage: tests/peers/install.sh [DIR]; DIR defaults to $ENGRAM_PEERS_DIR, else
# ~/.cache/engram-conformance/peers. Point ENGRAM_PEERS_DIR at DIR for the tests to find them.
#
# Idempotent: a peer whose folder holds the stamp of the pinned version is left alone. Soft:
# a peer that cannot be installed (no node/npm, no network, a failed build) is reported and its
# folder removed, and the script still exits 0, so that the peer tests skip instead of failing.
# Versions are pinned (override with the variables below) so that runs are reproducible.
set -uo pipefail

DIR=${1:-${ENGRAM_PEERS_DIR:-${HOME}/.cache/engram-conformance/peers}}
EVERYTHING=${ENGRAM_PEER_EVERYTHING:-@modelcontextprotocol/server-everything@2026.8.31}
MEMORY=${ENGRAM_PEER_MEMORY:-@modelcontextprotocol/server-memory@2026.8.31}
TIME=${ENGRAM_PEER_TIME:-mcp-server-time==2026.10.19}
STEP_TIMEOUT_S=${ENGRAM_PEERS_TIMEOUT_S:-300}  # per peer; the registries' own timeouts are short

say() { echo "peers: $*"; }

limit() {  # limit COMMAND...: run it for at most STEP_TIMEOUT_S seconds, where timeout exists
  if command -v timeout >/dev/null; then timeout "$STEP_TIMEOUT_S" "$@"; else "$@"; fi
}

installed() {  # installed NAME SPEC: the folder holds the stamp of exactly this version
  [ -f "$DIR/$1/.engram-peer" ] && [ "$(cat "$DIR/$1/.engram-peer")" = "$2" ]
}

finish() {  # finish NAME SPEC STATUS: stamp a success, remove a failure's remains
  if [ "$3" -eq 0 ]; then
    echo "$2" >"$DIR/$1/.engram-peer"
    say "$1: installed $2"
  else
    rm -rf "${DIR:?}/$1"
    say "$1: could not install $2 (status $3); its peer tests will skip"
  fi
}

npm_peer() {  # npm_peer NAME SPEC
  if installed "$1" "$2"; then
    say "$1: $2 already installed"
    return
  fi
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    say "$1: node or npm not found; its peer tests will skip"
    return
  fi
  rm -rf "${DIR:?}/$1"
  mkdir -p "$DIR/$1"
  limit npm install --prefix "$DIR/$1" --no-audit --no-fund --loglevel=error \
    --fetch-timeout=30000 --fetch-retries=1 "$2" >"$DIR/$1.log" 2>&1
  local status=$?
  [ $status -eq 0 ] || tail -n 5 "$DIR/$1.log" | sed 's/^/peers:   /'
  finish "$1" "$2" $status
}

python_peer() {  # python_peer NAME SPEC
  if installed "$1" "$2"; then
    say "$1: $2 already installed"
    return
  fi
  local python=${ENGRAM_PEERS_PYTHON:-python3}
  if ! command -v "$python" >/dev/null; then
    say "$1: $python not found; its peer tests will skip"
    return
  fi
  rm -rf "${DIR:?}/$1"
  {
    "$python" -m venv "$DIR/$1" &&
      limit "$DIR/$1/bin/python" -m pip install --quiet --disable-pip-version-check \
        --timeout 30 --retries 1 "$2"
  } >"$DIR/$1.log" 2>&1
  local status=$?
  [ $status -eq 0 ] || tail -n 5 "$DIR/$1.log" | sed 's/^/peers:   /'
  finish "$1" "$2" $status
}

if ! mkdir -p "$DIR" 2>/dev/null; then
  say "cannot create $DIR; the peer tests will skip"
  exit 0
fi
DIR=$(cd "$DIR" && pwd)
started=$SECONDS
# the preload that keeps server-everything's HTTP listener on 127.0.0.1 (targets/peers/)
cp "$(dirname "$0")/loopback.cjs" "$DIR/loopback.cjs"
npm_peer server-everything "$EVERYTHING"
npm_peer server-memory "$MEMORY"
python_peer mcp-server-time "$TIME"
say "done in $((SECONDS - started)) s; export ENGRAM_PEERS_DIR=$DIR"
exit 0
