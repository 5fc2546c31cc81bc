// WorkerPool against the real kilnd-worker binary: the bytes equal an in-process compile, compiler
// errors pass through, a worker killed mid-compile, a deadline, the CPU and memory limits, a worker
// that breaks the protocol, the bounded queue, round-robin fairness across clients, two workers at
// once, shutdown, and no process left behind.
#include "server/pool/worker_pool.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "compiler/driver/relax_build.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"
#include "server/cache/key.h"
#include "server/pool/in_process_backend.h"

namespace kiln::server {
namespace {

constexpr char kRelaxModule[] = R"PY(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), y: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((4, 8), dtype="float32") = R.add(x, y)
            gv: R.Tensor((4, 8), dtype="float32") = R.multiply(lv, R.const(2.0, "float32"))
            R.output(gv)
        return gv
)PY";

// One kernel of the slow module; NAME makes each copy a distinct function.
constexpr char kNormKernel[] = R"PY(
    @T.prim_func
    def norm_NAME(X: T.Buffer((8, 32), "float32"), gamma: T.Buffer((32,), "float32"), beta: T.Buffer((32,), "float32"), Y: T.Buffer((8, 32), "float32")):
        mean = T.alloc_buffer((8,))
        sqsum = T.alloc_buffer((8,))
        for i, k in T.grid(8, 32):
            with T.sblock("stats"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    mean[vi] = T.float32(0.0)
                    sqsum[vi] = T.float32(0.0)
                mean[vi] = mean[vi] + X[vi, vk] * T.float32(0.03125)
                sqsum[vi] = sqsum[vi] + X[vi, vk] * X[vi, vk] * T.float32(0.03125)
        for i, j in T.grid(8, 32):
            with T.sblock("normalize"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = (X[vi, vj] - mean[vi]) * T.rsqrt(sqsum[vi] - mean[vi] * mean[vi] + T.float32(1e-05)) * gamma[vj] + beta[vj]
)PY";

// A genuinely slow compile: `n` kernels, about 30 ms of compiling each.
std::string ManyKernels(int n) {
  std::string text = "@I.ir_module\nclass Module:\n";
  for (int i = 0; i < n; ++i) text += absl::StrReplaceAll(kNormKernel, {{"NAME", absl::StrCat(i)}});
  return text;
}

std::string Target() {
  static const std::string* target = new std::string(driver::NormalizeTarget("llvm").value());
  return *target;
}

CompileJob Job(const std::string& text, const std::string& client = "test") {
  CompileJob job;
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(text, "pool_test.py");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (parsed.ok()) {
    absl::StatusOr<std::string> bytes = CanonicalModuleBytes(script::AsModule(*parsed));
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    if (bytes.ok()) job.module = *bytes;
  }
  job.target = Target();
  job.client = client;
  return job;
}

const CompileJob& SmallJob() {
  static const CompileJob* job = new CompileJob(Job(kRelaxModule));
  return *job;
}

// About 3 s of compiling (and CPU time) on the development machine: long enough to act on a
// worker while it is busy, and to run past a 1 s CPU limit.
const CompileJob& SlowJob() {
  static const CompileJob* job = new CompileJob(Job(ManyKernels(120)));
  return *job;
}

std::string WorkerBinary() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return absl::StrCat(srcdir != nullptr ? srcdir : ".", "/kiln/server/kilnd-worker");
}

WorkerPoolOptions Options(int workers = 1) {
  WorkerPoolOptions options;
  options.worker_binary = WorkerBinary();
  options.workers_per_target = workers;
  return options;
}

std::unique_ptr<WorkerPool> MakePool(const WorkerPoolOptions& options) {
  absl::StatusOr<std::unique_ptr<WorkerPool>> pool = WorkerPool::Create(options);
  EXPECT_TRUE(pool.ok()) << pool.status();
  return pool.ok() ? std::move(*pool) : nullptr;
}

PoolCounters Counters(const WorkerPool& pool) {
  std::vector<PoolCounters> stats = pool.Stats();
  return stats.empty() ? PoolCounters() : stats[0];
}

// Polls until `done` holds (true) or 10 s pass (false).
bool WaitUntil(const std::function<bool()>& done) {
  absl::Time until = absl::Now() + absl::Seconds(10);
  while (!done()) {
    if (absl::Now() > until) return false;
    absl::SleepFor(absl::Milliseconds(1));
  }
  return true;
}

// True once `pid` is reaped: it is no longer this process's child, dead or alive.
bool Reaped(pid_t pid) { return waitpid(pid, nullptr, WNOHANG) < 0 && errno == ECHILD; }

TEST(WorkerPoolTest, CompilesTheBytesAnInProcessCompileGives) {
  std::unique_ptr<WorkerPool> pool = MakePool(Options());
  ASSERT_NE(pool, nullptr);
  absl::StatusOr<CompileOutput> expected = CompileJobInProcess(SmallJob());
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::StatusOr<CompileOutput> out = pool->Compile(SmallJob());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->executable, expected->executable);
  EXPECT_EQ(out->functions, expected->functions);
  EXPECT_GT(out->compile_time, absl::ZeroDuration());

