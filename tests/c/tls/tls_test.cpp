// TLS on every connection, against real TLS valkey-servers whose
// certificates tests/valkey-tls.sh makes at test time with the openssl CLI:
// verification (chain, host name, IP address), refusals with ETLS and no
// command run, client certificates, the C options, bad input refused with
// EINVAL before any I/O, the worker engine, cancel, a killed connection and
// a three-master TLS cluster. The fixture's server (EMQ_TEST_TLS_DIR, or
// $ECHOMQ_TEST_TLS_DIR)
// takes no client certificates; the tests start the others themselves.
#include "test_env.hpp"

#include "engine_drain.hpp"
#include "raw_valkey.hpp"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <future>
#include <sstream>

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;

std::string tls_dir() {
  const char *d = std::getenv("ECHOMQ_TEST_TLS_DIR");
  return d && *d ? d : EMQ_TEST_TLS_DIR;  // the valkey_tls fixture's
}

std::string first_line(const std::string &file) {
  std::ifstream in(file);
  INFO("cannot read " << file);
  REQUIRE(in.good());
  std::string line;
  std::getline(in, line);
  REQUIRE(!line.empty());
  return line;
}

std::string certs() { return tls_dir() + "/certs"; }
std::string cert(const std::string &name) { return certs() + "/" + name; }

/// "valkeys://127.0.0.1:PORT" of the fixture's server, without a query.
std::string base_url() {
  const std::string url = first_line(tls_dir() + "/url");
  return url.substr(0, url.find('?'));
}
int tls_port() { return std::atoi(base_url().substr(base_url().rfind(':') + 1).c_str()); }

/// Commands the server ran so far, read over its unix socket.
long long commands_run(const std::string &sock) {
  RawValkey raw(sock);
  ReplyPtr r = raw.must({"INFO", "stats"});
  std::istringstream in(std::string(r->str, r->len));
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("total_commands_processed:", 0) == 0) return std::atoll(line.c_str() + 25);
  FAIL("no total_commands_processed in INFO stats");
  return -1;
}

/// connect(url) must fail with `status`; returns the message.
std::string refused(const std::string &url, int status, const echomq_client_options *opts = nullptr) {
  echomq_client *raw = nullptr;
  REQUIRE(echomq_client_new(&raw, opts) == ECHOMQ_OK);
  ClientPtr c(raw);
  const int rc = echomq_client_connect(c.get(), url.c_str());
  INFO("connect(" << url << ") -> " << describe(c.get(), rc));
  REQUIRE(rc == status);
  CHECK(echomq_client_connected(c.get()) == 0);
  return echomq_client_errmsg(c.get());
}

/// Runs url's refusal and requires that the server ran no command for it:
/// the count moves by exactly what the two INFO calls themselves add.
std::string refused_unseen(const std::string &sock, const std::string &url, int status) {
  const long long a = commands_run(sock);
  const long long b = commands_run(sock);  // the cost of one look
  const std::string msg = refused(url, status);
  const long long c = commands_run(sock);
  INFO("commands run: " << a << ", " << b << ", " << c);
  CHECK(c - b == b - a);
  return msg;
}

void round_trip(echomq_client *c) {
  const std::string q = fresh_queue("tls");
  const uint64_t id = enqueue(c, q, "g", "over tls");
  JobPtr job = claim(c, q, kLease);
  REQUIRE(job);
  CHECK(echomq_job_id(job.get()) == id);
  size_t len = 0;
  const char *payload = echomq_job_payload(job.get(), &len);
  CHECK(std::string(payload, len) == "over tls");
  ack(c, q, job.get());
  require_verified(c, q);
}

