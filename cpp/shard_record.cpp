// The record of a sharded queue (lua/shardinit.lua, lua/shards.lua): how
// many shard queues it has and their names, stored in the queue's own
// config hash so every client routes alike.
#include <sstream>

#include "args.hpp"
#include "client.hpp"
#include "error.hpp"
#include "script_reply.hpp"
#include "validate.hpp"

namespace echomq {
namespace {

std::vector<std::string> splitNames(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string name;
  while (in >> name) out.push_back(name);
  return out;
}

}  // namespace

std::vector<std::string> Client::shardNames(const char* queue) {
  const QueueKeys& k = keysFor(queue);
  call<args::Shards>(Script::Shards, k).fixed();
  ReplyPtr r = run(Script::Shards);
  scriptStatus(r.get(), "shards");
  uint64_t n = u64(r.get(), 1, "shards");
  std::vector<std::string> names = splitNames(str(r.get(), 2, "shards"));
  if (names.size() != n) echomq::fail(kProto, "shards: the record of queue " + std::string(queue) + " is damaged");
  return names;
}

std::vector<std::string> Client::initShards(const char* queue, const std::vector<std::string>& names) {
  const QueueKeys& k = keysFor(queue);
  if (names.empty() || names.size() > kShardsMax)
    invalid("shards must be 1.." + std::to_string(kShardsMax));
  std::string joined;
  for (const std::string& n : names) {
    checkQueueName(n.c_str());
    if (n == queue) invalid("a shard queue cannot have the sharded queue's name");
    joined += (joined.empty() ? "" : " ") + n;
  }
  call<args::Shardinit>(Script::ShardInit, k).fixed(names.size(), joined);
  ReplyPtr r = run(Script::ShardInit);
  scriptStatus(r.get(), "shards");
  std::vector<std::string> stored = splitNames(str(r.get(), 1, "shards"));
  if (stored.size() != names.size()) echomq::fail(kProto, "shards: the stored record does not match");
  return stored;
}

}  // namespace echomq