  // The same long-lived worker serves the next job.
  std::vector<pid_t> pids = pool->WorkerPids(Target());
  ASSERT_EQ(pids.size(), 1u);
  out = pool->Compile(SmallJob());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->executable, expected->executable);
  EXPECT_EQ(pool->WorkerPids(Target()), pids);
  PoolCounters c = Counters(*pool);
  EXPECT_EQ(c.target, Target());
  EXPECT_EQ(c.workers, 1u);
  EXPECT_EQ(c.busy, 0u);
  EXPECT_EQ(c.completed, 2u);
  EXPECT_EQ(c.failed, 0u);
  EXPECT_EQ(c.worker_restarts, 0u);

  // The destructor stops and reaps the workers.
  pool.reset();
  EXPECT_TRUE(Reaped(pids[0]));
}

TEST(WorkerPoolTest, OnePoolPerTarget) {
  std::unique_ptr<WorkerPool> pool = MakePool(Options());
  ASSERT_NE(pool, nullptr);
  CompileJob o0 = SmallJob();
  o0.target = driver::NormalizeTarget("llvm -opt-level=0").value();
  ASSERT_TRUE(pool->Compile(SmallJob()).ok());
  ASSERT_TRUE(pool->Compile(o0).ok());
  std::vector<PoolCounters> stats = pool->Stats();
  ASSERT_EQ(stats.size(), 2u);
  for (const PoolCounters& c : stats) {
    EXPECT_EQ(c.workers, 1u) << c.target;
    EXPECT_EQ(c.completed, 1u) << c.target;
  }
  EXPECT_NE(pool->WorkerPids(Target()), pool->WorkerPids(o0.target));
  EXPECT_TRUE(pool->WorkerPids("cuda").empty());

  // Each target costs processes: there is a cap on how many get a pool.
  WorkerPoolOptions options = Options();
  options.max_targets = 1;
  pool = MakePool(options);
  ASSERT_NE(pool, nullptr);
  ASSERT_TRUE(pool->Compile(SmallJob()).ok());
  absl::Status s = pool->Compile(o0).status();
  EXPECT_TRUE(absl::IsResourceExhausted(s)) << s;
  EXPECT_EQ(pool->Stats().size(), 1u);
}