/// A TLS server or cluster of the test's own (tests/valkey-tls.sh), stopped
/// by PID when it goes.
class OwnTls {
 public:
  /// kind: "start" (one server; auth = tls-auth-clients) or "cluster".
  OwnTls(const std::string &kind, const std::string &auth = "no") {
    char tmpl[] = "/tmp/emq-tls-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    dir_ = tmpl;
    std::string cmd = "bash '" EMQ_TLS_SCRIPT "' " + kind + " '" + dir_ + "' ";
    cmd += kind == "start" ? auth + " '" + certs() + "'" : "'" + certs() + "'";
    cmd += " >/dev/null";
    INFO("running " << cmd);
    REQUIRE(std::system(cmd.c_str()) == 0);
  }
  ~OwnTls() {
    const std::string cmd = "bash '" EMQ_TLS_SCRIPT "' stop '" + dir_ + "'";
    if (std::system(cmd.c_str()) != 0) {
      // Nothing more to do: the directory names the pids left.
    }
  }
  std::string url() const { return first_line(dir_ + "/url"); }
  std::string base() const { return url().substr(0, url().find('?')); }
  std::string sock() const { return dir_ + "/valkey.sock"; }
  std::vector<std::string> urls() const {
    std::ifstream in(dir_ + "/urls");
    std::vector<std::string> out;
    for (std::string l; std::getline(in, l);)
      if (!l.empty()) out.push_back(l);
    return out;
  }
  std::string node_sock(int i) const { return dir_ + "/n" + std::to_string(i) + "/valkey.sock"; }

 private:
  std::string dir_;
};

}  // namespace

TEST_CASE("valkeys:// and rediss:// connect, verify the server and carry the lane operations", "[tls]") {
  const std::string ca = "?ca=" + cert("ca.pem");
  for (const std::string &url : {base_url() + ca, "rediss://127.0.0.1:" + std::to_string(tls_port()) + ca,
                                 // the DNS name of the certificate, and an sni that names it
                                 "valkeys://localhost:" + std::to_string(tls_port()) + ca,
                                 base_url() + ca + "&sni=localhost"}) {
    INFO(url);
    auto c = connect_client(nullptr, url);
    CHECK(echomq_client_connected(c.get()) == 1);
    round_trip(c.get());
  }
}

TEST_CASE("an untrusted certificate is refused with ETLS and no command runs", "[tls]") {
  const std::string sock = tls_dir() + "/valkey.sock";
  // Another CA, and the system's trust store (which does not hold the test CA).
  std::string msg = refused_unseen(sock, base_url() + "?ca=" + cert("other-ca.pem"), ECHOMQ_ETLS);
  CHECK(msg.find("not trusted") != std::string::npos);
  CHECK(msg.find("nothing was sent") != std::string::npos);
  msg = refused_unseen(sock, base_url(), ECHOMQ_ETLS);
  CHECK(msg.find("not trusted") != std::string::npos);
}

TEST_CASE("TLS to a plain port ends at the connect timeout, naming the handshake", "[tls]") {
  // A plain server takes the ClientHello for the start of a command and
  // waits for its end: no answer, so the handshake times out.
  PrivateServer plain(free_port());
  plain.start();
  const std::string tls = "valkeys://127.0.0.1:" + std::to_string(plain.port()) + "?ca=" + cert("ca.pem");
  echomq_client_options o;
  REQUIRE(echomq_client_options_init(&o, ECHOMQ_CLIENT_OPTIONS_VERSION) == ECHOMQ_OK);
  o.connect_timeout_ms = 300;
  const std::string msg = refused(tls, ECHOMQ_ETIMEOUT, &o);
  CHECK(msg.find("TLS handshake") != std::string::npos);
}

