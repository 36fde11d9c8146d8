#include "raw_valkey.hpp"

#include "test_env.hpp"

#include <algorithm>
#include <sstream>

namespace emqtest {

RawValkey::RawValkey() {
  const Endpoint ep = server_endpoint();
  // hiredis 0.14 has no TLS: against a TLS test server (tests/valkey-tls.sh)
  // the raw connection takes the server's plain unix socket.
  const std::string url = server_url();
  const bool tls = url.rfind("valkeys://", 0) == 0 || url.rfind("rediss://", 0) == 0;
  const std::string sock = tls ? server_socket_path() : std::string();
  if (tls) REQUIRE(!sock.empty());
  ctx_ = tls ? redisConnectUnix(sock.c_str()) : redisConnect(ep.host.c_str(), ep.port);
  INFO("raw connection to " << (tls ? sock : ep.host + ":" + std::to_string(ep.port)));
  REQUIRE(ctx_ != nullptr);
  INFO("hiredis: " << ctx_->errstr);
  REQUIRE(ctx_->err == 0);
  if (!ep.password.empty()) {
    if (ep.user.empty()) {
      must({"AUTH", ep.password});
    } else {
      must({"AUTH", ep.user, ep.password});
    }
  }
  id_ = integer({"CLIENT", "ID"});
}

RawValkey::RawValkey(const std::string &host, int port) {
  ctx_ = redisConnect(host.c_str(), port);
  INFO("raw connection to " << host << ":" << port);
  REQUIRE(ctx_ != nullptr);
  INFO("hiredis: " << ctx_->errstr);
  REQUIRE(ctx_->err == 0);
  id_ = integer({"CLIENT", "ID"});
}

RawValkey::RawValkey(const std::string &unix_path) {
  ctx_ = redisConnectUnix(unix_path.c_str());
  INFO("raw connection to " << unix_path);
  REQUIRE(ctx_ != nullptr);
  INFO("hiredis: " << ctx_->errstr);
  REQUIRE(ctx_->err == 0);
  id_ = integer({"CLIENT", "ID"});
}

RawValkey::~RawValkey() { redisFree(ctx_); }

ReplyPtr RawValkey::command(const std::vector<std::string> &argv) {
  std::vector<const char *> args;
  std::vector<size_t> lens;
  // The RESP bytes of the command, counted before it is sent: the server's
  // input counter includes them once it answers (see traffic()).
  sent_ += 3 + std::to_string(argv.size()).size();
  for (const auto &a : argv) {
    args.push_back(a.data());
    lens.push_back(a.size());
    sent_ += 5 + std::to_string(a.size()).size() + a.size();
  }
  auto *reply = static_cast<redisReply *>(
      redisCommandArgv(ctx_, static_cast<int>(args.size()), args.data(), lens.data()));
  INFO("raw command " << argv.at(0) << ": " << ctx_->errstr);
  REQUIRE(reply != nullptr);
  return ReplyPtr(reply);
}

ReplyPtr RawValkey::must(const std::vector<std::string> &argv) {
  ReplyPtr r = command(argv);
  INFO("raw command " << argv.at(0) << " answered "
                      << (r->type == REDIS_REPLY_ERROR ? std::string(r->str, r->len) : ""));
  REQUIRE(r->type != REDIS_REPLY_ERROR);
  return r;
}

long long RawValkey::integer(const std::vector<std::string> &argv) {
  ReplyPtr r = must(argv);
  REQUIRE(r->type == REDIS_REPLY_INTEGER);
  return r->integer;
}

Keyspace RawValkey::snapshot(const std::string &prefix) {
  Keyspace keys;
  std::string cursor = "0";
  do {
    // Queue names hold no glob characters, so the prefix is a literal pattern.
    ReplyPtr page = must({"SCAN", cursor, "MATCH", prefix + "*", "COUNT", "1000"});
    REQUIRE(page->type == REDIS_REPLY_ARRAY);
    REQUIRE(page->elements == 2);
    cursor.assign(page->element[0]->str, page->element[0]->len);
    const redisReply *names = page->element[1];
    for (size_t i = 0; i < names->elements; ++i) keys[std::string(names->element[i]->str, names->element[i]->len)];
  } while (cursor != "0");
  for (auto &entry : keys) {
    ReplyPtr type = must({"TYPE", entry.first});
    ReplyPtr ttl = must({"PTTL", entry.first});
    std::string value(type->str, type->len);
    value += ttl->integer >= 0 ? "|ttl|" : "|no-ttl|";
    value += content(entry.first, std::string(type->str, type->len));
    entry.second = value;
  }
  return keys;
}

std::string RawValkey::content(const std::string &key, const std::string &type) {
  // The value itself, in an order the encoding cannot change: a hash table
  // is walked (and DUMPed) in bucket order, which a read may move by a
  // rehash step, so hashes and sets are sorted here.
  std::vector<std::string> items;
  bool sorted = true;
  auto add = [&](const redisReply *r) {
    for (size_t i = 0; i < r->elements; ++i) items.emplace_back(r->element[i]->str, r->element[i]->len);
  };
  if (type == "string") {
    ReplyPtr r = must({"GET", key});
    return std::string(r->str, r->len);
  } else if (type == "hash") {
    ReplyPtr r = must({"HGETALL", key});
    for (size_t i = 0; i + 1 < r->elements; i += 2) {
      std::string f(r->element[i]->str, r->element[i]->len);
      const redisReply *v = r->element[i + 1];
      items.push_back(std::to_string(f.size()) + ":" + f + "=" + std::string(v->str, v->len));
    }
  } else if (type == "set") {
    add(must({"SMEMBERS", key}).get());
  } else if (type == "zset") {
    add(must({"ZRANGE", key, "0", "-1", "WITHSCORES"}).get());
    sorted = false;
  } else if (type == "list") {
    add(must({"LRANGE", key, "0", "-1"}).get());
    sorted = false;
  } else {
    ReplyPtr dump = must({"DUMP", key});
    return dump->type == REDIS_REPLY_STRING ? std::string(dump->str, dump->len) : std::string();
  }
  if (sorted) std::sort(items.begin(), items.end());
  std::string out;
  for (const std::string &it : items) out += std::to_string(it.size()) + "|" + it;
  return out;
}

Traffic RawValkey::traffic() {
  ReplyPtr list = must({"CLIENT", "LIST", "TYPE", "normal"});
  REQUIRE(list->type == REDIS_REPLY_STRING);
  Traffic out;
  bool per_client = true;
  std::istringstream lines(std::string(list->str, list->len));
  std::string line;
  while (std::getline(lines, line)) {
    long long id = -1;
    long long net_in = -1;
    std::istringstream fields(line);
    std::string field;
    while (fields >> field) {
      if (field.rfind("id=", 0) == 0) id = std::stoll(field.substr(3));
      if (field.rfind("tot-net-in=", 0) == 0) net_in = std::stoll(field.substr(11));
    }
    if (id >= 0 && id != id_) {
      per_client = per_client && net_in >= 0;
      out[id] = std::max(net_in, 0LL);
    }
  }
  if (per_client) return out;
  // Redis 7.0 counts no client's bytes (tot-net-in came with Valkey 8): the
  // whole server's input, less what this connection sent, stands for every
  // other client at once. Tests that use it run alone (RUN_SERIAL).
  ReplyPtr info = must({"INFO", "stats"});
  const std::string text(info->str, info->len);
  const std::string key = "total_net_input_bytes:";
  const auto at = text.find(key);
  INFO("INFO stats without total_net_input_bytes: " << text);
  REQUIRE(at != std::string::npos);
  out[kAllOthers] = std::stoll(text.substr(at + key.size())) - sent_;
  return out;
}

std::vector<long long> RawValkey::other_clients() {
  std::vector<long long> ids;
  for (const auto &entry : traffic())
    if (entry.first != kAllOthers) ids.push_back(entry.first);
  return ids;
}

std::string keyspace_diff(const Keyspace &before, const Keyspace &after) {
  std::ostringstream out;
  for (const auto &entry : before) {
    auto it = after.find(entry.first);
    if (it == after.end()) {
      out << "  removed: " << entry.first << "\n";
    } else if (it->second != entry.second) {
      out << "  changed: " << entry.first << "\n";
    }
  }
  for (const auto &entry : after) {
    if (before.find(entry.first) == before.end()) out << "  added: " << entry.first << "\n";
  }
  return out.str();
}

std::string traffic_diff(const Traffic &before, const Traffic &after) {
  std::ostringstream out;
  for (const auto &entry : after) {
    auto it = before.find(entry.first);
    const std::string who =
        entry.first == kAllOthers ? "other clients together" : "client id=" + std::to_string(entry.first);
    if (it == before.end()) {
      out << "  new " << who << " sent " << entry.second << " bytes\n";
    } else if (entry.second > it->second) {
      out << "  " << who << " sent " << entry.second - it->second << " more bytes\n";
    }
  }
  return out.str();
}

}  // namespace emqtest