TEST(WorkerPoolTest, WorkersInheritNoDescriptorOfTheDaemon) {
  // A descriptor the daemon left inheritable (no O_CLOEXEC).
  std::string marker = absl::StrCat(std::getenv("TEST_TMPDIR"), "/inheritable-XXXXXX");
  int fd = mkstemp(marker.data());
  ASSERT_GE(fd, 0);
  std::unique_ptr<WorkerPool> pool = MakePool(Options());
  ASSERT_NE(pool, nullptr);
  ASSERT_TRUE(pool->Compile(SmallJob()).ok());  // the worker has surely started
  std::vector<pid_t> pids = pool->WorkerPids(Target());
  ASSERT_EQ(pids.size(), 1u);
  std::string dir = absl::StrCat("/proc/", pids[0], "/fd");
  int seen = 0;
  for (const std::filesystem::directory_entry& e : std::filesystem::directory_iterator(dir)) {
    std::error_code ec;
    EXPECT_NE(std::filesystem::read_symlink(e.path(), ec).string(), marker);
    ++seen;
  }
  EXPECT_GE(seen, 3);
  close(fd);
  unlink(marker.c_str());
}

TEST(WorkerPoolTest, CompilerErrorsComeBackAsTheCompilerSaidThem) {
  std::unique_ptr<WorkerPool> pool = MakePool(Options());
  ASSERT_NE(pool, nullptr);
  // A module with nothing to build.
  CompileJob job = SmallJob();
  job.module = CanonicalModuleBytes(ir::IRModule::Make()).value();
  absl::Status expected = CompileJobInProcess(job).status();
  ASSERT_TRUE(absl::IsInvalidArgument(expected)) << expected;
  EXPECT_EQ(pool->Compile(job).status(), expected);

  job = SmallJob();
  job.module = "not a serialized module";
  expected = CompileJobInProcess(job).status();
  ASSERT_TRUE(absl::IsInvalidArgument(expected)) << expected;
  EXPECT_EQ(pool->Compile(job).status(), expected);

  // Any code passes through, with its message: an entry the module lacks is NOT_FOUND.
  job = SmallJob();
  job.entries = {"no_such_function"};
  expected = CompileJobInProcess(job).status();
  ASSERT_FALSE(expected.ok());
  EXPECT_EQ(pool->Compile(job).status(), expected);

  // Errors are answers, not crashes: the worker stays.
  PoolCounters c = Counters(*pool);
  EXPECT_EQ(c.failed, 3u);
  EXPECT_EQ(c.worker_restarts, 0u);
}

TEST(WorkerPoolTest, AWorkerKilledMidCompileFailsOnlyItsJob) {
  std::unique_ptr<WorkerPool> pool = MakePool(Options());
  ASSERT_NE(pool, nullptr);
  absl::StatusOr<CompileOutput> slow;
  std::thread t([&] { slow = pool->Compile(SlowJob()); });
  ASSERT_TRUE(WaitUntil([&] { return Counters(*pool).busy == 1; }));
  std::vector<pid_t> pids = pool->WorkerPids(Target());
  ASSERT_EQ(pids.size(), 1u);
  ASSERT_EQ(kill(pids[0], SIGKILL), 0);
  t.join();
  EXPECT_TRUE(absl::IsInternal(slow.status())) << slow.status();
  EXPECT_EQ(slow.status().message(),
            absl::StrCat("kilnd-worker (pid ", pids[0], ") died of signal SIGKILL while compiling"));
  EXPECT_TRUE(Reaped(pids[0]));

  absl::StatusOr<CompileOutput> next = pool->Compile(SmallJob());
  EXPECT_TRUE(next.ok()) << next.status();
  PoolCounters c = Counters(*pool);
  EXPECT_EQ(c.worker_restarts, 1u);
  EXPECT_EQ(c.completed, 1u);
  EXPECT_EQ(c.failed, 1u);
  EXPECT_EQ(c.workers, 1u);
  EXPECT_NE(pool->WorkerPids(Target()), pids);
}

