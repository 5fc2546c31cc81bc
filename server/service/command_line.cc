#include "server/service/command_line.h"

#include "absl/flags/parse.h"

namespace kiln::server {

std::vector<std::string> ParseDashedCommandLine(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  for (std::string& a : args) {
    if (a == "--") break;
    if (a.rfind("--", 0) != 0) continue;
    for (size_t i = 2; i < a.size() && a[i] != '='; ++i) {
      if (a[i] == '-') a[i] = '_';
    }
  }
  std::vector<char*> spelled;
  for (std::string& a : args) spelled.push_back(a.data());
  std::vector<char*> rest = absl::ParseCommandLine(static_cast<int>(spelled.size()), spelled.data());
  return std::vector<std::string>(rest.begin(), rest.end());
}

}  // namespace kiln::server
