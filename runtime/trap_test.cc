#include "runtime/trap.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/module.h"
#include "runtime/thread_pool.h"

namespace kiln::runtime {
namespace {

// Stand-ins for compiled kernel code (the faults are real).
volatile int* volatile null_pointer = nullptr;
volatile int zero = 0;

int32_t Segfaults() { return *null_pointer; }
int32_t DividesByZero() { return 7 / zero; }
int32_t Recurses(int depth) {
  volatile char frame[512];
  frame[0] = static_cast<char>(depth);
  return depth > (1 << 30) ? frame[0] : Recurses(depth + 1) + frame[0];
}

TEST(TrapTest, FaultsReturnToTheFrameWithTheirCause) {
  TrapInfo trap;
  EXPECT_EQ(RunTrapping([] { return Segfaults(); }, &trap), kTrapped);
  EXPECT_EQ(trap.signal, SIGSEGV);
  EXPECT_NE(DescribeTrap(trap).find("SIGSEGV (invalid memory access at"), std::string::npos) << DescribeTrap(trap);
  EXPECT_EQ(RunTrapping([] { return DividesByZero(); }, &trap), kTrapped);
  EXPECT_EQ(DescribeTrap(trap), "SIGFPE (integer division by zero)");
  // The signal is unblocked again: a second fault is caught the same way.
  EXPECT_EQ(RunTrapping([] { return Segfaults(); }, &trap), kTrapped);
  // A stack overflow is caught on the alternate stack.
  EXPECT_EQ(RunTrapping([] { return Recurses(0); }, &trap), kTrapped);
  EXPECT_EQ(trap.signal, SIGSEGV);
  // Normal results pass through.
  EXPECT_EQ(RunTrapping([] { return int32_t{42}; }, &trap), 42);
}

// SIGILL (an instruction the CPU rejects: ud2) and SIGBUS (a mapped page past the end of its
// file) are caught and described as the other faults are.
TEST(TrapTest, IllegalInstructionsAndBusErrorsAreCaught) {
  TrapInfo trap;
  EXPECT_EQ(RunTrapping([]() -> int32_t { __builtin_trap(); }, &trap), kTrapped);
  EXPECT_EQ(trap.signal, SIGILL);
  EXPECT_NE(DescribeTrap(trap).find("SIGILL (an instruction this CPU lacks"), std::string::npos) << DescribeTrap(trap);
  int fd = memfd_create("kiln-trap-test", 0);  // an empty file
  ASSERT_GE(fd, 0);
  void* page = mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, 0);
  ASSERT_NE(page, MAP_FAILED);
  static volatile const char* volatile beyond_the_file;
  beyond_the_file = static_cast<const char*>(page);
  EXPECT_EQ(RunTrapping([]() -> int32_t { return *beyond_the_file; }, &trap), kTrapped);
  EXPECT_EQ(trap.signal, SIGBUS);
  EXPECT_NE(DescribeTrap(trap).find("SIGBUS (misaligned or unmapped memory at"), std::string::npos)
      << DescribeTrap(trap);
  munmap(page, 4096);
  close(fd);
}

TEST(TrapTest, NestedFramesCatchInTheInnermost) {
  TrapInfo outer, inner;
  int32_t inner_rc = 0;
  int32_t rc = RunTrapping(
      [&] {
        inner_rc = RunTrapping([] { return DividesByZero(); }, &inner);
        return int32_t{5};
      },
      &outer);
  EXPECT_EQ(inner_rc, kTrapped);
  EXPECT_EQ(rc, 5);
}

TEST(TrapTest, AFaultOutsideAnyFrameStillKillsTheProcess) {
  EXPECT_DEATH(
      {
        TrapInfo trap;
        RunTrapping([] { return int32_t{0}; }, &trap);  // installs the handler
        Segfaults();
      },
      "");
}

// A kernel whose parallel loop traps in one chunk, on whichever thread runs it.
int32_t TrappingChunk(int64_t begin, int64_t end, void* closure) {
  auto* ran = static_cast<std::atomic<int>*>(closure);
  ran->fetch_add(1);
  for (int64_t i = begin; i < end; ++i) {
    if (i == 777) return DividesByZero();
  }
  return 0;
}

int32_t KernelWithParallelLoop(void* self, const KilnAny*, int32_t, KilnAny*) {
  const auto* env = static_cast<const KilnKernelEnv*>(self);
  static std::atomic<int> ran;
  env->parallel_for(env->pool, 1000, &TrappingChunk, &ran);
  return 0;  // ignores the loop's result: the trap must still be reported
}

int32_t SegfaultingKernel(void*, const KilnAny*, int32_t, KilnAny*) { return Segfaults(); }

TEST(TrapTest, KernelCallsReportTrapsAndThePoolLivesOn) {
  ThreadPool pool(2);
  absl::Status st = CallKernel(&SegfaultingKernel, "bad_kernel", nullptr, 0, nullptr, pool.env());
  EXPECT_EQ(st.code(), absl::StatusCode::kInternal);
  EXPECT_NE(st.message().find("kernel bad_kernel trapped: SIGSEGV"), std::string::npos) << st;
  for (int round = 0; round < 20; ++round) {  // chunk 777 lands on the caller or on the worker
    st = CallKernel(&KernelWithParallelLoop, "par_kernel", nullptr, 0, nullptr, pool.env());
    EXPECT_NE(st.message().find("kernel par_kernel trapped: SIGFPE (integer division by zero)"), std::string::npos)
        << st;
  }
  // The pool still works, and a clean loop leaves no trap pending.
  std::atomic<int> sum{0};
  EXPECT_EQ(pool.ParallelFor(
                100,
                [](int64_t b, int64_t e, void* c) {
                  static_cast<std::atomic<int>*>(c)->fetch_add(static_cast<int>(e - b));
                  return int32_t{0};
                },
                &sum),
            0);
  EXPECT_EQ(sum.load(), 100);
  TrapInfo none;
  EXPECT_FALSE(TakePendingTrap(&none));
}

// A checked-mode kernel's failed check: its malloc'ed message becomes the status (OUT_OF_RANGE, as
// the interpreter's faults), and the result slot no longer points at the freed memory.
int32_t FailedCheckKernel(void*, const KilnAny*, int32_t, KilnAny* result) {
  const char text[] = "f: out-of-bounds access A[4]: index 4 of dimension 0 is not in [0, 4) (at k.py:3:9)";
  char* msg = static_cast<char*>(std::malloc(sizeof(text)));
  std::memcpy(msg, text, sizeof(text));
  result->type_index = kKilnErrorMessageOwned;
  result->v_ptr = msg;
  return -1;
}

TEST(TrapTest, AFailedChecksMessageIsTakenOver) {
  KilnAny result{};
  absl::Status st = CallKernel(&FailedCheckKernel, "f", nullptr, 0, &result, nullptr);
  EXPECT_EQ(st.code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(st.message(), "f: out-of-bounds access A[4]: index 4 of dimension 0 is not in [0, 4) (at k.py:3:9)");
  EXPECT_EQ(result.type_index, kKilnNone);
  EXPECT_EQ(result.v_ptr, nullptr);
}

}  // namespace
}  // namespace kiln::runtime