TEST(WorkerPoolTest, AWorkerThatDiedWhileIdleIsReplacedBeforeTheNextJob) {
  std::unique_ptr<WorkerPool> pool = MakePool(Options());
  ASSERT_NE(pool, nullptr);
  ASSERT_TRUE(pool->Compile(SmallJob()).ok());
  std::vector<pid_t> pids = pool->WorkerPids(Target());
  ASSERT_EQ(pids.size(), 1u);
  ASSERT_EQ(kill(pids[0], SIGKILL), 0);
  ASSERT_TRUE(WaitUntil([&] {
    siginfo_t info{};
    return waitid(P_PID, pids[0], &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pids[0];
  }));
  absl::StatusOr<CompileOutput> out = pool->Compile(SmallJob());
  EXPECT_TRUE(out.ok()) << out.status();
  PoolCounters c = Counters(*pool);
  EXPECT_EQ(c.worker_restarts, 1u);
  EXPECT_EQ(c.failed, 0u);
  EXPECT_TRUE(Reaped(pids[0]));
}

TEST(WorkerPoolTest, ADeadlineStopsTheCompileAndTheWorkerIsReplaced) {
  std::unique_ptr<WorkerPool> pool = MakePool(Options());
  ASSERT_NE(pool, nullptr);
  ASSERT_TRUE(pool->Compile(SmallJob()).ok());  // the worker is warm: the deadline is all compile
  std::vector<pid_t> pids = pool->WorkerPids(Target());
  CompileJob job = SlowJob();
  job.deadline = absl::Now() + absl::Milliseconds(200);
  absl::StatusOr<CompileOutput> out = pool->Compile(job);
  EXPECT_TRUE(absl::IsDeadlineExceeded(out.status())) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), "was stopped")) << out.status();
  EXPECT_LT(absl::Now() - job.deadline, absl::Seconds(1));
  EXPECT_TRUE(Reaped(pids[0]));

  EXPECT_TRUE(pool->Compile(SmallJob()).ok());
  EXPECT_EQ(Counters(*pool).worker_restarts, 1u);

  // A deadline already past never reaches a worker.
  job.deadline = absl::Now() - absl::Seconds(1);
  EXPECT_TRUE(absl::IsDeadlineExceeded(pool->Compile(job).status()));
  EXPECT_EQ(Counters(*pool).worker_restarts, 1u);
}

TEST(WorkerPoolTest, TheCpuLimitStopsARunawayCompile) {
  WorkerPoolOptions options = Options();
  options.cpu_seconds_per_job = 1;
  std::unique_ptr<WorkerPool> pool = MakePool(options);
  ASSERT_NE(pool, nullptr);
  // Small jobs fit the limit, again and again (the limit is per job, not per worker).
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(pool->Compile(SmallJob()).ok());
  absl::StatusOr<CompileOutput> out = pool->Compile(SlowJob());
  EXPECT_TRUE(absl::IsDeadlineExceeded(out.status())) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), "per-job CPU limit of 1 s (SIGXCPU)")) << out.status();
  EXPECT_TRUE(pool->Compile(SmallJob()).ok());
  EXPECT_EQ(Counters(*pool).worker_restarts, 1u);
}

TEST(WorkerPoolTest, TheMemoryLimitGivesResourceExhausted) {
  WorkerPoolOptions options = Options();
  options.memory_bytes_per_job = 1 << 20;  // 1 MiB more address space: far too little for LLVM
  std::unique_ptr<WorkerPool> pool = MakePool(options);
  ASSERT_NE(pool, nullptr);
  absl::StatusOr<CompileOutput> out = pool->Compile(SlowJob());
  EXPECT_TRUE(absl::IsResourceExhausted(out.status())) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(),
                                "ran out of memory while compiling (the per-job limit is 1048576 bytes)"))
      << out.status();
  EXPECT_EQ(Counters(*pool).worker_restarts, 1u);
}

