#!/usr/bin/env bash
# TLS servers for the tests, with certificates made now by the openssl CLI.
#   tests/valkey-tls.sh certs DIR                 -> DIR/{ca,other-ca,server,client,other-client}.{pem,key}
#   tests/valkey-tls.sh start DIR [AUTH [CERTS]]  -> a TLS-only valkey-server on a free loopback port
#        (AUTH: tls-auth-clients no|yes|optional, default no; CERTS: a certs DIR, default DIR/certs,
#        made when missing). URL in DIR/url, the server's unix socket (no TLS) at DIR/valkey.sock
#        for the tests' own inspection.
#   tests/valkey-tls.sh cluster DIR [CERTS]       -> a three-master cluster, TLS on the client port and
#        the bus; node URLs in DIR/urls
#   tests/valkey-tls.sh stop DIR                  -> stops the server(s) by PID and removes DIR
# The server certificate names localhost and 127.0.0.1; other-ca signed nothing the server uses;
# other-client is a client certificate from other-ca.
set -euo pipefail
cmd=${1:?usage: valkey-tls.sh certs|start|cluster|stop DIR}
dir=${2:?usage: valkey-tls.sh certs|start|cluster|stop DIR}
bin=${VALKEY_SERVER:-valkey-server}
cli=${VALKEY_CLI:-valkey-cli}

free_port() {  # a port whose port + 10000 (the cluster bus) is free too
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

certs() {
  local c=$1
  [ -s "$c/client.key" ] && return 0
  mkdir -p "$c"
  local ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  for ca in ca other-ca; do
    openssl req -x509 "${ec[@]}" -keyout "$c/$ca.key" -out "$c/$ca.pem" -days 3 \
      -subj "/CN=EchoMQ test $ca" 2>/dev/null
  done
  # name ca-name ext: a key, and a certificate signed by that CA.
  leaf() {
    openssl req "${ec[@]}" -keyout "$c/$1.key" -out "$c/$1.csr" -subj "/CN=$1" 2>/dev/null
    openssl x509 -req -in "$c/$1.csr" -CA "$c/$2.pem" -CAkey "$c/$2.key" -CAcreateserial \
      -out "$c/$1.pem" -days 3 -extfile <(printf '%b' "$3") 2>/dev/null
    rm -f "$c/$1.csr"
  }
  leaf server ca 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth'
  leaf client ca 'extendedKeyUsage=clientAuth'
  leaf other-client other-ca 'extendedKeyUsage=clientAuth'
  chmod 600 "$c"/*.key
}

tls_args() {  # certs-dir auth
  echo --tls-cert-file "$1/server.pem" --tls-key-file "$1/server.key" \
    --tls-ca-cert-file "$1/ca.pem" --tls-auth-clients "$2"
}

stop() {
  for pidfile in "$dir"/valkey.pid "$dir"/n*/valkey.pid; do
    [ -s "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$dir"
}

case "$cmd" in
certs)
  certs "$dir"
  ;;
start)
  auth=${3:-no}
  c=${4:-$dir/certs}
  mkdir -p "$dir"
  certs "$c"
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    rm -f "$dir/valkey.pid"
    # shellcheck disable=SC2046
    if "$bin" --bind 127.0.0.1 --port 0 --tls-port "$port" $(tls_args "$c" "$auth") \
         --dir "$dir" --save "" --appendonly no --daemonize yes --pidfile "$dir/valkey.pid" \
         --logfile "$dir/valkey.log" --unixsocket "$dir/valkey.sock" --unixsocketperm 700 \
         >/dev/null 2>&1; then
      for _ in $(seq 1 100); do
        if [ -S "$dir/valkey.sock" ] && [ -s "$dir/valkey.pid" ]; then
          echo "valkeys://127.0.0.1:$port?ca=$c/ca.pem" >"$dir/url"
          cat "$dir/url"
          exit 0
        fi
        sleep 0.05
      done
    fi
    [ -s "$dir/valkey.pid" ] && kill "$(cat "$dir/valkey.pid")" 2>/dev/null || true
  done
  echo "valkey-tls.sh: could not start $bin with TLS (see $dir/valkey.log)" >&2
  exit 1
  ;;
cluster)
  c=${3:-$dir/certs}
  mkdir -p "$dir"
  certs "$c"
  : >"$dir/urls"
  addrs=()
  tlscli=(--tls --cacert "$c/ca.pem")
  for i in 1 2 3; do
    port=$(free_port)
    node="$dir/n$i"
    mkdir -p "$node"
    # shellcheck disable=SC2046
    "$bin" --bind 127.0.0.1 --port 0 --tls-port "$port" --tls-cluster yes $(tls_args "$c" no) \
      --tls-client-cert-file "$c/server.pem" --tls-client-key-file "$c/server.key" \
      --cluster-enabled yes --cluster-config-file nodes.conf --dir "$node" --save "" \
      --appendonly no --daemonize yes --pidfile "$node/valkey.pid" --logfile "$node/valkey.log" \
      --unixsocket "$node/valkey.sock" --unixsocketperm 700 >/dev/null
    for _ in $(seq 1 100); do "$cli" -s "$node/valkey.sock" ping >/dev/null 2>&1 && break; sleep 0.05; done
    addrs+=("127.0.0.1:$port")
    echo "valkeys://127.0.0.1:$port?ca=$c/ca.pem" >>"$dir/urls"
  done
  if ! "$cli" "${tlscli[@]}" --cluster create "${addrs[@]}" --cluster-replicas 0 --cluster-yes \
       >"$dir/create.log" 2>&1; then
    cat "$dir/create.log" >&2
    stop
    exit 1
  fi
  for _ in $(seq 1 400); do
    ready=1
    for i in 1 2 3; do
      "$cli" -s "$dir/n$i/valkey.sock" cluster info 2>/dev/null | grep -q '^cluster_state:ok' || ready=0
    done
    if [ "$ready" = 1 ]; then
      cat "$dir/urls"
      exit 0
    fi
    sleep 0.05
  done
  echo "valkey-tls.sh: the TLS cluster did not reach state ok" >&2
  stop
  exit 1
  ;;
stop)
  stop
  ;;
*)
  echo "usage: valkey-tls.sh certs|start|cluster|stop DIR" >&2
  exit 2
  ;;
esac
