#include "script_runner.hpp"

#include <cstring>

#include "error.hpp"
#include "scripts.hpp"

namespace echomq {
namespace {

const char* const kNames[] = {"enqueue", "take",  "extend", "weight",  "limit",  "pause", "defaults",
                              "stats",   "lanes", "dead",   "redrive", "verify", "rate",  "cap",
                              "job",     "delete", "purge",  "repair",  "repairplan", "shardinit", "shards",
                              "wait",    "outconf", "progress", "costmode", "waitconf", "schedule", "schedules",
                              "flow",    "flowinfo", "delflow", "cancel", "lifeconf", "burst"};
constexpr size_t kNumScripts = sizeof(kNames) / sizeof(kNames[0]);

// The SHA1 of a script is known only after SCRIPT LOAD; until then a
// placeholder that can never match makes EVALSHA answer NOSCRIPT.
const char kUnloaded[] = "0000000000000000000000000000000000000000";

// A script whose first line declares `#!lua flags=no-writes` is read-only:
// it runs with EVALSHA_RO, so it works on a replica, under CLIENT PAUSE
// WRITE and for a user with read-only key permissions. The Lua file is the
// one place that says so.
bool declaresNoWrites(const std::string& text) {
  if (text.compare(0, 5, "#!lua") != 0) return false;
  std::string first = text.substr(0, text.find('\n'));
  auto at = first.find("flags=");
  if (at == std::string::npos) return false;
  std::string flags = first.substr(at + 6);
  flags = flags.substr(0, flags.find(' '));
  // flags=a,b,c
  size_t pos = 0;
  while (pos <= flags.size()) {
    size_t comma = flags.find(',', pos);
    if (comma == std::string::npos) comma = flags.size();
    if (flags.compare(pos, comma - pos, "no-writes") == 0) return true;
    pos = comma + 1;
  }
  return false;
}

bool errorStarts(const redisReply* r, const char* prefix) {
  return r->type == REDIS_REPLY_ERROR && std::strncmp(r->str, prefix, std::strlen(prefix)) == 0;
}
bool functionNotFound(const redisReply* r) { return errorStarts(r, "ERR Function not found"); }
// The server refused the FCALL before running any of it: the function is
// not there, or FCALL is unknown or denied to this user. An error from
// inside a function (an ACL denial of one of its commands, say) reads
// otherwise and is never retried.
bool fcallRefused(const redisReply* r) {
  return functionNotFound(r) || (errorStarts(r, "ERR unknown command") && std::strstr(r->str, "'FCALL'")) ||
         (errorStarts(r, "NOPERM") && std::strstr(r->str, "'fcall'"));
}

}  // namespace

ScriptRunner::ScriptRunner() {
  if (kNumScripts != scripts::kCount) fail(kInternal, "script table does not match lua/");
  entries_.resize(kNumScripts);
  for (size_t i = 0; i < kNumScripts; ++i) {
    const scripts::Source* src = nullptr;
    for (size_t j = 0; j < scripts::kCount; ++j)
      if (std::strcmp(scripts::kAll[j].name, kNames[i]) == 0) src = &scripts::kAll[j];
    if (!src) fail(kInternal, std::string("script not embedded: ") + kNames[i]);
    Entry& e = entries_[i];
    e.name = src->name;
    e.text.assign(src->text, src->size);
    e.keys.assign(src->keys, src->keys + src->num_keys);
    e.num_keys = std::to_string(src->num_keys);
    e.sha = kUnloaded;
    e.read_only = declaresNoWrites(e.text);
    if (src->fn_name && !e.read_only) {
      e.fn_name = src->fn_name;
      e.fn_text.assign(src->fn_text, src->fn_size);
    }
  }
}

void ScriptRunner::begin(Script s, const QueueKeys& k, Argv& a) const {
  const Entry& e = entries_[static_cast<size_t>(s)];
  a.clear();
  a.ref("EVALSHA", 7);
  a.ref(kUnloaded, 40);  // replaced in run()
  a.ref(e.num_keys);
  for (unsigned char i : e.keys) a.ref(k.keys[i]);
  a.ref(k.prefix);
}

void ScriptRunner::loadAll(Connection& conn) {
  std::vector<Argv> cmds(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) {
    cmds[i].ref("SCRIPT", 6);
    cmds[i].ref("LOAD", 4);
    cmds[i].ref(entries_[i].text);
  }
  auto replies = conn.pipeline(cmds);
  for (size_t i = 0; i < replies.size(); ++i) {
    if (replies[i]->type == REDIS_REPLY_ERROR) throwReplyError(replies[i].get(), "SCRIPT LOAD");
    entries_[i].sha = replyStr(replies[i].get(), "SCRIPT LOAD");
  }
}

void ScriptRunner::load(Connection& conn, Entry& e) {
  Argv a;
  a.ref("SCRIPT", 6);
  a.ref("LOAD", 4);
  a.ref(e.text);
  ReplyPtr r = conn.command(a);
  if (r->type == REDIS_REPLY_ERROR) throwReplyError(r.get(), "SCRIPT LOAD");
  e.sha = replyStr(r.get(), "SCRIPT LOAD");
}

bool ScriptRunner::loadFunction(Connection& conn, const Entry& e) {
  Argv a;
  a.ref("FUNCTION", 8);
  a.ref("LOAD", 4);
  a.ref(e.fn_text);
  ReplyPtr r = conn.command(a);
  return r->type != REDIS_REPLY_ERROR || std::strstr(r->str, "already exists") != nullptr;
}

ReplyPtr ScriptRunner::run(Connection& conn, Script s, Argv& args, int read_timeout_ms) {
  Entry& e = entries_[static_cast<size_t>(s)];
  conn.ensure();
  if (functions_ && !e.fn_name.empty()) {
    args.replace(0, "FCALL", 5);
    args.replace(1, e.fn_name.data(), e.fn_name.size());
    ReplyPtr r = conn.command(args, read_timeout_ms);
    if (functionNotFound(r.get()) && loadFunction(conn, e)) r = conn.command(args, read_timeout_ms);
    if (!fcallRefused(r.get())) {
      if (r->type == REDIS_REPLY_ERROR) throwReplyError(r.get(), e.name);
      return r;
    }
    functions_ = false;  // this server or user runs no functions: EVALSHA from now on
  }
  if (e.sha == kUnloaded) loadAll(conn);
  // Slots reserved by begin(): the command and the SHA1.
  if (e.read_only) args.replace(0, "EVALSHA_RO", 10);
  else args.replace(0, "EVALSHA", 7);
  args.replace(1, e.sha.data(), e.sha.size());
  ReplyPtr r = conn.command(args, read_timeout_ms);
  if (r->type == REDIS_REPLY_ERROR && r->len >= 8 && std::memcmp(r->str, "NOSCRIPT", 8) == 0) {
    load(conn, e);
    args.replace(1, e.sha.data(), e.sha.size());
    r = conn.command(args, read_timeout_ms);
  }
  if (r->type == REDIS_REPLY_ERROR) throwReplyError(r.get(), e.name);
  return r;
}

}  // namespace echomq
