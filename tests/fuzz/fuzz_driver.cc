#include "tests/fuzz/fuzz_driver.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

// From <sanitizer/common_interface_defs.h>; weak so the driver also links without sanitizers.
extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

// UBSan (a runtime of its own under GCC, which does not call ASan's death callback) aborts, so
// that OnAbort saves the input, and prints where the undefined behaviour happened.
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1:abort_on_error=1"; }

namespace {

// The input being run, for the paths that must report it from outside the main loop: a sanitizer
// death callback, SIGABRT, and the watchdog thread. These are process-wide by nature (a signal
// handler has no other way in), which is why they are file-level state in this test-only driver.
std::atomic<const std::string*> g_current{nullptr};
std::atomic<int64_t> g_started_ns{0};  // 0: no input running
char g_dump_path[4096];

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Writes the current input to g_dump_path with async-signal-safe calls only.
void DumpCurrentInput() {
  const std::string* in = g_current.load();
  if (in == nullptr) return;
  int fd = open(g_dump_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  size_t off = 0;
  while (off < in->size()) {
    ssize_t n = write(fd, in->data() + off, in->size() - off);
    if (n <= 0) break;
    off += static_cast<size_t>(n);
  }
  close(fd);
  static const char kMsg[] = "fuzz: failing input written to ";
  (void)!write(2, kMsg, sizeof(kMsg) - 1);
  (void)!write(2, g_dump_path, strlen(g_dump_path));
  (void)!write(2, "\n", 1);
}

void OnAbort(int) {
  DumpCurrentInput();
  signal(SIGABRT, SIG_DFL);
  raise(SIGABRT);
}

void RunOne(const std::string& input) {
  g_current.store(&input);
  g_started_ns.store(NowNs());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  g_started_ns.store(0);
  g_current.store(nullptr);
}

// Fails the run when one input takes longer than `timeout_s`: a hang would otherwise only show as
// the whole test timing out, with no input to reproduce it.
void Watchdog(double timeout_s) {
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    int64_t t0 = g_started_ns.load();
    if (t0 != 0 && static_cast<double>(NowNs() - t0) * 1e-9 > timeout_s) {
      std::fprintf(stderr, "fuzz: one input ran longer than %.1f s (--timeout)\n", timeout_s);
      DumpCurrentInput();
      std::_Exit(1);
    }
  }
}

std::string CustomMutate(const std::string& in, std::mt19937_64& rng) {
  size_t max_size = in.size() * 2 + 4096;
  std::string buf = in;
  buf.resize(max_size);
  size_t n = LLVMFuzzerCustomMutator(reinterpret_cast<uint8_t*>(&buf[0]), in.size(), max_size,
                                     static_cast<unsigned int>(rng()));
  buf.resize(std::min(n, max_size));
  return buf;
}

std::string Mutate(std::string s, const std::vector<std::string>& seeds, std::mt19937_64& rng) {
  int edits = 1 + static_cast<int>(rng() % 8);
  for (int e = 0; e < edits; ++e) {
    switch (rng() % 7) {
      case 0:  // flip a bit
        if (!s.empty()) s[rng() % s.size()] ^= static_cast<char>(1u << (rng() % 8));
        break;
      case 1:  // overwrite a byte with an interesting value
        if (!s.empty()) {
          static const unsigned char kVals[] = {0, 1, 0x7f, 0x80, 0xff, 0xfe, '(', '[', ':', '\n'};
          s[rng() % s.size()] = static_cast<char>(kVals[rng() % sizeof(kVals)]);
        }
        break;
      case 2:  // insert random bytes
        s.insert(s.empty() ? 0 : rng() % s.size(), std::string(1 + rng() % 4, static_cast<char>(rng())));
        break;
      case 3:  // delete a range
        if (!s.empty()) {
          size_t at = rng() % s.size();
          s.erase(at, 1 + rng() % 16);
        }
        break;
      case 4:  // splice with another seed
        if (!seeds.empty()) {
          const std::string& o = seeds[rng() % seeds.size()];
          if (!o.empty() && !s.empty()) s = s.substr(0, rng() % s.size()) + o.substr(rng() % o.size());
        }
        break;
      case 5:  // duplicate a chunk
        if (!s.empty()) {
          size_t at = rng() % s.size();
          s.insert(at, s.substr(at, 1 + rng() % 32));
        }
        break;
      case 6:  // truncate
        if (!s.empty()) s.resize(rng() % s.size());
        break;
    }
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 8;
  long runs = 2000000;
  uint64_t seed = 1;
  double timeout_s = 10;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--seconds=", 10) == 0) {
      seconds = std::atof(argv[i] + 10);
    } else if (std::strncmp(argv[i], "--runs=", 7) == 0) {
      runs = std::atol(argv[i] + 7);
    } else if (std::strncmp(argv[i], "--seed=", 7) == 0) {
      seed = std::strtoull(argv[i] + 7, nullptr, 10);
    } else if (std::strncmp(argv[i], "--timeout=", 10) == 0) {
      timeout_s = std::atof(argv[i] + 10);
    } else {
      files.push_back(argv[i]);
    }
  }
  if (const char* env = std::getenv("KILN_FUZZ_SECONDS")) seconds = std::atof(env);
  const char* out_dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  std::snprintf(g_dump_path, sizeof(g_dump_path), "%s/fuzz-failure.input", out_dir && *out_dir ? out_dir : ".");
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(&DumpCurrentInput);
  signal(SIGABRT, &OnAbort);
  std::thread(Watchdog, timeout_s).detach();
  if (!files.empty()) {
    for (const std::string& f : files) {
      std::ifstream in(f, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      RunOne(ss.str());
    }
    std::printf("replayed %zu file(s)\n", files.size());
    return 0;
  }
  std::vector<std::string> seeds = KilnFuzzSeeds();
  for (const std::string& s : seeds) RunOne(s);
  std::mt19937_64 rng(seed);
  auto start = std::chrono::steady_clock::now();
  long n = 0;
  double slowest_s = 0;
  for (; n < runs; ++n) {
    if ((n & 63) == 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) {
      break;
    }
    std::string input;
    if (n % 10 == 0) {
      input.resize(rng() % 256);
      for (char& c : input) c = static_cast<char>(rng());
    } else {
      input = seeds.empty() ? std::string() : seeds[rng() % seeds.size()];
      if (LLVMFuzzerCustomMutator && rng() % 2 == 0) {
        input = CustomMutate(input, rng);
        if (rng() % 4 == 0) input = Mutate(std::move(input), seeds, rng);
      } else {
        input = Mutate(std::move(input), seeds, rng);
      }
    }
    int64_t t0 = NowNs();
    RunOne(input);
    slowest_s = std::max(slowest_s, static_cast<double>(NowNs() - t0) * 1e-9);
  }
  std::printf("fuzz: %zu seeds, %ld runs in %.1f s (slowest input %.3f s), no crash\n", seeds.size(), n,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), slowest_s);
  return 0;
}
