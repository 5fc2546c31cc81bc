// Hardware traps in compiled kernels (SIGSEGV, SIGBUS, SIGFPE, SIGILL) become errors of the call
// that ran the kernel instead of killing the process: a VM, kiln run or a kiln-agent serving other
// sessions lives on and reports which kernel trapped and why (issue 13; issue 14 §2).
//
// How: RunTrapping marks a frame (sigsetjmp) on a per-thread stack of frames; the process-wide
// handler, installed once and run on a per-thread alternate stack (so a stack overflow is caught
// too), jumps back to the innermost frame of the faulting thread. A trap outside any frame goes to
// the handler that was installed before ours (or the default action): the process dies as it
// would have, under a sanitizer too.
//
// What a jump skips is kernel code only: kernels are C or LLVM code without destructors, and the
// thread pool marks a frame around each parallel chunk so that runtime frames are never skipped.
// Memory a kernel allocated before trapping is not freed.
#ifndef KILN_RUNTIME_TRAP_H_
#define KILN_RUNTIME_TRAP_H_

#include <setjmp.h>

#include <cstdint>
#include <string>

namespace kiln::runtime {

struct TrapInfo {
  int signal = 0;  // 0: none
  int code = 0;    // siginfo's si_code
  const void* address = nullptr;
};

// "SIGFPE (integer division by zero)", "SIGSEGV (invalid memory access at 0x10)", ...
std::string DescribeTrap(const TrapInfo& trap);

// The value RunTrapping returns for a trapped call (distinct from kernels' own error codes).
inline constexpr int32_t kTrapped = -0x7472;  // "tr"

namespace trap_internal {
struct Frame {
  sigjmp_buf env;
  Frame* prev;
};
// Installs the handlers (once) and this thread's alternate signal stack (once per thread).
void Prepare();
Frame*& Innermost();
TrapInfo& LastTrap();
void Unblock(int signal);
}  // namespace trap_internal

// Runs `fn()` (returning int32_t). On a trap inside it: returns kTrapped and fills `*trap`.
template <typename Fn>
int32_t RunTrapping(Fn&& fn, TrapInfo* trap) {
  trap_internal::Prepare();
  trap_internal::Frame frame;
  frame.prev = trap_internal::Innermost();
  trap_internal::Innermost() = &frame;
  // No signal mask is saved (that would cost a system call per kernel); the trap path unblocks the
  // signal itself.
  if (sigsetjmp(frame.env, 0) != 0) {
    trap_internal::Innermost() = frame.prev;
    *trap = trap_internal::LastTrap();
    trap_internal::Unblock(trap->signal);
    return kTrapped;
  }
  int32_t rc = fn();
  trap_internal::Innermost() = frame.prev;
  return rc;
}

// A trap reported by a parallel loop of the kernel this thread is running (ThreadPool sets it when
// one of its chunks trapped, on any thread); taken (and cleared) by the kernel's caller.
void SetPendingTrap(const TrapInfo& trap);
bool TakePendingTrap(TrapInfo* trap);

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_TRAP_H_
