#!/usr/bin/env bash
# Starts or stops a throwaway three-master Valkey Cluster on free loopback ports.
#   tests/valkey-cluster.sh start DIR   -> node URLs, one per line, in DIR/urls
#   tests/valkey-cluster.sh stop DIR    -> stops every node and removes DIR
set -euo pipefail
cmd=${1:?usage: valkey-cluster.sh start|stop DIR}
dir=${2:?usage: valkey-cluster.sh start|stop DIR}
bin=${VALKEY_SERVER:-valkey-server}
cli=${VALKEY_CLI:-valkey-cli}
# shellcheck source=valkey-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/valkey-lib.sh"

case "$cmd" in
start)
  cluster_cli=()
  start_cluster "$dir" --port "valkey://127.0.0.1:" ""
  ;;
stop) stop_servers "$dir" ;;
*)
  echo "usage: valkey-cluster.sh start|stop DIR" >&2
  exit 2
  ;;
esac
