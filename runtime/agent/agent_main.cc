// kiln-agent: the device-side runtime service (see agent_flags.h for the command line). Runs until
// SIGINT or SIGTERM, then leaves kilnd's farm (if it joined), drains the calls in progress and exits 0.
#include <signal.h>

#include <cstdio>
#include <string>
#include <vector>

#include "runtime/agent/agent_flags.h"
#include "runtime/agent/agent_server.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      std::fputs(kiln::agent::kAgentUsage, stdout);
      return 0;
    }
  }
  absl::StatusOr<kiln::agent::AgentConfig> config = kiln::agent::ParseAgentFlags(args);
  if (!config.ok()) {
    std::fprintf(stderr, "kiln-agent: %s\n", std::string(config.status().message()).c_str());
    return 2;
  }
  // Block the stop signals before any server thread starts, so that only sigwait sees them.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  absl::StatusOr<std::unique_ptr<kiln::agent::AgentServer>> agent = kiln::agent::AgentServer::Start(*config);
  if (!agent.ok()) {
    std::fprintf(stderr, "kiln-agent: %s\n", std::string(agent.status().message()).c_str());
    return 1;
  }
  std::fprintf(stderr, "kiln-agent: serving device %s (key \"%s\") on port %d%s%s\n", config->device.c_str(),
               config->key.c_str(), (*agent)->port(), config->token.empty() ? "" : ", token required",
               config->kilnd.empty() ? "" : (", kilnd " + config->kilnd).c_str());
  int sig = 0;
  sigwait(&stop, &sig);
  std::fprintf(stderr, "kiln-agent: signal %d, shutting down\n", sig);
  (*agent)->Shutdown();
  return 0;
}
