# OpenSSL (libssl, libcrypto) under the TLS transport (cpp/transport.cpp).
# Always the system's shared libraries: they get the system's security
# updates, and every distribution ships them.
find_package(OpenSSL 1.1.1 QUIET COMPONENTS SSL Crypto)
if(NOT OPENSSL_FOUND)
  message(FATAL_ERROR "EchoMQ: OpenSSL (1.1.1 or later, with headers) not found; it carries TLS. "
    "On Debian/Ubuntu: apt-get install libssl-dev (or run scripts/setup-deps.sh); on Fedora: "
    "dnf install openssl-devel. For an OpenSSL in another prefix: -DOPENSSL_ROOT_DIR=/path.")
endif()
