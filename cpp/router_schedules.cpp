// Schedules through the router. A plain queue's go to its client. A
// sharded queue keeps each schedule in the shard queue of its lane (the
// tick's job is enqueued by a script of that shard: one slot), so:
// an upsert goes to the lane's shard and removes the schedule of that name
// from the others (a changed lane moves it); the calls by name ask the
// shards in order; a listing merges the shards' pages by name. A fired
// job's id is the sharded queue's.
#include <algorithm>

#include "router_impl.hpp"
#include "schedule_spec.hpp"
#include "validate.hpp"

namespace echomq {
namespace {

// Runs f on each shard until one has schedule `name` (f returns normally):
// its result; ENOTFOUND when none has.
template <class R, class F>
R onScheduleShard(Router::Shards& s, const char* name, F&& f) {
  for (size_t i = 0; i < s.size(); ++i) {
    try {
      return f(i);
    } catch (const Error& e) {
      if (e.code() != kNotFound) throw;
    }
  }
  fail(kNotFound, std::string("schedule ") + name + " not found");
}

}  // namespace

int Router::upsertSchedule(const char* queue, const char* name, const ScheduleSpec& spec, int64_t& next_at_ms) {
  return route(queue, [&] { return seed_.upsertSchedule(queue, name, spec, next_at_ms); },
               [&](Shards& s) {
                 checkScheduleName(name);
                 checkScheduleSpec(spec, opts_.max_payload);
                 size_t home = shardOfGroup(spec.lane.data(), spec.lane.size(), s.size());
                 int changed = onShard(s, home, [&](Client& c, const char* q) {
                   return c.upsertSchedule(q, name, spec, next_at_ms);
                 });
                 bool moved = false;
                 for (size_t i = 0; i < s.size(); ++i) {
                   if (i == home) continue;
                   onShard(s, i, [&](Client& c, const char* q) {
                     try {
                       c.removeSchedule(q, name);
                       moved = true;
                     } catch (const Error& e) {
                       if (e.code() != kNotFound) throw;
                     }
                     return 0;
                   });
                 }
                 return moved && changed == 1 ? 2 : changed;
               });
}

void Router::removeSchedule(const char* queue, const char* name) {
  route(queue, [&] { seed_.removeSchedule(queue, name); return 0; },
        [&](Shards& s) {
          checkScheduleName(name);
          return onScheduleShard<int>(s, name, [&](size_t i) {
            return onShard(s, i, [&](Client& c, const char* q) { c.removeSchedule(q, name); return 0; });
          });
        });
}

void Router::pauseSchedule(const char* queue, const char* name, bool paused) {
  route(queue, [&] { seed_.pauseSchedule(queue, name, paused); return 0; },
        [&](Shards& s) {
          checkScheduleName(name);
          return onScheduleShard<int>(s, name, [&](size_t i) {
            return onShard(s, i, [&](Client& c, const char* q) { c.pauseSchedule(q, name, paused); return 0; });
          });
        });
}

ScheduleInfo Router::schedule(const char* queue, const char* name) {
  return route(queue, [&] { return seed_.schedule(queue, name); },
               [&](Shards& s) {
                 checkScheduleName(name);
                 return onScheduleShard<ScheduleInfo>(s, name, [&](size_t i) {
                   ScheduleInfo info = onShard(s, i, [&](Client& c, const char* q) { return c.schedule(q, name); });
                   if (info.fired_job) info.fired_job = toGlobal(info.fired_job, i, s.size());
                   return info;
                 });
               });
}

std::vector<ScheduleInfo> Router::schedules(const char* queue, const char* after, size_t count, bool& more) {
  return route(queue, [&] { return seed_.schedules(queue, after, count, more); },
               [&](Shards& s) {
                 std::vector<ScheduleInfo> all;
                 bool any = false;
                 for (size_t i = 0; i < s.size(); ++i) {
                   bool m = false;
                   auto page = onShard(s, i, [&](Client& c, const char* q) { return c.schedules(q, after, count, m); });
                   any = any || m;
                   for (ScheduleInfo& info : page) {
                     if (info.fired_job) info.fired_job = toGlobal(info.fired_job, i, s.size());
                     all.push_back(std::move(info));
                   }
                 }
                 std::sort(all.begin(), all.end(),
                           [](const ScheduleInfo& a, const ScheduleInfo& b) { return a.name < b.name; });
                 more = any || all.size() > count;
                 if (all.size() > count) all.resize(count);
                 return all;
               });
}

std::vector<int64_t> Router::nextTicks(const char* queue, const char* name, size_t n) {
  return route(queue, [&] { return seed_.nextTicks(queue, name, n); },
               [&](Shards& s) {
                 checkScheduleName(name);
                 return onScheduleShard<std::vector<int64_t>>(s, name, [&](size_t i) {
                   return onShard(s, i, [&](Client& c, const char* q) { return c.nextTicks(q, name, n); });
                 });
               });
}

}  // namespace echomq
