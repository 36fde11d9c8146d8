// echomq_doctor: checks the server a queue runs on and gives one line of
// advice per check (docs/operations.md, "Doctor"). Reads INFO and, where the
// connection may, CONFIG GET and ACL DRYRUN; changes nothing.
#include <cctype>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "client.hpp"
#include "error.hpp"
#include "scripts.hpp"

namespace echomq {
namespace {

using Info = std::map<std::string, std::string>;

Info parseInfo(const std::string& text) {
  Info out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    auto colon = line.find(':');
    if (colon != std::string::npos) out[line.substr(0, colon)] = line.substr(colon + 1);
  }
  return out;
}

std::string get(const Info& info, const char* key, const char* dflt = "") {
  auto it = info.find(key);
  return it == info.end() ? dflt : it->second;
}

struct Version {
  int major = 0, minor = 0, patch = 0;
};

bool parseVersion(const std::string& s, Version& v) {
  return std::sscanf(s.c_str(), "%d.%d.%d", &v.major, &v.minor, &v.patch) == 3;
}

// The 2025 Lua sandbox fixes (CVE-2025-49844, CVE-2025-46817, CVE-2025-46818,
// CVE-2025-46819) shipped in Valkey 8.0.6 and 8.1.4 (October 2025); every
// later minor line carries them.
const char kLuaFixes[] = "the 2025 Lua sandbox fixes (CVE-2025-49844, -46817, -46818, -46819)";

// The oldest supported releases (docs/operations.md, "Supported servers").
constexpr Version kValkeyMin{7, 2, 0};
constexpr Version kRedisMin{7, 0, 0};

bool older(const Version& v, const Version& min) {
  return v.major != min.major ? v.major < min.major : v.minor < min.minor;
}

// The server by name and version, against the oldest supported release and
// the Lua fixes; `missing` lists the commands it lacks and what that costs.
DoctorLine versionCheck(const Info& server, const std::string& missing) {
  const std::string name = get(server, "server_name", "redis");
  const std::string ver = get(server, "valkey_version", get(server, "redis_version").c_str());
  const std::string lacks = missing.empty() ? "" : "; it lacks " + missing;
  Version v;
  if (!parseVersion(ver, v))
    return {kDoctorWarn, "version: cannot read the version '" + ver + "' of " + name +
                             "; run Valkey 8.0.6, 8.1.4 or later" + lacks};
  if (name != "valkey") {
    if (older(v, kRedisMin))
      return {kDoctorFail, "version: " + name + " " + ver + " is older than 7.0, the oldest "
                           "Redis the scripts run on; upgrade to Redis 7.2 or later, or Valkey 8" + lacks};
    return {kDoctorWarn, "version: " + name + " " + ver +
                             " is not Valkey, so it cannot be matched against Valkey releases; "
                             "make sure it carries " + kLuaFixes + ", or run Valkey 8.0.6, "
                             "8.1.4 or later" + lacks};
  }
  if (older(v, kValkeyMin))
    return {kDoctorFail, "version: valkey " + ver + " is older than 7.2, which the scripts "
                                "need; upgrade to 8.0.6, 8.1.4 or later" + lacks};
  bool fixed = v.major > 8 || (v.major == 8 && v.minor >= 2) ||
               (v.major == 8 && v.minor == 1 && v.patch >= 4) ||
               (v.major == 8 && v.minor == 0 && v.patch >= 6);
  if (!fixed)
    return {kDoctorWarn, "version: valkey " + ver + " predates " + kLuaFixes +
                                    "; upgrade to 8.0.6, 8.1.4 or later" + lacks};
  if (!missing.empty())
    return {kDoctorWarn, "version: valkey " + ver + " carries " + kLuaFixes + lacks};
  return {kDoctorOk, "version: valkey " + ver + " carries " + kLuaFixes};
}

DoctorLine memoryCheck(const Info& info) {
  const std::string policy = get(info, "maxmemory_policy", "?");
  const std::string limit = get(info, "maxmemory", "0");
  if (policy != "noeviction")
    return {kDoctorWarn, "memory: maxmemory-policy is " + policy +
                                    ", which may evict job hashes and lanes and break the queue; "
                                    "set maxmemory-policy noeviction"};
  if (limit == "0")
    return {kDoctorOk, "memory: noeviction without a maxmemory limit; set maxmemory so a "
                              "full server refuses enqueue (EOOM) while workers drain, instead of "
                              "running out of host memory"};
  return {kDoctorOk, "memory: noeviction under maxmemory " + limit +
                                " bytes (used " + get(info, "used_memory", "?") +
                                "); a full server refuses enqueue (EOOM) and keeps draining"};
}

DoctorLine replicationCheck(const Info& info) {
  const std::string role = get(info, "role", "?");
  if (role == "slave" || role == "replica")
    return {kDoctorWarn, "replicas: this server is a replica; only stats, lane, lanes, dead "
                                "and verify work here, point producers and workers at the primary"};
  const std::string n = get(info, "connected_slaves", "0");
  if (n == "0")
    return {kDoctorWarn, "replicas: none connected; losing this server stops the queue until "
                                "it is back, add a replica (and a failover manager) for "
                                "availability"};
  return {kDoctorOk, "replicas: " + n + " connected"};
}

// The commands a script calls, read from its embedded text: rcall('X', ...)
// and callSliced('X', ...) (lua/includes/base.lua).
std::set<std::string> scriptCommands(const char* name) {
  std::set<std::string> out;
  for (size_t i = 0; i < scripts::kCount; ++i) {
    if (std::strcmp(scripts::kAll[i].name, name) != 0) continue;
    const std::string text(scripts::kAll[i].text, scripts::kAll[i].size);
    for (const std::string call : {"rcall('", "callSliced('"}) {
      for (size_t at = text.find(call); at != std::string::npos; at = text.find(call, at + 1)) {
        size_t from = at + call.size(), to = text.find('\'', from);
        if (to == std::string::npos) break;
        std::string cmd = text.substr(from, to - from);
        for (auto& ch : cmd) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        out.insert(cmd);
      }
    }
  }
  return out;
}

}  // namespace

