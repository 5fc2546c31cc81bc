// Bounded, deterministic fuzzing driver for reader_fuzz.cc (runs as a cc_test): seeds are
// the conformance corpus plus hand-picked snippets; each round applies random mutations (byte
// flips, token insertions, deletions, duplicated or swapped lines, splices, deep nesting) and
// feeds the result to LLVMFuzzerTestOneInput. Stops after a count or a time budget.
//   env KILN_FUZZ_SEED (default 1), KILN_FUZZ_ITERATIONS (default 100000),
//   KILN_FUZZ_SECONDS (default 8).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/util/shared_dir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

long EnvOr(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtol(v, nullptr, 10) : fallback;
}

void Run(const std::string& input) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

const char* const kSnippets[] = {
    "x = 1\n",
    "@T.prim_func(private=True)\ndef f[n](A: T.Buffer((n,), \"f\"), *a, k=1, **kw) -> T.int32:\n"
    "    for i, j in T.grid(4, 4):\n        with T.sblock(\"b\") as s:\n            A[i:j, ::2] = "
    "-x ** -2 if a < b <= c else lambda q: q\n    return (1,)\n",
    "class M(B, metaclass=K):\n    # comment\n    def g(self):\n        while not x:\n"
    "            x += 0x1F_FF; del y[0]\n        else:\n            pass\n",
    "a = b = {1: [x for x, y in z if x], **k}\nassert c, ('E', [\"m\"])\n",
    "s = r'\\d' 'a\\x41\\u00e9' \"\"\"t\nq\"\"\" + f(*a, **b) @ {x for x in y}\n",
    "if a:\n\tb\nelif c:\n\td\n", "from ..a.b import (c as d, e)\nimport f.g as h\nglobal i\n",
    "x: T.let[T.int32] = 99999999999999999999999 + 1e-5 + .5 + 5. + 1E+3\n",
};

const char* const kTokens[] = {
    "(", ")", "[", "]", "{", "}", ":", ",", ".", "\n", "    ", "\t", "'", "\"", "\"\"\"", "\\",
    "\\\n", "#", "0x", "1e", "_", "if ", " else ", "lambda ", "**", "*", "=", "\r\n", "\xC3\xA9",
    "\xFF", " not ", " in ", " is ", "def ", "class ", "@", "-", "~", "1", "0.5", "r'", "f'",
    "b'", "\\x4", "\\u", "\\N{", ";", "->", "...", "\0",
};

std::string Mutate(const std::string& in, const std::vector<std::string>& seeds,
                   std::mt19937_64& rng) {
  std::string s = in;
  auto pick = [&rng](size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); };
  int rounds = 1 + static_cast<int>(pick(4));
  for (int r = 0; r < rounds; ++r) {
    switch (pick(9)) {
      case 0:  // flip a byte
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1u << pick(8));
        break;
      case 1: {  // insert a token
        const char* t = kTokens[pick(sizeof(kTokens) / sizeof(kTokens[0]))];
        std::string tok = t[0] == '\0' ? std::string(1, '\0') : std::string(t);
        s.insert(pick(s.size() + 1), tok);
        break;
      }
      case 2: {  // delete a range
        if (s.empty()) break;
        size_t at = pick(s.size());
        s.erase(at, 1 + pick(16));
        break;
      }
      case 3: {  // duplicate a line
        size_t at = pick(s.size() + 1);
        size_t b = s.rfind('\n', at == 0 ? 0 : at - 1);
        b = b == std::string::npos ? 0 : b + 1;
        size_t e = s.find('\n', b);
        e = e == std::string::npos ? s.size() : e + 1;
        s.insert(b, s.substr(b, e - b));
        break;
      }
      case 4: {  // swap two lines
        std::vector<std::string> lines;
        std::stringstream ss(s);
        for (std::string l; std::getline(ss, l);) lines.push_back(l + "\n");
        if (lines.size() >= 2) std::swap(lines[pick(lines.size())], lines[pick(lines.size())]);
        s.clear();
        for (auto& l : lines) s += l;
        break;
      }
      case 5: {  // splice with another seed
        const std::string& o = seeds[pick(seeds.size())];
        s = s.substr(0, pick(s.size() + 1)) + o.substr(pick(o.size() + 1));
        break;
      }
      case 6: {  // random bytes
        std::string junk;
        for (size_t i = pick(32); i > 0; --i) junk.push_back(static_cast<char>(rng()));
        s.insert(pick(s.size() + 1), junk);
        break;
      }
      case 7:  // truncate
        s.resize(pick(s.size() + 1));
        break;
      default: {  // deep nesting of one construct
        static const char* const kNest[] = {"(", "[", "{", "-", "not ", "lambda: ", "a if b else ",
                                            "2 ** ", "f(", "x[", "*"};
        std::string unit = kNest[pick(sizeof(kNest) / sizeof(kNest[0]))];
        size_t n = 1 + pick(3000);
        std::string nest;
        nest.reserve(unit.size() * n);
        for (size_t i = 0; i < n; ++i) nest += unit;
        s.insert(pick(s.size() + 1), nest);
        break;
      }
    }
  }
  return s;
}

std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

int main() {
  std::vector<std::string> seeds(std::begin(kSnippets), std::end(kSnippets));
  auto shared = kiln::testing::SharedDir();
  if (!shared.ok()) {
    std::fprintf(stderr, "%s\n", std::string(shared.status().message()).c_str());
    return 1;
  }
  for (const char* sub : {"tir", "relax", "invalid"}) {
    for (const auto& e : std::filesystem::directory_iterator(*shared + "/corpus/" + sub)) {
      if (e.path().extension() == ".py") seeds.push_back(Slurp(e.path()));
    }
  }
  // Fixed pathological inputs first.
  for (const char* unit : {"(", "[", "{", "-", "not ", "lambda: ", "x if y else ", "2 ** "}) {
    std::string deep = "x = ";
    for (int i = 0; i < 10000; ++i) deep += unit;
    Run(deep);
  }
  std::string indents;
  for (int i = 0; i < 1000; ++i) indents += std::string(i, ' ') + "if x:\n";
  Run(indents);
  for (const std::string& s : seeds) Run(s);

  std::mt19937_64 rng(static_cast<uint64_t>(EnvOr("KILN_FUZZ_SEED", 1)));
  const long iterations = EnvOr("KILN_FUZZ_ITERATIONS", 100000);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(EnvOr("KILN_FUZZ_SECONDS", 8));
  long done = 0;
  for (; done < iterations && std::chrono::steady_clock::now() < deadline; ++done) {
    Run(Mutate(seeds[rng() % seeds.size()], seeds, rng));
  }
  std::printf("reader_fuzz: %zu seeds, %ld mutated inputs, no failures\n", seeds.size(),
              done);
  return 0;
}
