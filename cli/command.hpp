// The command table: each subcommand's name, help, options and handler.
#pragma once

#include <string>
#include <vector>

#include "args.hpp"
#include "client.hpp"

namespace emqcli {

/// What a handler gets: the parsed command line and the (lazy) connection.
struct Context {
  Session session;
  Args args;
  bool json = false;
};

/// One subcommand.
struct Command {
  const char *name;
  const char *synopsis;  ///< arguments after the name, e.g. "GROUP N"
  const char *summary;   ///< one line for the command list
  const char *details;   ///< extra help text (may be "")
  std::vector<OptSpec> options;
  size_t min_args;       ///< positional arguments
  size_t max_args;       ///< SIZE_MAX for "any number"
  bool json;             ///< accepts --json
  int (*run)(Context &);
  bool no_queue = false; ///< runs without -q (e.g. `queues`)
  const char *exits = "";  ///< exit codes of its own beyond 0-3 ("4 no such job, ...")
};

void add_inspect_commands(std::vector<Command> &out);
void add_control_commands(std::vector<Command> &out);
void add_job_commands(std::vector<Command> &out);
void add_top_command(std::vector<Command> &out);
void add_ops_commands(std::vector<Command> &out);
void add_outcome_commands(std::vector<Command> &out);
void add_schedule_commands(std::vector<Command> &out);
void add_lifecycle_commands(std::vector<Command> &out);
/// The word for a job state (ECHOMQ_JOB_*): "pending", "leased", ... (cli/commands_ops.cpp).
const char *state_word(int state);
/// enqueue's --timeout, --ttl, --expires-at, --expire-drop (cli/commands_life.cpp).
void lifecycle_options(const Args &a, echomq_enqueue_options &o);

void add_flow_commands(std::vector<Command> &out);

/// The word for a job state (ECHOMQ_JOB_*): "pending", "waiting", ...
const char *state_word(int state);
/// What a job waits for and what waits for it, as lines for `job` ("" for
/// a job in no flow), or as JSON members (",\"parent\":...").
std::string flow_text(Context &ctx, uint64_t id);
std::string flow_json_members(Context &ctx, uint64_t id);

/// Prints a job looked up by id (job, wait): text, or one JSON object.
void show_job(Context &ctx, const echomq_job *j);

/// Check a group name with the library's own rule and message (no I/O);
/// usage error if bad. kind: ECHOMQ_NAME_GROUP (settings: a lane or a tenant
/// `T/`) or ECHOMQ_NAME_LANE (a lane that holds jobs).
void require_group_name(const std::string &group, int kind = ECHOMQ_NAME_GROUP);

/// All of standard input (throws CliError when it cannot be read).
std::string read_stdin();

/// Write text to stdout in full (handles short writes); throws on EPIPE-like errors.
void print(const std::string &text);

}  // namespace emqcli
