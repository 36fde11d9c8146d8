// echomq/common.h: status texts, the version, name checks.
#include "echomq/common.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "guard.hpp"
#include "validate.hpp"

namespace {
#define EMQ_STR2(x) #x
#define EMQ_STR(x) EMQ_STR2(x)
constexpr const char* kVersionString =
    EMQ_STR(ECHOMQ_VERSION_MAJOR) "." EMQ_STR(ECHOMQ_VERSION_MINOR) "." EMQ_STR(ECHOMQ_VERSION_PATCH);
#undef EMQ_STR
#undef EMQ_STR2
}  // namespace

extern "C" {

const char* echomq_strerror(int status) {
  switch (status) {
    case ECHOMQ_OK: return "ok";
    case ECHOMQ_EMPTY: return "nothing to claim";
    case ECHOMQ_UNCONFIRMED: return "done, but not confirmed durable in time";
    case ECHOMQ_DUPLICATE: return "duplicate: the first job's id is returned";
    case ECHOMQ_PENDING: return "not finished when the wait ran out";
    case ECHOMQ_WILL_RETRY: return "reported: the job will be retried";
    case ECHOMQ_WILL_DIE: return "reported: the job will be dead-lettered";
    case ECHOMQ_WAS_CANCELED: return "the job was canceled: it settled as canceled";
    case ECHOMQ_EINVAL: return "invalid argument";
    case ECHOMQ_ETOOLARGE: return "too large";
    case ECHOMQ_ENOTFOUND: return "not found";
    case ECHOMQ_ESTALE: return "stale lease";
    case ECHOMQ_ELAYOUT: return "queue written with another key layout";
    case ECHOMQ_EFULL: return "lane is full";
    case ECHOMQ_ELEASED: return "job is leased by a worker";
    case ECHOMQ_ESHARDS: return "shard count mismatch, or a plain queue in use";
    case ECHOMQ_EFINISHED: return "the job has finished: nothing to cancel";
    case ECHOMQ_EDEPENDS: return "job is part of a flow that has not finished";
    case ECHOMQ_ECONN: return "connection error";
    case ECHOMQ_ETIMEOUT: return "timeout (outcome unknown)";
    case ECHOMQ_ECANCELED: return "canceled";
    case ECHOMQ_ETLS: return "TLS refused (handshake, certificate or name)";
    case ECHOMQ_ETIMELIMIT: return "the job's time limit ran out";
    case ECHOMQ_ESERVER: return "server error";
    case ECHOMQ_ENOPERM: return "no permission";
    case ECHOMQ_EPROTO: return "protocol error";
    case ECHOMQ_EBUSY: return "server busy running a script (retryable)";
    case ECHOMQ_ELOADING: return "server loading its dataset (retryable)";
    case ECHOMQ_ETRYAGAIN: return "cluster slot in migration (retryable)";
    case ECHOMQ_EOOM: return "server out of memory: nothing was written (retryable)";
    case ECHOMQ_ENOMEM: return "out of memory";
    case ECHOMQ_EINTERNAL: return "internal error";
    default: return "unknown status";
  }
}

unsigned int echomq_version(void) { return ECHOMQ_VERSION_NUMBER; }

const char* echomq_version_string(void) { return kVersionString; }

int echomq_check_queue_name(const char* queue) {
  return emqcapi::guard([&] { echomq::checkQueueName(queue); });
}

int echomq_check_group_name(const char* group) {
  return emqcapi::guard([&] { echomq::checkGroupName(group); });
}

int echomq_check_name(int kind, const char* name, size_t len, char* buf, size_t buf_size) {
  // The message goes to the caller's buffer, cut to fit ("" for a good name).
  auto say = [buf, buf_size](const char* why) noexcept {
    if (!buf || buf_size == 0) return;
    const size_t n = std::min(std::strlen(why), buf_size - 1);
    std::memcpy(buf, why, n);
    buf[n] = '\0';
  };
  say("");
  return emqcapi::guardWith(
      [&] {
        if (!name) echomq::invalid("name is NULL");
        switch (kind) {
          case ECHOMQ_NAME_QUEUE:
            if (std::memchr(name, 0, len)) echomq::invalid("queue name contains a NUL byte");
            echomq::checkQueueName(std::string(name, len).c_str());
            break;
          case ECHOMQ_NAME_GROUP: echomq::checkGroupBytes(name, len); break;
          case ECHOMQ_NAME_LANE: echomq::checkLaneBytes(name, len); break;
          default: echomq::invalid("name kind must be ECHOMQ_NAME_QUEUE, _GROUP or _LANE");
        }
      },
      [&](int code, const char* why) noexcept {
        say(why);
        return code;
      });
}

}  // extern "C"
