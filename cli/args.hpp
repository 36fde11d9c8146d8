// Command-line parsing: option specs, parsed arguments, and strict number parsing.
// Everything here runs before any network I/O and reports problems as usage errors.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace emqcli {

/// One option a command accepts.
struct OptSpec {
  const char *name;        ///< long name without dashes, e.g. "limit"
  char short_name;         ///< e.g. 'q', or 0 for none
  const char *value_name;  ///< e.g. "N"; nullptr for a flag without a value
  const char *help;        ///< one line for --help
};

/// The result of parsing: option values by long name, and positional arguments.
class Args {
 public:
  /// True if the option was given (a flag, or an option with a value).
  bool has(const std::string &name) const { return values_.count(name) != 0; }
  /// The option's value (the last one given), or `fallback` when absent.
  std::string get(const std::string &name, const std::string &fallback = "") const;
  /// Every value given to a repeatable option, in order (empty when absent).
  const std::vector<std::string> &all(const std::string &name) const;
  /// Positional arguments in order.
  const std::vector<std::string> &positionals() const { return positionals_; }

  std::map<std::string, std::string> values_;
  std::map<std::string, std::vector<std::string>> lists_;
  std::vector<std::string> positionals_;
};

/// Parse `argv` against `specs`. Accepts --name VALUE, --name=VALUE, -x VALUE,
/// -xVALUE, grouped short flags, and "--" to end options. A word that looks
/// like a negative number ("-1", "-2.5") is a positional, so "weight g -1"
/// reaches the range check and gets a clear message. Throws a usage error on
/// an unknown option or a missing value.
Args parse_args(const std::vector<std::string> &argv, const std::vector<OptSpec> &specs,
                const std::string &command);

/// Parse a base-10 unsigned integer in [min, max]; `what` names it in the error.
uint64_t parse_uint(const std::string &text, uint64_t min, uint64_t max, const std::string &what);

/// Parse seconds (integer or decimal, e.g. "30", "1.5", "250ms" is refused)
/// into milliseconds in [min_ms, max_ms].
int64_t parse_seconds_ms(const std::string &text, int64_t min_ms, int64_t max_ms,
                         const std::string &what);

/// Parse an RFC 3339 time ("2027-03-01T09:00:00Z", "2027-03-01T10:00:00.5+01:00";
/// 't', 'z' and a space for 'T' accepted) into ms since the Unix epoch.
int64_t parse_rfc3339_ms(const std::string &text, const std::string &what);

/// A time in ms since the epoch as RFC 3339 in UTC, to the millisecond.
std::string format_rfc3339(int64_t ms);

/// True if `word` looks like a (possibly negative, possibly decimal) number.
bool looks_numeric(const std::string &word);

}  // namespace emqcli
