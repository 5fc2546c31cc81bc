#include "tests/fuzz/fuzz_driver.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

namespace {

void RunOne(const std::string& input) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

std::string Mutate(const std::vector<std::string>& seeds, std::mt19937_64& rng) {
  std::string s = seeds.empty() ? std::string() : seeds[rng() % seeds.size()];
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
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--seconds=", 10) == 0) {
      seconds = std::atof(argv[i] + 10);
    } else if (std::strncmp(argv[i], "--runs=", 7) == 0) {
      runs = std::atol(argv[i] + 7);
    } else if (std::strncmp(argv[i], "--seed=", 7) == 0) {
      seed = std::strtoull(argv[i] + 7, nullptr, 10);
    } else {
      files.push_back(argv[i]);
    }
  }
  if (const char* env = std::getenv("KILN_FUZZ_SECONDS")) seconds = std::atof(env);
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
  for (; n < runs; ++n) {
    if ((n & 63) == 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) {
      break;
    }
    if (n % 10 == 0) {
      std::string r(rng() % 256, '\0');
      for (char& c : r) c = static_cast<char>(rng());
      RunOne(r);
    } else {
      RunOne(Mutate(seeds, rng));
    }
  }
  std::printf("fuzz: %zu seeds, %ld runs in %.1f s, no crash\n", seeds.size(), n,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return 0;
}
