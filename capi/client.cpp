// echomq/client.h: the client handle.
#include "echomq/client.h"

#include <string>

#include "guard.hpp"
#include "handles.hpp"
#include "mapping.hpp"
#include "tls.hpp"
#include "versioned.hpp"

using emqcapi::guard;
using emqcapi::guarded;

extern "C" {

int echomq_client_options_init(echomq_client_options* opts, unsigned int version) {
  return emqcapi::initVersioned(opts, version, echomq_client_options ECHOMQ_CLIENT_OPTIONS_INIT);
}

int echomq_client_new(echomq_client** out, const echomq_client_options* opts) {
  if (!out) return ECHOMQ_EINVAL;
  *out = nullptr;
  return guard([&] {
    const echomq_client_options c =
        emqcapi::readVersioned(opts, echomq_client_options ECHOMQ_CLIENT_OPTIONS_INIT, "client options");
    echomq::ClientOptions o;
    emqcapi::setConnection(o, c.connect_timeout_ms, c.command_timeout_ms, c.wait_replicas, c.wait_aof,
                           c.wait_timeout_ms);
    if (c.max_payload_bytes < 1 || c.max_payload_bytes > ECHOMQ_HARD_MAX_PAYLOAD)
      echomq::invalid("max_payload_bytes must be 1..ECHOMQ_HARD_MAX_PAYLOAD");
    o.max_payload = c.max_payload_bytes;
    auto str = [](const char* p) { return p ? std::string(p) : std::string(); };
    o.tls.ca = str(c.tls_ca);
    o.tls.cert = str(c.tls_cert);
    o.tls.key = str(c.tls_key);
    o.tls.sni = str(c.tls_sni);
    if (c.tls_insecure_skip_verify != 0 && c.tls_insecure_skip_verify != 1)
      echomq::invalid("tls_insecure_skip_verify must be 0 or 1");
    o.tls.verify = c.tls_insecure_skip_verify == 0;
    // The files are read now, so a missing one is EINVAL here and not at
    // connect (the URL may still override them, and is checked then).
    if (echomq::anyTls(o.tls)) {
      echomq::TlsSettings t = o.tls;
      t.on = true;
      echomq::tlsContext(t);
    }
    *out = new echomq_client(o);
  });
}

echomq_client* echomq_client_create(const echomq_client_options* opts) {
  echomq_client* c = nullptr;
  return echomq_client_new(&c, opts) == ECHOMQ_OK ? c : nullptr;
}

int echomq_client_connect(echomq_client* c, const char* url) {
  return guarded(c, [&] {
    if (!url) echomq::invalid("URL is NULL");
    c->core.connect(url);
  });
}

void echomq_client_free(echomq_client* c) { delete c; }

const char* echomq_client_errmsg(const echomq_client* c) {
  return c ? c->errmsg.c_str() : "no client handle";
}

int echomq_client_errcode(const echomq_client* c) { return c ? c->errcode : ECHOMQ_EINVAL; }

int echomq_client_connected(const echomq_client* c) { return c && c->core.connected() ? 1 : 0; }

void echomq_client_cancel(echomq_client* c) {
  if (!c) return;
  try {
    c->core.cancel();
  } catch (...) {
  }
}

int echomq_client_ping(echomq_client* c) {
  return guarded(c, [&] { c->core.ping(); });
}

}  // extern "C"
