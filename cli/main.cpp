// echomq — operate EchoMQ queues from the shell: inspect lanes, pause,
// reweight or limit a tenant, move jobs, verify invariants, watch live.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "errors.hpp"
#include "format.hpp"

namespace emqcli {
namespace {

const char *kDefaultUrl = "valkey://127.0.0.1:6379";

const std::vector<OptSpec> &global_options() {
  static const std::vector<OptSpec> opts = {
      {"url", 0, "URL", "server URL (env ECHOMQ_URL; default valkey://127.0.0.1:6379)"},
      {"queue", 'q', "NAME", "queue name (env ECHOMQ_QUEUE)"},
      {"json", 0, nullptr, "machine-readable output (JSON on one line)"},
      {"help", 'h', nullptr, "show help"},
  };
  return opts;
}

// Only without a command: `echomq --version`.
const OptSpec kVersion = {"version", 0, nullptr, "print the version and exit"};

// The exit codes every command can give; each command adds its own
// (Command::exits). The numbers: cli/errors.hpp, docs/cli.md.
const char *kCommonExits = "0 ok, 1 server failure, 2 usage, 3 connection";

const std::vector<Command> &commands() {
  static const std::vector<Command> table = [] {
    std::vector<Command> t;
    add_inspect_commands(t);
    add_control_commands(t);
    add_job_commands(t);
    add_outcome_commands(t);
    add_schedule_commands(t);
    add_lifecycle_commands(t);
    add_top_command(t);
    add_ops_commands(t);
    add_flow_commands(t);
    return t;
  }();
  return table;
}

const Command *find_command(const std::string &name) {
  for (const auto &c : commands())
    if (name == c.name) return &c;
  return nullptr;
}

std::string option_lines(const std::vector<OptSpec> &opts) {
  std::string out;
  for (const auto &o : opts) {
    std::string left = "  ";
    left += o.short_name ? std::string("-") + o.short_name + ", " : "    ";
    left += std::string("--") + o.name;
    if (o.value_name) left += std::string(" ") + o.value_name;
    if (left.size() < 26) left += std::string(26 - left.size(), ' ');
    else left += "  ";
    out += left + o.help + "\n";
  }
  return out;
}

std::string general_help() {
  std::string out =
      "usage: echomq [--url URL] [-q QUEUE] COMMAND [ARGS] [--json] [--help]\n\n"
      "Operate an EchoMQ queue: fair lanes for job queues over Valkey.\n\ncommands:\n";
  // Names padded to the longest one, so a long name never runs into its summary.
  size_t width = 0;
  for (const auto &c : commands()) width = std::max(width, std::strlen(c.name));
  for (const auto &c : commands()) {
    std::string left = std::string("  ") + c.name;
    left += std::string(width + 4 - left.size(), ' ');
    out += left + c.summary + "\n";
  }
  std::vector<OptSpec> globals = global_options();
  globals.push_back(kVersion);
  out += "\nglobal options:\n" + option_lines(globals);
  out += std::string("\nexit codes: ") + kCommonExits + ", 4 not found,\n" +
         "            5 stale token, 6 verify violations, 7 nothing to claim,\n"
         "            8 doctor warnings, 9 doctor failures, 10 job leased,\n"
         "            11 shard count mismatch, 12 wait ran out, 13 job died,\n"
         "            14 the queue records no such thing (events off)\n"
         "\nRun 'echomq COMMAND --help' for a command's options and exit codes.\n";
  return out;
}

std::string command_help(const Command &c) {
  std::string out = std::string("usage: echomq [-q QUEUE] ") + c.name;
  if (*c.synopsis) out += std::string(" ") + c.synopsis;
  out += std::string("\n\n") + c.summary + "\n";
  if (*c.details) out += std::string("\n") + c.details + "\n";
  if (!c.options.empty()) out += "\noptions:\n" + option_lines(c.options);
  std::vector<OptSpec> globals;
  for (const auto &o : global_options())
    if (c.json || std::string(o.name) != "json") globals.push_back(o);
  out += "\nglobal options:\n" + option_lines(globals);
  out += std::string("\nexit codes: ") + kCommonExits + (*c.exits ? std::string(", ") + c.exits : "") + "\n";
  return out;
}

// The command word is the first word that is neither a global option nor
// the value of one, so "echomq -q jobs stats" and "echomq stats -q jobs" agree.
size_t command_index(const std::vector<std::string> &argv) {
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string &w = argv[i];
    if (w == "--") return i + 1 < argv.size() ? i + 1 : argv.size();
    if (w.size() < 2 || w[0] != '-') return i;
    if (w == "--url" || w == "--queue" || w == "-q") ++i;
  }
  return argv.size();
}

int run(const std::vector<std::string> &argv) {
  size_t ci = command_index(argv);
  if (ci >= argv.size()) {
    // Global options only: --help and --version are answers, anything else is a usage error.
    Args g = parse_args(argv, [] {
      auto o = global_options();
      o.push_back(kVersion);
      return o;
    }(), "");
    if (g.has("version")) {
      print(std::string("echomq ") + echomq_version_string() + "\n");
      return kExitOk;
    }
    if (g.has("help")) {
      print(general_help());
      return kExitOk;
    }
    throw usage_error("no command given (try 'echomq --help')");
  }
  std::string name = argv[ci];
  if (name == "help") {
    if (ci + 1 < argv.size()) {
      const Command *c = find_command(argv[ci + 1]);
      if (!c) throw usage_error("unknown command '" + argv[ci + 1] + "' (try 'echomq --help')");
      print(command_help(*c));
    } else {
      print(general_help());
    }
    return kExitOk;
  }
  const Command *cmd = find_command(name);
  if (!cmd) throw usage_error("unknown command '" + name + "' (try 'echomq --help')");

  std::vector<std::string> rest(argv.begin(), argv.begin() + static_cast<long>(ci));
  rest.insert(rest.end(), argv.begin() + static_cast<long>(ci) + 1, argv.end());
  std::vector<OptSpec> specs = global_options();
  specs.insert(specs.end(), cmd->options.begin(), cmd->options.end());
  Args args = parse_args(rest, specs, name);
  if (args.has("help")) {
    print(command_help(*cmd));
    return kExitOk;
  }
  if (args.has("json") && !cmd->json)
    throw usage_error(name + ": --json is not supported by this command");
  size_t n = args.positionals().size();
  if (n < cmd->min_args || n > cmd->max_args) {
    std::string want = std::string(name) + " " + cmd->synopsis;
    if (n < cmd->min_args) throw usage_error(name + ": missing argument (usage: echomq " + want + ")");
    throw usage_error(name + ": unexpected argument '" + args.positionals()[cmd->max_args] +
                      "' (usage: echomq " + want + ")");
  }

  const char *env_url = std::getenv("ECHOMQ_URL");
  const char *env_queue = std::getenv("ECHOMQ_QUEUE");
  std::string url = args.get("url", env_url && *env_url ? env_url : kDefaultUrl);
  std::string queue = args.get("queue", env_queue ? env_queue : "");
  if (queue.empty() && !cmd->no_queue)
    throw usage_error(name + ": no queue given (use -q NAME or ECHOMQ_QUEUE)");
  char why[512];
  if (!queue.empty() && echomq_check_name(ECHOMQ_NAME_QUEUE, queue.data(), queue.size(), why, sizeof why) != ECHOMQ_OK)
    throw usage_error(why);

  Context ctx{Session(url, queue), std::move(args), false};
  ctx.json = ctx.args.has("json");
  return cmd->run(ctx);
}

}  // namespace

void require_group_name(const std::string &group, int kind) {
  char why[512];
  if (echomq_check_name(kind, group.data(), group.size(), why, sizeof why) != ECHOMQ_OK)
    throw usage_error(why);  // the core's message: the same as every binding's
}

void print(const std::string &text) {
  size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(STDOUT_FILENO, text.data() + off, text.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw CliError(kExitFailure, "cannot write output");
    }
    off += static_cast<size_t>(n);
  }
}

}  // namespace emqcli

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return emqcli::run(args);
  } catch (const emqcli::CliError &e) {
    // One line on stderr, whatever the server's message held.
    std::string line = e.what();
    for (char &ch : line)
      if (ch == '\n' || ch == '\r') ch = ' ';
    std::fprintf(stderr, "echomq: %s\n", line.c_str());
    return e.code();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "echomq: internal error: %s\n", e.what());
    return emqcli::kExitFailure;
  }
}