TEST(WorkerPoolTest, AWorkerThatBreaksTheProtocolFailsItsJobAndIsReplaced) {
  // cat answers a job with the job's own bytes: well framed, and even parseable as a WorkerResult
  // (protobuf skips fields of the wrong wire type), but not the answer to that job.
  WorkerPoolOptions options = Options();
  options.worker_binary = "/bin/cat";
  std::unique_ptr<WorkerPool> pool = MakePool(options);
  ASSERT_NE(pool, nullptr);
  absl::Status s = pool->Compile(SmallJob()).status();
  EXPECT_TRUE(absl::IsInternal(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "sent a result that is not a WorkerResult")) << s;
  EXPECT_EQ(Counters(*pool).worker_restarts, 1u);

  // A worker that rejects its command line exits before answering.
  options = Options();
  options.worker_args = {"--no-such-flag"};
  pool = MakePool(options);
  ASSERT_NE(pool, nullptr);
  s = pool->Compile(SmallJob()).status();
  EXPECT_TRUE(absl::IsInternal(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "exited with status 2 while compiling")) << s;
}

TEST(WorkerPoolTest, AFullQueueRefusesWithResourceExhausted) {
  WorkerPoolOptions options = Options();
  options.max_queued_per_target = 1;
  std::unique_ptr<WorkerPool> pool = MakePool(options);
  ASSERT_NE(pool, nullptr);
  CompileJob slow = SlowJob();
  slow.deadline = absl::Now() + absl::Seconds(1);
  absl::StatusOr<CompileOutput> first, second;
  std::thread t1([&] { first = pool->Compile(slow); });
  ASSERT_TRUE(WaitUntil([&] { return Counters(*pool).busy == 1; }));
  std::thread t2([&] { second = pool->Compile(SmallJob()); });
  ASSERT_TRUE(WaitUntil([&] { return Counters(*pool).queued == 1; }));
  absl::Status third = pool->Compile(SmallJob()).status();
  EXPECT_TRUE(absl::IsResourceExhausted(third)) << third;
  EXPECT_TRUE(absl::StrContains(third.message(), "is full (1 jobs waiting)")) << third;
  t1.join();
  t2.join();
  EXPECT_TRUE(absl::IsDeadlineExceeded(first.status())) << first.status();
  EXPECT_TRUE(second.ok()) << second.status();  // the queued job ran once the worker was replaced
}

TEST(WorkerPoolTest, AQueuedJobWhoseDeadlinePassesLeavesTheQueue) {
  std::unique_ptr<WorkerPool> pool = MakePool(Options());
  ASSERT_NE(pool, nullptr);
  CompileJob slow = SlowJob();
  slow.deadline = absl::Now() + absl::Seconds(1);
  absl::StatusOr<CompileOutput> first;
  std::thread t([&] { first = pool->Compile(slow); });
  ASSERT_TRUE(WaitUntil([&] { return Counters(*pool).busy == 1; }));
  CompileJob waiting = SmallJob();
  waiting.deadline = absl::Now() + absl::Milliseconds(50);
  absl::Status s = pool->Compile(waiting).status();
  EXPECT_TRUE(absl::IsDeadlineExceeded(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "waited for a worker")) << s;
  EXPECT_EQ(Counters(*pool).queued, 0u);
  t.join();
}

TEST(WorkerPoolTest, ClientsTakeTurnsSoAFloodCannotStarveAnother) {
  std::unique_ptr<WorkerPool> pool = MakePool(Options());
  ASSERT_NE(pool, nullptr);
  // The one worker is busy while the queues fill: three jobs of "flood", then one of "other".
  CompileJob blocker = SlowJob();
  blocker.deadline = absl::Now() + absl::Seconds(1);
  std::thread busy([&] { pool->Compile(blocker).IgnoreError(); });
  ASSERT_TRUE(WaitUntil([&] { return Counters(*pool).busy == 1; }));
  absl::Mutex mu;
  std::vector<std::string> finished;
  std::vector<std::thread> threads;
  auto submit = [&](const std::string& client, const std::string& name) {
    uint32_t queued = Counters(*pool).queued;
    threads.emplace_back([&, client, name] {
      CompileJob job = SmallJob();
      job.client = client;
      absl::Status s = pool->Compile(job).status();
      EXPECT_TRUE(s.ok()) << name << ": " << s;
      absl::MutexLock lock(&mu);
      finished.push_back(name);
    });
    ASSERT_TRUE(WaitUntil([&] { return Counters(*pool).queued == queued + 1; }));
  };
  submit("flood", "flood1");
  submit("flood", "flood2");
  submit("flood", "flood3");
  submit("other", "other1");
  busy.join();
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(finished, (std::vector<std::string>{"flood1", "other1", "flood2", "flood3"}));
}

