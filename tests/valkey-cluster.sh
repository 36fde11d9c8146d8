#!/usr/bin/env bash
# Starts or stops a throwaway three-master Valkey Cluster on free loopback ports.
#   tests/valkey-cluster.sh start DIR   -> node URLs, one per line, in DIR/urls
#   tests/valkey-cluster.sh stop DIR    -> stops every node and removes DIR
set -euo pipefail
cmd=${1:?usage: valkey-cluster.sh start|stop DIR}
dir=${2:?usage: valkey-cluster.sh start|stop DIR}
bin=${VALKEY_SERVER:-valkey-server}
cli=${VALKEY_CLI:-valkey-cli}

# Cluster nodes also listen on port + 10000 (the bus): pick ports whose bus
# port is free as well.
free_port() {
  python3 - <<'PY'
import random, socket
for _ in range(200):
    p = random.randint(20000, 50000)
    ok = True
    for q in (p, p + 10000):
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", q))
        except OSError:
            ok = False
        finally:
            s.close()
    if ok:
        print(p)
        break
PY
}

stop() {
  for pidfile in "$dir"/n*/valkey.pid; do
    [ -s "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$dir"
}

case "$cmd" in
start)
  mkdir -p "$dir"
  : >"$dir/urls"
  addrs=()
  for i in 1 2 3; do
    port=$(free_port)
    node="$dir/n$i"
    mkdir -p "$node"
    "$bin" --bind 127.0.0.1 --port "$port" --cluster-enabled yes --cluster-config-file nodes.conf \
      --dir "$node" --save "" --appendonly no --daemonize yes --pidfile "$node/valkey.pid" \
      --logfile "$node/valkey.log" >/dev/null
    for _ in $(seq 1 100); do "$cli" -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
    addrs+=("127.0.0.1:$port")
    echo "valkey://127.0.0.1:$port" >>"$dir/urls"
  done
  if ! "$cli" --cluster create "${addrs[@]}" --cluster-replicas 0 --cluster-yes >"$dir/create.log" 2>&1; then
    cat "$dir/create.log" >&2
    stop
    exit 1
  fi
  # Every node must see the whole cluster as ok, not only the first one.
  for _ in $(seq 1 400); do
    ready=1
    for a in "${addrs[@]}"; do
      "$cli" -p "${a##*:}" cluster info 2>/dev/null | grep -q '^cluster_state:ok' || ready=0
    done
    if [ "$ready" = 1 ]; then
      cat "$dir/urls"
      exit 0
    fi
    sleep 0.05
  done
  echo "valkey-cluster.sh: the cluster did not reach state ok" >&2
  stop
  exit 1
  ;;
stop) stop ;;
*)
  echo "usage: valkey-cluster.sh start|stop DIR" >&2
  exit 2
  ;;
esac