TEST_CASE("a certificate for another name is refused with ETLS, verify=none accepts it", "[tls]") {
  const std::string sock = tls_dir() + "/valkey.sock";
  const std::string ca = "?ca=" + cert("ca.pem");
  std::string msg = refused_unseen(sock, base_url() + ca + "&sni=queue.example.com", ECHOMQ_ETLS);
  CHECK(msg.find("queue.example.com") != std::string::npos);
  CHECK(msg.find("mismatch") != std::string::npos);
  // An IP address is checked as one: the certificate names 127.0.0.1, not ::1 or 127.0.0.2.
  msg = refused_unseen(sock, base_url() + ca + "&sni=127.0.0.2", ECHOMQ_ETLS);
  CHECK(msg.find("mismatch") != std::string::npos);
  // verify=none: neither the chain nor the name is checked (tests only).
  auto c = connect_client(nullptr, base_url() + "?ca=" + cert("other-ca.pem") + "&sni=queue.example.com&verify=none");
  round_trip(c.get());
}

TEST_CASE("a server that requires client certificates: none is ETLS, mTLS works", "[tls][mtls]") {
  OwnTls server("start", "yes");
  const std::string ca = "?ca=" + cert("ca.pem");
  std::string msg = refused_unseen(server.sock(), server.base() + ca, ECHOMQ_ETLS);
  INFO(msg);
  CHECK(msg.find("certificate") != std::string::npos);
  CHECK(msg.find("no command ran") != std::string::npos);
  // A client certificate from a CA the server does not trust.
  msg = refused_unseen(server.sock(),
                       server.base() + ca + "&cert=" + cert("other-client.pem") + "&key=" + cert("other-client.key"),
                       ECHOMQ_ETLS);
  // Its own: the connection and the lane operations work.
  auto c = connect_client(nullptr, server.base() + ca + "&cert=" + cert("client.pem") + "&key=" + cert("client.key"));
  round_trip(c.get());
  // The same from the C options (version 3); the URL's query wins over them.
  echomq_client_options o;
  REQUIRE(echomq_client_options_init(&o, ECHOMQ_CLIENT_OPTIONS_VERSION) == ECHOMQ_OK);
  const std::string ca_file = cert("ca.pem"), crt = cert("client.pem"), key = cert("client.key");
  o.tls_ca = ca_file.c_str();
  o.tls_cert = crt.c_str();
  o.tls_key = key.c_str();
  auto viaOptions = connect_client(&o, server.base());
  round_trip(viaOptions.get());
  refused(server.base() + "?ca=" + cert("other-ca.pem"), ECHOMQ_ETLS, &o);
}

TEST_CASE("client options: older versions still work, TLS options need a TLS URL", "[tls][options]") {
  echomq_client_options o;
  REQUIRE(echomq_client_options_init(&o, ECHOMQ_CLIENT_OPTIONS_VERSION_2) == ECHOMQ_OK);
  CHECK(o.version == 2u);
  auto v2 = connect_client(&o, base_url() + "?ca=" + cert("ca.pem"));
  round_trip(v2.get());
  REQUIRE(echomq_client_options_init(&o, ECHOMQ_CLIENT_OPTIONS_VERSION_1) == ECHOMQ_OK);
  auto v1 = connect_client(&o, base_url() + "?ca=" + cert("ca.pem"));
  round_trip(v1.get());

  REQUIRE(echomq_client_options_init(&o, ECHOMQ_CLIENT_OPTIONS_VERSION) == ECHOMQ_OK);
  CHECK(o.tls_ca == nullptr);
  CHECK(o.tls_insecure_skip_verify == 0);
  const std::string ca = cert("ca.pem");
  o.tls_ca = ca.c_str();
  const std::string msg = refused("valkey://127.0.0.1:" + std::to_string(tls_port()), ECHOMQ_EINVAL, &o);
  CHECK(msg.find("not a TLS one") != std::string::npos);
  o.tls_insecure_skip_verify = 2;
  echomq_client *raw = nullptr;
  CHECK(echomq_client_new(&raw, &o) == ECHOMQ_EINVAL);
  CHECK(raw == nullptr);
  o.tls_insecure_skip_verify = 0;
  const std::string missing = certs() + "/missing.pem";
  o.tls_ca = missing.c_str();
  CHECK(echomq_client_new(&raw, &o) == ECHOMQ_EINVAL);
  CHECK(raw == nullptr);
}

