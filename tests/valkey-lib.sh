# Shared by tests/valkey-server.sh, valkey-cluster.sh and valkey-tls.sh (sourced, not run):
# free ports, starting one server or a three-master cluster, stopping them by PID.
# The caller sets `bin` (valkey-server) and `cli` (valkey-cli, for clusters).

# A free loopback port the kernel picks.
free_port() {
  python3 - <<'PY'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
PY
}

# A free port whose port + 10000 (the cluster bus) is free as well.
free_bus_port() {
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

# start_one DIR PORT_OPTION URL_PREFIX URL_SUFFIX [server options...]
# One daemonized server in DIR on a free port (PORT_OPTION: --port or --tls-port), with a unix
# socket at DIR/valkey.sock; tries five ports (another process may take one first). Writes
# URL_PREFIX<port>URL_SUFFIX to DIR/url and prints it; exits 1 when no try worked.
start_one() {
  local dir=$1 portopt=$2 prefix=$3 suffix=$4 port
  shift 4
  mkdir -p "$dir"
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    rm -f "$dir/valkey.pid"
    if "$bin" --bind 127.0.0.1 "$portopt" "$port" "$@" --dir "$dir" --save "" --appendonly no \
         --daemonize yes --pidfile "$dir/valkey.pid" --logfile "$dir/valkey.log" \
         --unixsocket "$dir/valkey.sock" --unixsocketperm 700 >/dev/null 2>&1; then
      for _ in $(seq 1 100); do
        if [ -S "$dir/valkey.sock" ] && [ -s "$dir/valkey.pid" ]; then
          echo "$prefix$port$suffix" >"$dir/url"
          cat "$dir/url"
          exit 0
        fi
        sleep 0.05
      done
    fi
    [ -s "$dir/valkey.pid" ] && kill "$(cat "$dir/valkey.pid")" 2>/dev/null || true
  done
  echo "${0##*/}: could not start $bin (see $dir/valkey.log)" >&2
  exit 1
}

# start_cluster DIR PORT_OPTION URL_PREFIX URL_SUFFIX [server options...]
# Three cluster nodes in DIR/n1..n3 on free ports (each with a unix socket, which the checks
# here use), joined with `$cli "${cluster_cli[@]}" --cluster create` (cluster_cli: the
# caller's extra valkey-cli options, may be empty); node URLs, one per line, in DIR/urls.
# Waits until every node sees the whole cluster as ok; prints the URLs and exits 0, or stops
# every node and exits 1.
start_cluster() {
  local dir=$1 portopt=$2 prefix=$3 suffix=$4 port node i
  shift 4
  local addrs=()
  mkdir -p "$dir"
  : >"$dir/urls"
  for i in 1 2 3; do
    port=$(free_bus_port)
    node="$dir/n$i"
    mkdir -p "$node"
    "$bin" --bind 127.0.0.1 "$portopt" "$port" "$@" --cluster-enabled yes \
      --cluster-config-file nodes.conf --dir "$node" --save "" --appendonly no --daemonize yes \
      --pidfile "$node/valkey.pid" --logfile "$node/valkey.log" \
      --unixsocket "$node/valkey.sock" --unixsocketperm 700 >/dev/null
    for _ in $(seq 1 100); do "$cli" -s "$node/valkey.sock" ping >/dev/null 2>&1 && break; sleep 0.05; done
    addrs+=("127.0.0.1:$port")
    echo "$prefix$port$suffix" >>"$dir/urls"
  done
  if ! "$cli" "${cluster_cli[@]}" --cluster create "${addrs[@]}" --cluster-replicas 0 --cluster-yes \
       >"$dir/create.log" 2>&1; then
    cat "$dir/create.log" >&2
    stop_servers "$dir"
    exit 1
  fi
  # Every node must see the whole cluster as ok, not only the first one.
  for _ in $(seq 1 400); do
    local ready=1
    for i in 1 2 3; do
      "$cli" -s "$dir/n$i/valkey.sock" cluster info 2>/dev/null | grep -q '^cluster_state:ok' || ready=0
    done
    if [ "$ready" = 1 ]; then
      cat "$dir/urls"
      exit 0
    fi
    sleep 0.05
  done
  echo "${0##*/}: the cluster did not reach state ok" >&2
  stop_servers "$dir"
  exit 1
}

# stop_servers DIR: stops the server of DIR and the cluster nodes of DIR/n* by their PIDs
# (TERM, then KILL after five seconds) and removes DIR.
stop_servers() {
  local dir=$1 pidfile pid
  for pidfile in "$dir"/valkey.pid "$dir"/n*/valkey.pid; do
    [ -s "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$dir"
}