TEST(WorkerPoolTest, TwoWorkersCompileAtOnce) {
  std::unique_ptr<WorkerPool> pool = MakePool(Options(2));
  ASSERT_NE(pool, nullptr);
  static const CompileJob* job = new CompileJob(Job(ManyKernels(10)));
  absl::StatusOr<CompileOutput> a, b;
  std::thread ta([&] { a = pool->Compile(*job); });
  std::thread tb([&] { b = pool->Compile(*job); });
  EXPECT_TRUE(WaitUntil([&] { return Counters(*pool).busy == 2; }));
  ta.join();
  tb.join();
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->executable, b->executable);
  PoolCounters c = Counters(*pool);
  EXPECT_EQ(c.workers, 2u);
  EXPECT_EQ(c.completed, 2u);
  std::vector<pid_t> pids = pool->WorkerPids(Target());
  ASSERT_EQ(pids.size(), 2u);
  EXPECT_NE(pids[0], pids[1]);
}

TEST(WorkerPoolTest, ShutdownRefusesNewJobsFinishesAcceptedOnesAndReapsTheWorkers) {
  std::unique_ptr<WorkerPool> pool = MakePool(Options());
  ASSERT_NE(pool, nullptr);
  static const CompileJob* job = new CompileJob(Job(ManyKernels(10)));
  absl::StatusOr<CompileOutput> in_flight;
  std::thread t([&] { in_flight = pool->Compile(*job); });
  ASSERT_TRUE(WaitUntil([&] { return Counters(*pool).busy == 1; }));
  std::vector<pid_t> pids = pool->WorkerPids(Target());
  // Until Shutdown starts, a probe waits in the queue and times out; then it is refused.
  absl::Status probe;
  std::thread prober([&] {
    do {
      CompileJob p = SmallJob();
      p.deadline = absl::Now() + absl::Milliseconds(20);
      probe = pool->Compile(p).status();
    } while (absl::IsDeadlineExceeded(probe));
  });
  pool->Shutdown();
  prober.join();
  t.join();
  EXPECT_TRUE(absl::IsUnavailable(probe)) << probe;
  EXPECT_TRUE(in_flight.ok()) << in_flight.status();
  EXPECT_EQ(Counters(*pool).workers, 0u);
  EXPECT_TRUE(Reaped(pids[0]));
  EXPECT_TRUE(absl::IsUnavailable(pool->Compile(SmallJob()).status()));
  pool->Shutdown();  // idempotent
}

TEST(WorkerPoolTest, CreateChecksTheOptions) {
  WorkerPoolOptions options = Options();
  options.worker_binary = "/nonexistent/kilnd-worker";
  absl::Status s = WorkerPool::Create(options).status();
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "/nonexistent/kilnd-worker")) << s;
  options = Options(0);
  EXPECT_TRUE(absl::IsInvalidArgument(WorkerPool::Create(options).status()));
}

TEST(WorkerPoolTest, DefaultWorkerBinaryLooksNextToThisExecutable) {
  // The test binary lives in server/pool/, the worker in server/: not found, and the error says where.
  absl::StatusOr<std::string> path = DefaultWorkerBinary();
  EXPECT_TRUE(absl::IsNotFound(path.status())) << path.status();
  EXPECT_TRUE(absl::StrContains(path.status().message(), "server/pool/kilnd-worker")) << path.status();
}

}  // namespace
}  // namespace kiln::server
