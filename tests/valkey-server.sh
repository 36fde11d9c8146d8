#!/usr/bin/env bash
# Starts or stops a throwaway valkey-server on a free loopback port.
#   tests/valkey-server.sh start DIR   -> server data in DIR, URL written to DIR/url and printed
#   tests/valkey-server.sh stop DIR    -> stops it and removes DIR
# Persistence is off; the server lives only for one test run.
set -euo pipefail
cmd=${1:?usage: valkey-server.sh start|stop DIR}
dir=${2:?usage: valkey-server.sh start|stop DIR}
bin=${VALKEY_SERVER:-valkey-server}

free_port() {
  python3 - <<'PY'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
PY
}

case "$cmd" in
start)
  mkdir -p "$dir"
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    rm -f "$dir/valkey.pid"
    if "$bin" --bind 127.0.0.1 --port "$port" --dir "$dir" --save "" --appendonly no \
         --daemonize yes --pidfile "$dir/valkey.pid" --logfile "$dir/valkey.log" \
         --unixsocket "$dir/valkey.sock" --unixsocketperm 700 >/dev/null 2>&1; then
      for _ in $(seq 1 100); do
        if [ -S "$dir/valkey.sock" ] && [ -s "$dir/valkey.pid" ]; then
          echo "valkey://127.0.0.1:$port" >"$dir/url"
          cat "$dir/url"
          exit 0
        fi
        sleep 0.05
      done
    fi
    [ -s "$dir/valkey.pid" ] && kill "$(cat "$dir/valkey.pid")" 2>/dev/null || true
  done
  echo "valkey-server.sh: could not start $bin (see $dir/valkey.log)" >&2
  exit 1
  ;;
stop)
  if [ -s "$dir/valkey.pid" ]; then
    pid=$(cat "$dir/valkey.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$dir"
  ;;
*)
  echo "usage: valkey-server.sh start|stop DIR" >&2
  exit 2
  ;;
esac
