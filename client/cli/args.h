// A small command-line parser shared by the kiln subcommands: positional arguments, `--name value`,
// `--name=value`, repeated options (`--input a.npy --input b.npy`), short `-o OUT` / `-i`, and boolean
// flags. Each command declares which options take a value, so `--summary FILE` is never misread.
#ifndef KILN_CLIENT_CLI_ARGS_H_
#define KILN_CLIENT_CLI_ARGS_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kiln::cli {

class Args {
 public:
  // `valued` lists the options that take a value (e.g. {"--target", "--input", "-o"}); `flags` the
  // boolean ones (e.g. {"--summary", "-i"}). Anything else starting with '-' is an error.
  static absl::StatusOr<Args> Parse(const std::vector<std::string>& argv, const std::set<std::string>& valued,
                                    const std::set<std::string>& flags);

  const std::vector<std::string>& positional() const { return positional_; }
  bool Has(const std::string& name) const;
  // The last value given for `name`, or `dflt`.
  std::string Get(const std::string& name, const std::string& dflt = "") const;
  // Every value given for a repeated option, in order.
  std::vector<std::string> GetAll(const std::string& name) const;
  bool help() const { return help_; }

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::vector<std::string>> values_;
  std::set<std::string> present_;
  bool help_ = false;
};

// The template values of `--define NAME=VALUE` (repeatable; script::ParseOptions::defines, kilnd's
// extra_vars): INVALID_ARGUMENT when one is not NAME=VALUE with NAME a Python identifier. A later
// definition of a name replaces an earlier one.
absl::StatusOr<std::map<std::string, std::string>> ParseDefines(const std::vector<std::string>& values);

// ParseDefines of args' --define values; main() has rejected malformed ones before any command runs.
std::map<std::string, std::string> Defines(const Args& args);

// The most threads --threads may ask for: far above any host's cores, far below what the process
// can create (100000 threads ended in std::system_error).
inline constexpr int kMaxThreads = 1024;

// --threads N of `args`: 0 when absent (one per core); INVALID_ARGUMENT unless 1 <= N <= kMaxThreads.
absl::StatusOr<int> ThreadsOption(const Args& args);

}  // namespace kiln::cli

#endif  // KILN_CLIENT_CLI_ARGS_H_
