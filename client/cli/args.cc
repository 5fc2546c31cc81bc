// Args::Parse, the option parser every kiln subcommand shares (see args.h).
#include "client/cli/args.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace kiln::cli {

absl::StatusOr<Args> Args::Parse(const std::vector<std::string>& argv, const std::set<std::string>& valued,
                                 const std::set<std::string>& flags) {
  Args a;
  bool only_positional = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& s = argv[i];
    if (only_positional || s.size() < 2 || s[0] != '-') {
      a.positional_.push_back(s);
      continue;
    }
    if (s == "--") {
      only_positional = true;
      continue;
    }
    if (s == "--help" || s == "-h") {
      a.help_ = true;
      continue;
    }
    std::string name = s, value;
    bool has_value = false;
    size_t eq = s.find('=');
    if (s.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = s.substr(0, eq);
      value = s.substr(eq + 1);
      has_value = true;
    }
    if (valued.count(name)) {
      if (!has_value) {
        if (i + 1 >= argv.size()) return absl::InvalidArgumentError(absl::StrCat("option ", name, " needs a value"));
        value = argv[++i];
      }
      a.values_[name].push_back(value);
      a.present_.insert(name);
    } else if (flags.count(name)) {
      if (has_value) return absl::InvalidArgumentError(absl::StrCat("option ", name, " takes no value"));
      a.present_.insert(name);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown option ", name));
    }
  }
  return a;
}

bool Args::Has(const std::string& name) const { return present_.count(name) > 0; }

std::string Args::Get(const std::string& name, const std::string& dflt) const {
  auto it = values_.find(name);
  return it == values_.end() || it->second.empty() ? dflt : it->second.back();
}

std::vector<std::string> Args::GetAll(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

absl::StatusOr<std::map<std::string, std::string>> ParseDefines(const std::vector<std::string>& values) {
  std::map<std::string, std::string> defines;
  for (const std::string& v : values) {
    size_t eq = v.find('=');
    std::string name = v.substr(0, eq);
    bool ident = !name.empty() && !absl::ascii_isdigit(name[0]);
    for (char c : name) ident = ident && (absl::ascii_isalnum(c) || c == '_');
    if (eq == std::string::npos || !ident) {
      return absl::InvalidArgumentError(absl::StrCat("--define needs NAME=VALUE with NAME an identifier, got '", v, "'"));
    }
    defines[name] = v.substr(eq + 1);
  }
  return defines;
}

std::map<std::string, std::string> Defines(const Args& args) {
  return ParseDefines(args.GetAll("--define")).value_or(std::map<std::string, std::string>{});
}

absl::StatusOr<int> ThreadsOption(const Args& args) {
  if (!args.Has("--threads")) return 0;
  int threads = 0;
  if (!absl::SimpleAtoi(args.Get("--threads"), &threads) || threads < 1 || threads > kMaxThreads) {
    return absl::InvalidArgumentError(
        absl::StrCat("--threads needs an integer from 1 to ", kMaxThreads, ", not \"", args.Get("--threads"), "\""));
  }
  return threads;
}

}  // namespace kiln::cli
