#!/usr/bin/env bash
# Starts or stops a throwaway valkey-server on a free loopback port.
#   tests/valkey-server.sh start DIR   -> server data in DIR, URL written to DIR/url and printed
#   tests/valkey-server.sh stop DIR    -> stops it and removes DIR
# Persistence is off; the server lives only for one test run.
set -euo pipefail
cmd=${1:?usage: valkey-server.sh start|stop DIR}
dir=${2:?usage: valkey-server.sh start|stop DIR}
bin=${VALKEY_SERVER:-valkey-server}
# shellcheck source=valkey-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/valkey-lib.sh"

case "$cmd" in
start) start_one "$dir" --port "valkey://127.0.0.1:" "" ;;
stop) stop_servers "$dir" ;;
*)
  echo "usage: valkey-server.sh start|stop DIR" >&2
  exit 2
  ;;
esac
