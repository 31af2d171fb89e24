#!/usr/bin/env bash
# Installs the third-party MCP servers that the optional peer tests (tests/peers/test_peers.py,
# docs/peers.md) run the harness against, into one folder, nothing global:
#
#   DIR/server-everything/   npm --prefix: @modelcontextprotocol/server-everything (stdio, HTTP)
#   DIR/server-memory/       npm --prefix: @modelcontextprotocol/server-memory (stdio)
#   DIR/mcp-server-time/     a virtual environment of its own with mcp-server-time (stdio);
#                            its `mcp` pin may differ from the kit's, so never the kit's venv
#   DIR/engram-v1/bin/engram the Engram memory server (Go, Gentleman-Programming/engram), built
#   DIR/engram-v3/bin/engram by module name through the Go module proxy; Go's module and build
#                            caches stay in DIR/go/, so that a rerun builds nothing again
#
# Usage: tests/peers/install.sh [DIR]; DIR defaults to $ENGRAM_PEERS_DIR, else
# ~/.cache/engram-conformance/peers. Point ENGRAM_PEERS_DIR at DIR for the tests to find them.
#
# Idempotent: a peer whose folder holds the stamp of the pinned version is left alone. Soft:
# a peer that cannot be installed (no node/npm or go, no network, a version the registry does
# not serve, a failed build) is reported and its folder removed, and the script still exits 0,
# so that the peer tests skip instead of failing.
# Versions are pinned (override with the variables below) so that runs are reproducible.
set -uo pipefail

DIR=${1:-${ENGRAM_PEERS_DIR:-${HOME}/.cache/engram-conformance/peers}}
EVERYTHING=${ENGRAM_PEER_EVERYTHING:-@modelcontextprotocol/server-everything@2026.8.31}
MEMORY=${ENGRAM_PEER_MEMORY:-@modelcontextprotocol/server-memory@2026.8.31}
TIME=${ENGRAM_PEER_TIME:-mcp-server-time==2026.10.19}
ENGRAM_V1=${ENGRAM_PEER_ENGRAM_V1:-github.com/Gentleman-Programming/engram@v1.20.0}
ENGRAM_V3=${ENGRAM_PEER_ENGRAM_V3:-github.com/Gentleman-Programming/engram/v3@v3.7.2}
ENGRAM_V3_TOOLCHAIN=${ENGRAM_PEER_ENGRAM_V3_TOOLCHAIN:-go1.27.3}  # v3's go.mod needs Go 1.27
STEP_TIMEOUT_S=${ENGRAM_PEERS_TIMEOUT_S:-300}  # per peer; the registries' own timeouts are short
GO_TIMEOUT_S=${ENGRAM_PEERS_GO_TIMEOUT_S:-1800}  # a cold Go build takes minutes on two cores

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

go_build() {  # go_build FOLDER MODULE VERSION: MODULE/cmd/engram at VERSION into FOLDER/bin/engram
  # `go install MODULE/cmd/engram@VERSION` first; where the proxy serves the version but refuses
  # the module's version list (go install reads it for deprecation notices), the same build from
  # a scratch module that requires exactly that version
  GOBIN=$1/bin go install "$2/cmd/engram@$3" && return 0
  mkdir -p "$1/build" &&
    (cd "$1/build" && go mod init engram-peer-build && go get "$2/cmd/engram@$3" &&
      go build -o "$1/bin/engram" "$2/cmd/engram")
}

go_peer() {  # go_peer NAME MODULE@VERSION [TOOLCHAIN]
  if installed "$1" "$2"; then
    say "$1: $2 already installed"
    return
  fi
  if ! command -v go >/dev/null; then
    say "$1: go not found; its peer tests will skip"
    return
  fi
  rm -rf "${DIR:?}/$1"
  mkdir -p "$DIR/$1/bin"
  local toolchain=${3:-local}
  (
    export GOPATH=$DIR/go/path GOMODCACHE=$DIR/go/mod GOCACHE=$DIR/go/cache GOTOOLCHAIN=$toolchain
    export GOFLAGS=-modcacherw  # the module cache stays removable (rm -rf) like the rest of DIR
    if command -v timeout >/dev/null; then
      export -f go_build
      timeout "$GO_TIMEOUT_S" bash -c 'go_build "$@"' _ "$DIR/$1" "${2%@*}" "${2##*@}"
    else
      go_build "$DIR/$1" "${2%@*}" "${2##*@}"
    fi
  ) >"$DIR/$1.log" 2>&1
  local status=$?
  [ $status -ne 0 ] || [ -x "$DIR/$1/bin/engram" ] || status=127  # built, but not where it runs
  rm -rf "${DIR:?}/$1/build"
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
go_peer engram-v1 "$ENGRAM_V1"
go_peer engram-v3 "$ENGRAM_V3" "$ENGRAM_V3_TOOLCHAIN"
say "done in $((SECONDS - started)) s; export ENGRAM_PEERS_DIR=$DIR"
exit 0