TEST_CASE("bad TLS URLs and files are EINVAL before any I/O", "[tls][bad_input]") {
  const std::string sock = tls_dir() + "/valkey.sock";
  const std::string ca = "?ca=" + cert("ca.pem");
  const std::string notcert = certs() + "/not-a-cert.pem";
  {
    std::ofstream out(notcert);
    out << "not a certificate\n";
  }
  const std::string base = base_url();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {base + "?cafile=x", "unknown query parameter 'cafile'"},
      {base + ca + "&ca=" + cert("ca.pem"), "given twice"},
      {base + "?verify=maybe", "verify must be"},
      {base + "?sni=", "needs a value"},
      {"valkey://127.0.0.1:" + std::to_string(tls_port()) + "?sni=localhost", "needs a TLS URL"},
      {"redis://127.0.0.1:" + std::to_string(tls_port()) + "?ca=" + cert("ca.pem"), "needs a TLS URL"},
      {base + "?ca=" + certs() + "/missing.pem", "No such file"},
      {base + "?ca=" + notcert, "cannot be loaded"},
      {base + ca + "&cert=" + certs() + "/missing.pem&key=" + cert("client.key"), "No such file"},
      {base + ca + "&cert=" + cert("client.pem") + "&key=" + certs() + "/missing.key", "No such file"},
      {base + ca + "&cert=" + cert("client.pem") + "&key=" + cert("other-client.key"), "does not match"},
      {base + ca + "&cert=" + notcert + "&key=" + cert("client.key"), "cannot be loaded"},
      {base + ca + "&cert=" + certs() + "&key=" + cert("client.key"), "cannot be loaded"},  // a directory
      {base + ca + "&key=" + cert("client.key"), "key= without cert="},
  };
  const long long before = commands_run(sock);
  RawValkey raw(sock);
  const long long clients = raw.other_clients().size();
  for (const auto &bad : cases) {
    const std::string msg = refused(bad.first, ECHOMQ_EINVAL);
    INFO(bad.first << " -> " << msg);
    CHECK(msg.find(bad.second) != std::string::npos);
    // A worker refuses the same URL when it is created, before any I/O.
    echomq_worker *w = nullptr;
    CHECK(echomq_worker_new(&w, bad.first.c_str(), "q", nullptr) == ECHOMQ_EINVAL);
    CHECK(w == nullptr);
  }
  CHECK(static_cast<long long>(raw.other_clients().size()) == clients);
  // Only the two looks (and the raw connection's CLIENT ID and CLIENT LISTs) ran.
  CHECK(commands_run(sock) - before <= 6);
}

TEST_CASE("the worker engine drains a queue over TLS, each job once", "[tls][engine]") {
  const std::string url = base_url() + "?ca=" + cert("ca.pem");
  auto c = connect_client(nullptr, url);
  const std::string q = fresh_queue("tlsdrain");
  constexpr size_t kJobs = 3000;
  std::vector<std::string> payloads;
  for (size_t i = 0; i < kJobs; ++i) enqueue(c.get(), q, "g" + std::to_string(i % 16), "job " + std::to_string(i));
  echomq_worker_options o;
  REQUIRE(echomq_worker_options_init(&o, ECHOMQ_WORKER_OPTIONS_VERSION) == ECHOMQ_OK);
  o.slots = 64;
  o.idle_wait_ms = 200;  // idle rounds (a BLPOP over TLS) while the hosts catch up
  EngineDrain d;
  d.add_engine(url, q, o, 4);
  d.add_engine(url, q, o, 4);
  d.finish(kJobs, 30000);
  require_verified(c.get(), q);
}

