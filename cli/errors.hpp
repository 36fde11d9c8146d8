// Exit codes of the echomq tool and the one exception type that carries them.
#pragma once

#include <stdexcept>
#include <string>

namespace emqcli {

/// Process exit codes. Documented in docs/cli.md; never renumbered.
enum ExitCode : int {
  kExitOk = 0,         ///< success
  kExitFailure = 1,    ///< the server refused or failed (ESERVER, EPROTO, ENOMEM, EINTERNAL)
  kExitUsage = 2,      ///< bad command line: unknown option, bad number, bad name, bad URL
  kExitConn = 3,       ///< cannot reach the server, timeout, TLS or authentication refused
  kExitNotFound = 4,   ///< no such job, or no such lane
  kExitStale = 5,      ///< the token is not the job's current attempt (lease lost)
  kExitViolations = 6, ///< verify found invariant violations
  kExitEmpty = 7,      ///< claim found no job ready
  kExitDoctorWarn = 8, ///< doctor: warnings, no failure
  kExitDoctorFail = 9, ///< doctor: at least one failed check
  kExitLeased = 10,    ///< delete refused: a worker holds the job now
  kExitShards = 11,    ///< shards --create: sharded with another count, or a plain queue in use
  kExitPending = 12,   ///< wait: the job had not finished when the wait ran out
  kExitDead = 13,      ///< wait: the job died (dead-lettered)
  kExitOff = 14,       ///< events: the queue's event stream is off (it records nothing to read)
  kExitDepends = 15,   ///< delete refused: the job is part of a flow that has not finished
  kExitFinished = 16,  ///< cancel: the job has finished (nothing to cancel)
};

/// An error that ends the command: one line for stderr and the exit code.
class CliError : public std::runtime_error {
 public:
  CliError(int code, const std::string &message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

/// A usage error (exit 2).
inline CliError usage_error(const std::string &message) { return CliError(kExitUsage, message); }

/// Exit code for a status from the C API (echomq_status).
int exit_code_for_status(int status);

}  // namespace emqcli
