#include "runtime/trap.h"

#include <signal.h>
#include <string.h>

#include <cstdio>
#include <memory>
#include <mutex>

namespace kiln::runtime {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
// The actions installed before ours, by signal number (written once, before ours is installed).
struct sigaction previous[NSIG];

// Signal-handler state must be reachable without allocation: initial-exec TLS.
__thread trap_internal::Frame* innermost __attribute__((tls_model("initial-exec"))) = nullptr;
__thread TrapInfo last_trap __attribute__((tls_model("initial-exec")));
__thread TrapInfo pending_trap __attribute__((tls_model("initial-exec")));

void Handler(int sig, siginfo_t* info, void* /*context*/) {
  trap_internal::Frame* frame = innermost;
  if (frame == nullptr) {
    // Not in a kernel: whatever would have happened without us. Returning re-executes the faulting
    // instruction under the previous action.
    sigaction(sig, &previous[sig], nullptr);
    return;
  }
  last_trap.signal = sig;
  last_trap.code = info->si_code;
  last_trap.address = info->si_addr;
  siglongjmp(frame->env, 1);
}

// The alternate stack of one thread, removed before its memory goes.
struct AltStack {
  std::unique_ptr<char[]> memory;
  bool installed = false;
  ~AltStack() {
    if (!installed) return;
    stack_t disable{};
    disable.ss_flags = SS_DISABLE;
    sigaltstack(&disable, nullptr);
  }
};

}  // namespace

namespace trap_internal {

void Prepare() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_sigaction = &Handler;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (int sig : kSignals) sigaction(sig, &action, &previous[sig]);
  });
  thread_local AltStack alt;
  if (!alt.installed) {
    stack_t current{};
    if (sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE)) {
      alt.installed = true;  // the thread has one already (e.g. a sanitizer's): keep it
      alt.memory = nullptr;
      return;
    }
    constexpr size_t kSize = 64 * 1024;
    alt.memory.reset(new char[kSize]);
    stack_t stack{};
    stack.ss_sp = alt.memory.get();
    stack.ss_size = kSize;
    alt.installed = sigaltstack(&stack, nullptr) == 0;
  }
}

Frame*& Innermost() { return innermost; }
TrapInfo& LastTrap() { return last_trap; }

void Unblock(int signal) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

}  // namespace trap_internal

std::string DescribeTrap(const TrapInfo& trap) {
  char address[32];
  std::snprintf(address, sizeof(address), "%p", trap.address);
  switch (trap.signal) {
    case SIGFPE:
      if (trap.code == FPE_INTDIV) return "SIGFPE (integer division by zero)";
      if (trap.code == FPE_INTOVF) return "SIGFPE (integer overflow, e.g. INT_MIN / -1)";
      return "SIGFPE (arithmetic exception)";
    case SIGSEGV: return std::string("SIGSEGV (invalid memory access at ") + address + ", e.g. out of bounds or a stack overflow)";
    case SIGBUS: return std::string("SIGBUS (misaligned or unmapped memory at ") + address + ")";
    case SIGILL: return "SIGILL (an instruction this CPU lacks: was the kernel built for another -mcpu/-mattr?)";
    default: return std::string("signal ") + strsignal(trap.signal);
  }
}

void SetPendingTrap(const TrapInfo& trap) { pending_trap = trap; }

bool TakePendingTrap(TrapInfo* trap) {
  if (pending_trap.signal == 0) return false;
  *trap = pending_trap;
  pending_trap = TrapInfo();
  return true;
}

}  // namespace kiln::runtime
