#include "runtime/agent/agent_flags.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace kiln::agent {

const char kAgentUsage[] =
    "usage: kiln-agent --listen HOST:PORT [--port-file F] [--kilnd HOST:PORT] --key KEY [--device cpu]\n"
    "                  [--token-file T] [--kilnd-token-file T] [--cache-dir D] [--max-sessions N]\n"
    "                  [--memory-limit BYTES] [--max-lease-seconds S] [--capacity N]\n"
    "Serves kiln.v1.AgentService (proto/agent.proto): sessions that load Relax VM executables (by\n"
    "digest from --cache-dir or kilnd, or uploaded) and run them on the device.\n"
    "  --listen            address to serve on; port 0 picks a free port (default 127.0.0.1:0)\n"
    "  --port-file F       write the port there once listening\n"
    "  --kilnd HOST:PORT   where to fetch executables the agent does not have; with --key, the\n"
    "                      agent also registers in kilnd's farm (advertising --listen's host and\n"
    "                      the bound port) and heartbeats until it stops\n"
    "  --key KEY           the farm key the agent serves (e.g. cpu-zen4)\n"
    "  --capacity N        farm leases the agent serves at once (default 1)\n"
    "  --device D          cpu (the only device the runtime has today)\n"
    "  --token-file T      clients must send \"authorization: Bearer <token in T>\"\n"
    "  --kilnd-token-file T  the token sent to kilnd (its `agent` permission)\n"
    "  --cache-dir D       keep fetched and uploaded executables in D (by digest)\n"
    "  --max-sessions N    concurrent sessions (default 256)\n"
    "  --memory-limit B    most bytes of client tensors per session (default unlimited)\n"
    "  --max-lease-seconds S  longest lease a session may ask for (default 3600)\n";

namespace {

absl::StatusOr<std::string> ReadToken(const std::string& flag, const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(flag, ": cannot read ", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string token(absl::StripAsciiWhitespace(ss.str()));
  if (token.empty()) return absl::InvalidArgumentError(absl::StrCat(flag, ": ", path, " is empty"));
  return token;
}

}  // namespace

absl::StatusOr<AgentConfig> ParseAgentFlags(const std::vector<std::string>& args) {
  AgentConfig config;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::string value;
    bool has_value = false;
    if (size_t eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      has_value = true;
    }
    auto take = [&]() -> absl::StatusOr<std::string> {
      if (has_value) return value;
      if (i + 1 >= args.size()) return absl::InvalidArgumentError(absl::StrCat(flag, " needs a value"));
      return args[++i];
    };
    auto number = [&](int64_t min) -> absl::StatusOr<int64_t> {
      absl::StatusOr<std::string> v = take();
      if (!v.ok()) return v.status();
      int64_t n = 0;
      if (!absl::SimpleAtoi(*v, &n) || n < min) {
        return absl::InvalidArgumentError(absl::StrCat(flag, ": \"", *v, "\" is not an integer >= ", min));
      }
      return n;
    };
    absl::Status status;
    auto set = [&](std::string* field) {
      absl::StatusOr<std::string> v = take();
      if (v.ok()) *field = *v;
      status = v.status();
    };
    if (flag == "--listen") {
      set(&config.listen);
    } else if (flag == "--port-file") {
      set(&config.port_file);
    } else if (flag == "--kilnd") {
      set(&config.kilnd);
    } else if (flag == "--key") {
      set(&config.key);
    } else if (flag == "--device") {
      set(&config.device);
    } else if (flag == "--cache-dir") {
      set(&config.cache_dir);
    } else if (flag == "--token-file" || flag == "--kilnd-token-file") {
      std::string path;
      set(&path);
      if (status.ok()) {
        absl::StatusOr<std::string> token = ReadToken(flag, path);
        status = token.status();
        if (token.ok()) (flag == "--token-file" ? config.token : config.kilnd_token) = *token;
      }
    } else if (flag == "--max-sessions") {
      absl::StatusOr<int64_t> n = number(1);
      status = n.status();
      if (n.ok()) config.sessions.max_sessions = static_cast<int>(std::min<int64_t>(*n, 1 << 20));
    } else if (flag == "--memory-limit") {
      absl::StatusOr<int64_t> n = number(0);
      status = n.status();
      if (n.ok()) config.sessions.max_memory_limit = static_cast<uint64_t>(*n);
    } else if (flag == "--capacity") {
      absl::StatusOr<int64_t> n = number(1);
      status = n.status();
      if (n.ok()) config.capacity = static_cast<uint32_t>(std::min<int64_t>(*n, 1 << 20));
    } else if (flag == "--max-lease-seconds") {
      absl::StatusOr<int64_t> n = number(1);
      status = n.status();
      if (n.ok()) config.sessions.max_lease = std::chrono::seconds(*n);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag \"", args[i], "\"\n", kAgentUsage));
    }
    if (!status.ok()) return status;
  }
  if (config.listen.empty()) return absl::InvalidArgumentError("--listen must not be empty");
  if (config.device != "cpu") {
    return absl::InvalidArgumentError(
        absl::StrCat("--device ", config.device, ": the runtime has only the cpu device today"));
  }
  if (config.sessions.default_lease > config.sessions.max_lease)
    config.sessions.default_lease = config.sessions.max_lease;
  return config;
}

}  // namespace kiln::agent