TEST_CASE("echomq_client_cancel interrupts a bclaim waiting over TLS", "[tls][cancel]") {
  auto c = connect_client(nullptr, base_url() + "?ca=" + cert("ca.pem"));
  const std::string q = fresh_queue("tlscancel");
  auto pending = std::async(std::launch::async, [&] {
    echomq_job *j = nullptr;
    const int rc = echomq_bclaim(c.get(), q.c_str(), kLease, 20000, &j);
    echomq_job_free(j);
    return std::make_pair(rc, mono_ms());
  });
  sleep_ms(300);
  REQUIRE(pending.wait_for(std::chrono::milliseconds(0)) == std::future_status::timeout);
  const int64_t at = mono_ms();
  echomq_client_cancel(c.get());
  REQUIRE(pending.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
  const auto out = pending.get();
  CHECK(out.first == ECHOMQ_ECANCELED);
  CHECK(out.second - at < 1000);
  // The next call reconnects (a new TLS session) and works.
  round_trip(c.get());
}

TEST_CASE("a TLS connection killed by the server is reported, never SIGPIPE, and the next call reconnects",
          "[tls][kill]") {
  auto c = connect_client(nullptr, base_url() + "?ca=" + cert("ca.pem"));
  const std::string q = fresh_queue("tlskill");
  RawValkey raw(tls_dir() + "/valkey.sock");
  const std::string big(512 * 1024, 'x');  // more than a socket buffer: the send meets the reset
  for (int round = 0; round < 3; ++round) {
    EMQ_REQUIRE_OK(c.get(), echomq_client_ping(c.get()));
    for (long long id : raw.other_clients()) raw.command({"CLIENT", "KILL", "ID", std::to_string(id)});
    sleep_ms(50);
    const int rc = echomq_enqueue(c.get(), q.c_str(), "g", big.data(), big.size(), nullptr, nullptr);
    INFO("enqueue after CLIENT KILL -> " << describe(c.get(), rc));
    CHECK((rc == ECHOMQ_OK || rc == ECHOMQ_ECONN || rc == ECHOMQ_ETIMEOUT));
    EMQ_REQUIRE_OK(c.get(), echomq_client_ping(c.get()));
    CHECK(echomq_client_connected(c.get()) == 1);
  }
  while (JobPtr j = claim(c.get(), q, kLease)) ack(c.get(), q, j.get());
  require_verified(c.get(), q);
}

TEST_CASE("a three-master TLS cluster: redirects, sharded queues and the engine over TLS", "[tls][cluster]") {
  OwnTls cluster("cluster");
  const auto urls = cluster.urls();
  REQUIRE(urls.size() == 3);
  // sni names the first node only: every redirect checks the host it goes to.
  auto c = connect_client(nullptr, urls[0] + "&sni=localhost");
  // Plain queues whose slots live on every node (12 fresh names: all on one
  // node by chance once in 3^11): MOVED, followed over TLS.
  for (int i = 0; i < 12; ++i) {
    const std::string q = fresh_queue("tlsmoved");
    round_trip(c.get());
    enqueue(c.get(), q, "g", "x");
    JobPtr j = claim(c.get(), q, kLease);
    REQUIRE(j);
    ack(c.get(), q, j.get());
  }
  // A sharded queue over the three primaries, drained by two engines.
  const std::string q = fresh_queue("tlsshards");
  EMQ_REQUIRE_OK(c.get(), echomq_shards_create(c.get(), q.c_str(), 6));
  REQUIRE(shard_names(c.get(), q).size() == 6);
  constexpr size_t kJobs = 1200;
  for (size_t i = 0; i < kJobs; ++i) enqueue(c.get(), q, "g" + std::to_string(i % 24), "s");
  echomq_worker_options o;
  REQUIRE(echomq_worker_options_init(&o, ECHOMQ_WORKER_OPTIONS_VERSION) == ECHOMQ_OK);
  o.slots = 32;
  o.idle_wait_ms = 200;
  EngineDrain d;
  d.add_engine(urls[1], q, o, 2);
  d.add_engine(urls[2], q, o, 2);
  d.finish(kJobs, 30000);
  require_verified(c.get(), q);
}
