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

# shellcheck source=valkey-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/valkey-lib.sh"

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

case "$cmd" in
certs)
  certs "$dir"
  ;;
start)
  auth=${3:-no}
  c=${4:-$dir/certs}
  mkdir -p "$dir"
  certs "$c"
  # shellcheck disable=SC2046
  start_one "$dir" --tls-port "valkeys://127.0.0.1:" "?ca=$c/ca.pem" --port 0 $(tls_args "$c" "$auth")
  ;;
cluster)
  c=${3:-$dir/certs}
  mkdir -p "$dir"
  certs "$c"
  cluster_cli=(--tls --cacert "$c/ca.pem")
  # shellcheck disable=SC2046
  start_cluster "$dir" --tls-port "valkeys://127.0.0.1:" "?ca=$c/ca.pem" --port 0 --tls-cluster yes \
    $(tls_args "$c" no) --tls-client-cert-file "$c/server.pem" --tls-client-key-file "$c/server.key"
  ;;
stop)
  stop_servers "$dir"
  ;;
*)
  echo "usage: valkey-tls.sh certs|start|cluster|stop DIR" >&2
  exit 2
  ;;
esac
