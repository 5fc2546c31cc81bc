// kilnd-worker: one long-lived compile process of WorkerPool (worker_pool.h). It initializes LLVM's
// targets once at start (a warm backend), then loops: read a WorkerJob frame from stdin, compile it
// with CompileJobInProcess, write a WorkerResult frame to stdout (worker_protocol.h). End of stdin
// ends it with status 0.
//
// Protocol hygiene: stdin and stdout are moved to close-on-exec descriptors at start, and fds 0 and
// 1 are pointed at /dev/null and stderr, so neither a stray print from the compiler nor a linker
// the compiler spawns can read or write the protocol stream. Diagnostics go to stderr.
//
// Limits (set by the worker on itself before each job, lifted after it):
//   - CPU: a timer on the process's CPU clock (timer_create(CLOCK_PROCESS_CPUTIME_ID), all
//     threads, user + system) armed for the job's cpu_limit_seconds delivers SIGXCPU, whose
//     default action ends the process; the pool reports DEADLINE_EXCEEDED. A timer rather than
//     RLIMIT_CPU: the rlimit counts whole seconds of the process's lifetime, so a per-job limit built
//     on it could overshoot by up to a second. Core dumps are off (RLIMIT_CORE 0).
//   - Memory: the soft RLIMIT_AS becomes the worker's address-space size before the job + the job's
//     memory_limit_bytes. A failed allocation (operator new, or LLVM's allocation handler) exits
//     with kWorkerOutOfMemoryExit, which the pool reports as RESOURCE_EXHAUSTED: after a failed
//     allocation the compiler's state cannot be trusted, so the worker does not go on. The soft
//     limit never exceeds the inherited hard one, so the worker can lift it again.
// The linker the compiler runs inherits the address-space limit; its CPU time is its own.
//
// Flags: --max-job-bytes=N (cap on a job frame; default kMaxFrameBytes).
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <new>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "compiler/target/llvm/target.h"
#include "llvm/Support/ErrorHandling.h"
#include "proto/worker.pb.h"
#include "server/pool/backend.h"
#include "server/pool/in_process_backend.h"
#include "server/pool/worker_protocol.h"

namespace kiln::server {
namespace {

[[noreturn]] void OnOutOfMemory() { _exit(kWorkerOutOfMemoryExit); }

void OnLLVMBadAlloc(void*, const char*, bool) { OnOutOfMemory(); }

// The process's address-space size (what RLIMIT_AS bounds), from /proc/self/statm.
uint64_t AddressSpaceBytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long pages = 0;
  if (std::fscanf(f, "%llu", &pages) != 1) pages = 0;
  std::fclose(f);
  return pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// Sets the soft limit of `resource` to `value` (RLIM_INFINITY: lifted), never above the hard one.
void SetSoftLimit(int resource, rlim_t value) {
  rlimit limit{};
  if (getrlimit(resource, &limit) != 0) return;
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? value : std::min(value, limit.rlim_max);
  if (setrlimit(resource, &limit) != 0) std::perror("kilnd-worker: setrlimit");
}

// Arms (seconds > 0) or disarms (0) the CPU timer, relative to the CPU time used so far.
void SetCpuTimer(timer_t timer, uint32_t seconds) {
  itimerspec spec{};
  spec.it_value.tv_sec = seconds;
  if (timer_settime(timer, 0, &spec, nullptr) != 0) std::perror("kilnd-worker: timer_settime");
}

void ApplyJobLimits(const v1::worker::WorkerJob& job, timer_t cpu_timer) {
  if (job.memory_limit_bytes() > 0) SetSoftLimit(RLIMIT_AS, AddressSpaceBytes() + job.memory_limit_bytes());
  if (job.cpu_limit_seconds() > 0) SetCpuTimer(cpu_timer, job.cpu_limit_seconds());
}

void LiftJobLimits(timer_t cpu_timer) {
  SetCpuTimer(cpu_timer, 0);
  SetSoftLimit(RLIMIT_AS, RLIM_INFINITY);
}

v1::worker::WorkerResult Run(const v1::worker::WorkerJob& proto) {
  CompileJob job;
  job.module = proto.module();
  job.target = proto.target();
  job.entries.assign(proto.entries().begin(), proto.entries().end());
  job.checked = proto.checked();
  absl::StatusOr<CompileOutput> out = CompileJobInProcess(job);
  v1::worker::WorkerResult result;
  if (!out.ok()) {
    result.set_code(static_cast<int32_t>(out.status().code()));
    result.set_message(std::string(out.status().message()));
    return result;
  }
  result.set_executable(std::move(out->executable));
  for (std::string& f : out->functions) result.add_functions(std::move(f));
  result.set_compile_micros(absl::ToInt64Microseconds(out->compile_time));
  return result;
}

// Moves `fd` (0 or 1) to a close-on-exec descriptor >= 3 and points `fd` at `replacement`.
int TakeOver(int fd, int replacement) {
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (moved >= 0) dup2(replacement, fd);
  return moved;
}

int Main(int argc, char** argv) {
  uint64_t max_job_bytes = kMaxFrameBytes;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (absl::ConsumePrefix(&arg, "--max-job-bytes=") && absl::SimpleAtoi(arg, &max_job_bytes)) continue;
    std::fprintf(stderr, "kilnd-worker: unknown or malformed flag %s (the only flag is --max-job-bytes=N)\n", argv[i]);
    return 2;
  }
  int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  int in = TakeOver(STDIN_FILENO, devnull);
  int out = TakeOver(STDOUT_FILENO, STDERR_FILENO);
  if (devnull < 0 || in < 0 || out < 0) {
    std::perror("kilnd-worker: setting up the protocol descriptors");
    return 1;
  }
  close(devnull);
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  sigevent on_cpu_limit{};
  on_cpu_limit.sigev_notify = SIGEV_SIGNAL;
  on_cpu_limit.sigev_signo = SIGXCPU;
  timer_t cpu_timer;
  if (timer_create(CLOCK_PROCESS_CPUTIME_ID, &on_cpu_limit, &cpu_timer) != 0) {
    std::perror("kilnd-worker: timer_create");
    return 1;
  }
  std::set_new_handler(OnOutOfMemory);
  llvm::install_bad_alloc_error_handler(OnLLVMBadAlloc);
  codegen::InitializeLLVM();

  while (true) {
    absl::StatusOr<std::string> frame = ReadFrame(in, max_job_bytes);
    if (absl::IsOutOfRange(frame.status())) return 0;  // kilnd closed the pipe: done
    if (!frame.ok()) {
      // The stream can no longer be trusted to be in step: stop, and the pool replaces the worker.
      std::fprintf(stderr, "kilnd-worker: reading a job: %s\n", std::string(frame.status().message()).c_str());
      return 1;
    }
    v1::worker::WorkerJob job;
    v1::worker::WorkerResult result;
    if (!job.ParseFromString(*frame)) {
      result.set_code(static_cast<int32_t>(absl::StatusCode::kInternal));
      result.set_message("kilnd-worker received a job that is not a WorkerJob message");
    } else {
      ApplyJobLimits(job, cpu_timer);
      result = Run(job);
      LiftJobLimits(cpu_timer);
      result.set_job_id(job.id());
    }
    std::string bytes;
    result.SerializeToString(&bytes);
    if (absl::Status s = WriteFrame(out, bytes); !s.ok()) {
      std::fprintf(stderr, "kilnd-worker: writing a result: %s\n", std::string(s.message()).c_str());
      return 1;
    }
  }
}

}  // namespace
}  // namespace kiln::server

int main(int argc, char** argv) { return kiln::server::Main(argc, argv); }