std::vector<DoctorLine> Client::doctor(const char* queue, const char* acl_user) {
  const QueueKeys& k = keysFor(queue);
  if (acl_user && !*acl_user) invalid("acl_user is empty (NULL checks the connected user)");
  auto command = [&](std::initializer_list<std::string> words) {
    Argv a;
    std::vector<std::string> keep(words);
    for (auto& w : keep) a.own(w);
    return conn_.command(a);
  };
  ReplyPtr r = command({"INFO"});
  if (r->type == REDIS_REPLY_ERROR) throwReplyError(r.get(), "INFO");
  const Info info = parseInfo(replyStr(r.get(), "INFO"));

  std::vector<DoctorLine> out;
  // Features by the commands the server knows (COMMAND INFO answers nil for
  // an unknown one), not by version numbers: a fork may differ.
  std::string missing;
  {
    struct Feature {
      const char* command;
      const char* cost;
    };
    static const Feature kFeatures[] = {
        {"waitaof", "WAITAOF (wait_aof calls answer UNCONFIRMED; Redis and Valkey 7.2 have it)"},
        {"fcall", "FCALL (the hot scripts run with EVALSHA, a little slower)"},
        {"evalsha_ro", "EVALSHA_RO (read-only calls fail on a replica and under CLIENT PAUSE WRITE)"},
    };
    ReplyPtr ci = command({"COMMAND", "INFO", "waitaof", "fcall", "evalsha_ro"});
    if (ci->type == REDIS_REPLY_ARRAY && ci->elements == sizeof kFeatures / sizeof kFeatures[0])
      for (size_t i = 0; i < ci->elements; ++i)
        if (ci->element[i]->type == REDIS_REPLY_NIL)
          missing += (missing.empty() ? "" : ", ") + std::string(kFeatures[i].cost);
  }
  out.push_back(versionCheck(info, missing));
  out.push_back(memoryCheck(info));

  // Persistence: INFO says whether the AOF is on; the RDB schedule and the
  // fsync policy need CONFIG GET, which a restricted user may lack.
  {
    std::string save = "?", fsync = "?";
    ReplyPtr s = command({"CONFIG", "GET", "save"});
    if (s->type == REDIS_REPLY_ARRAY && s->elements == 2) save = replyStr(s->element[1], "CONFIG");
    ReplyPtr f = command({"CONFIG", "GET", "appendfsync"});
    if (f->type == REDIS_REPLY_ARRAY && f->elements == 2) fsync = replyStr(f->element[1], "CONFIG");
    if (get(info, "aof_enabled") == "1")
      out.push_back({kDoctorOk, "persistence: AOF on (appendfsync " + fsync +
                                           "); with everysec a crash loses about a second of "
                                           "writes, with always none"});
    else if (save == "?")
      out.push_back({kDoctorWarn, "persistence: AOF off, RDB schedule unknown (CONFIG GET "
                                         "refused); set appendonly yes so a crash loses at most a "
                                         "second of jobs"});
    else if (!save.empty())
      out.push_back({kDoctorWarn, "persistence: RDB snapshots only (save " + save +
                                             "); a crash loses every job since the last snapshot, "
                                             "set appendonly yes"});
    else
      out.push_back({kDoctorWarn, "persistence: none (no AOF, no RDB snapshots); a restart "
                                         "loses every job, set appendonly yes"});
  }
  out.push_back(replicationCheck(info));

  if (get(info, "cluster_enabled") == "1") {
    ReplyPtr s = command({"CLUSTER", "KEYSLOT", k.prefix});
    std::string slot = s->type == REDIS_REPLY_INTEGER ? std::to_string(s->integer) : "?";
    out.push_back({kDoctorOk, "cluster: enabled; queue '" + std::string(queue) +
                                         "' lives in slot " + slot +
                                         " and the client follows MOVED and ASK"});
  } else {
    out.push_back({kDoctorOk, "cluster: standalone server; split queues over a cluster when "
                                     "one server is not enough"});
  }

  // ACL: may the user run each role's operations on this queue? ACL DRYRUN
  // checks every command the role's scripts call, with this queue's keys.
  std::string user = acl_user ? acl_user : "";
  if (user.empty()) {
    ReplyPtr w = command({"ACL", "WHOAMI"});
    if (w->type == REDIS_REPLY_STRING || w->type == REDIS_REPLY_STATUS) user = replyStr(w.get(), "ACL");
  }
  struct Role {
    const char* name;
    std::vector<Script> scripts;
    std::vector<std::vector<std::string>> extra;  // further commands, argv form
  };
  const std::string key = k.prefix + "doctor";
  const std::vector<Role> roles = {
      {"enqueue", {Script::Enqueue, Script::Flow}, {}},
      {"claim and settle", {Script::Take, Script::Extend}, {{"BLPOP", k.key("wake"), "1"}}},
      {"read (stats, lanes, dead, schedules, verify, repair dry run)",
       {Script::Stats, Script::Lanes, Script::Dead, Script::Schedules, Script::Verify, Script::RepairPlan}, {}},
      {"lane settings, schedules, redrive and repair",
       {Script::Weight, Script::Limit, Script::Pause, Script::Defaults, Script::Rate, Script::Cap,
        Script::Redrive, Script::Repair, Script::CostMode, Script::WaitConf, Script::Schedule},
       {}},
  };
  std::string allowed, denied;
  bool checked = !user.empty();
  for (const Role& role : roles) {
    if (!checked) break;
    std::vector<std::vector<std::string>> probes = role.extra;
    bool readOnlyRole = true;
    for (Script s : role.scripts) readOnlyRole = readOnlyRole && scripts_.readOnly(s);
    for (Script s : role.scripts) {
      // The script call itself, with the keys it is given, as run() sends it.
      Argv a;
      scripts_.begin(s, k, a);
      std::vector<std::string> eval;
      for (size_t i = 0; i < a.size(); ++i) eval.emplace_back(a.ptrs()[i], a.lens()[i]);
      if (scripts_.readOnly(s)) eval[0] = "EVALSHA_RO";
      probes.push_back(eval);
    }
    std::set<std::string> cmds;
    for (Script s : role.scripts)
      for (const auto& c : scriptCommands(scripts_.name(s))) cmds.insert(c);
    for (const auto& c : cmds) {
      // Arity and key positions from COMMAND INFO: keys get this queue's key.
      ReplyPtr ci = command({"COMMAND", "INFO", c});
      if (ci->type != REDIS_REPLY_ARRAY || ci->elements != 1 ||
          ci->element[0]->type != REDIS_REPLY_ARRAY || ci->element[0]->elements < 6) {
        checked = false;
        break;
      }
      const redisReply* d = ci->element[0];
      // A read-only script cannot call a writing command: no need to allow it.
      if (readOnlyRole && d->element[2]->type == REDIS_REPLY_ARRAY) {
        bool writes = false;
        for (size_t f = 0; f < d->element[2]->elements; ++f)
          writes |= replyStr(d->element[2]->element[f], "COMMAND") == "write";
        if (writes) continue;
      }
      long long arity = d->element[1]->integer, first = d->element[3]->integer,
                last = d->element[4]->integer, step = d->element[5]->integer;
      long long argc = arity < 0 ? -arity : arity;
      if (last < 0) last = argc + last;
      std::vector<std::string> argv = {c};
      for (long long i = 1; i < argc; ++i)
        argv.push_back(first > 0 && i >= first && i <= last && step > 0 && (i - first) % step == 0
                           ? key
                           : "0");
      probes.push_back(argv);
    }
    std::vector<std::string> missing;
    for (const auto& p : probes) {
      Argv a;
      a.ref("ACL", 3);
      a.ref("DRYRUN", 6);
      a.ref(user);
      for (const auto& w : p) a.ref(w);
      ReplyPtr d = conn_.command(a);
      if (d->type == REDIS_REPLY_ERROR) {  // DRYRUN itself refused, or no such user
        checked = false;
        denied = std::string(d->str, d->len);
        break;
      }
      if (d->type != REDIS_REPLY_STATUS || std::string(d->str, d->len) != "OK") {
        std::string c = p[0];
        for (auto& ch : c) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        missing.push_back(c);
      }
    }
    if (!checked) break;
    if (missing.empty()) {
      allowed += (allowed.empty() ? "" : ", ") + std::string(role.name);
    } else {
      std::string m;
      for (const auto& c : missing) m += (m.empty() ? "" : " ") + c;
      denied += (denied.empty() ? "" : "; ") + std::string(role.name) + " (missing " + m + ")";
    }
  }
  if (!checked) {
    out.push_back({kDoctorWarn,
                   "acl: cannot check the permissions of " +
                       (user.empty() ? std::string("this connection's user") : "user '" + user + "'") +
                       (denied.empty() ? std::string("") : " (" + denied + ")") +
                       "; run doctor as a user allowed ACL WHOAMI, ACL DRYRUN and COMMAND INFO, "
                       "naming the user to check"});
  } else if (allowed.empty()) {
    out.push_back({kDoctorFail, "acl: user '" + user + "' may run no operation on queue '" +
                                           queue + "': " + denied +
                                           "; see docs/operations.md for the ACL of each role"});
  } else {
    out.push_back({kDoctorOk, "acl: user '" + user + "' may " + allowed +
                                         (denied.empty() ? "" : "; may not " + denied) +
                                         " on queue '" + queue + "'"});
  }
  return out;
}

}  // namespace echomq
