// Fuzz target: the TVMScript front door (ParseScript with verification) and, for what it accepts,
// the printer and the re-parse of its output. Whatever the input -- random bytes, token soup, or a
// corpus program with tokens deleted, duplicated, swapped or spliced in from another file -- the
// parser must return an IR or a located error, never crash, hang or leak; and an accepted program
// must print to text that parses back to a structurally equal IR whose printing is a fixed point.
//
// Seeds: every .py file of shared/corpus/{tir,relax,invalid} and tests/script (all areas). The
// token-level mutator (LLVMFuzzerCustomMutator) works on a light Python tokenization of the input,
// so most mutants stay lexically valid and get past the reader into the parser and the verifiers,
// where byte flips alone rarely reach.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/structural.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/roundtrip.h"
#include "compiler/script/script.h"
#include "tests/fuzz/fuzz_driver.h"
#include "tests/util/shared_dir.h"

namespace {

namespace fs = std::filesystem;
using kiln::ir::ObjectRef;

constexpr char kFileName[] = "fuzz.py";

[[noreturn]] void Die(const std::string& what, absl::string_view source, const std::string& detail) {
  std::fprintf(stderr, "script_parse_fuzz: %s\n--- input:\n%.*s\n--- detail:\n%s\n", what.c_str(),
               static_cast<int>(source.size()), source.data(), detail.c_str());
  std::abort();
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void AddPyFiles(const fs::path& dir, std::vector<std::string>* out) {
  std::error_code ec;
  std::vector<fs::path> paths;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".py") paths.push_back(it->path());
  }
  std::sort(paths.begin(), paths.end());  // a fixed seed order keeps --seed runs reproducible
  for (const fs::path& p : paths) out->push_back(ReadFile(p));
}

// tests/script inside the runfiles (a data dep), or from the repository root under `bazel run`.
fs::path ScriptTestsDir() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) return fs::path(srcdir) / workspace / "tests/script";
  return "tests/script";
}

// ---- A light Python tokenization, only for mutation: every byte belongs to exactly one token, so
// joining the tokens gives the input back.

bool IsIdent(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::vector<std::string> Tokenize(absl::string_view s) {
  static const char* const kOps[] = {"**=", "//=", "...", "->", "**", "//", "==", "!=", "<=", ">=", "<<", ">>",
                                     "+=", "-=", "*=", "/=", "%=", "&=", "|=", ":="};
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i + 1;
    char c = s[i];
    if (c == ' ' || c == '\t') {
      while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
    } else if (c == '#') {
      while (j < s.size() && s[j] != '\n') ++j;
    } else if (c == '"' || c == '\'') {
      bool triple = s.substr(i, 3) == std::string(3, c);
      j = i + (triple ? 3 : 1);
      while (j < s.size()) {
        if (s[j] == '\\') {
          j += 2;
        } else if (triple ? s.substr(j, 3) == std::string(3, c) : s[j] == c || s[j] == '\n') {
          j += triple ? 3 : 1;
          break;
        } else {
          ++j;
        }
      }
      j = std::min(j, s.size());
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      while (j < s.size() && (IsIdent(s[j]) || s[j] == '.' ||
                              ((s[j] == '+' || s[j] == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E')))) {
        ++j;
      }
    } else if (IsIdent(c)) {
      while (j < s.size() && IsIdent(s[j])) ++j;
    } else {
      for (const char* op : kOps) {
        if (absl::StartsWith(s.substr(i), op)) {
          j = i + std::strlen(op);
          break;
        }
      }
    }
    out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

bool IsBlank(const std::string& t) { return t.empty() || t[0] == ' ' || t[0] == '\t'; }
bool IsName(const std::string& t) { return !t.empty() && IsIdent(t[0]) && !std::isdigit(static_cast<unsigned char>(t[0])); }
bool IsNumber(const std::string& t) { return !t.empty() && std::isdigit(static_cast<unsigned char>(t[0])); }

// Words of the TVMScript surface a soup can draw on besides the corpus's own tokens.
const char* const kVocabulary[] = {
    "@T.prim_func", "@T.prim_func(private=True)", "@T.prim_func(s_tir=True)", "@R.function", "@I.ir_module",
    "class", "def", "for", "in", "if", "else", "elif", "while", "with", "as", "return", "assert", "pass",
    "break", "continue", "lambda", "and", "or", "not", "is", "None", "True", "False", "T.Buffer", "T.handle",
    "T.int32", "T.int64", "T.float32", "T.float16", "T.bool", "T.uint8", "T.grid", "T.serial", "T.parallel",
    "T.unroll", "T.vectorized", "T.thread_binding", "T.sblock", "T.block", "T.axis.remap", "T.axis.spatial",
    "T.axis.reduce", "T.reads", "T.writes", "T.init", "T.where", "T.alloc_buffer", "T.sblock_alloc_buffer",
    "T.match_buffer", "T.decl_buffer", "T.let", "T.evaluate", "T.call_extern", "T.launch_thread",
    "T.env_thread", "T.func_attr", "T.meta_var", "T.Select", "T.if_then_else", "T.max", "T.min", "T.exp",
    "T.Cast", "T.ramp", "T.broadcast", "T.tvm_thread_allreduce", "T.ret", "T.attr", "T.allocate",
    "R.Tensor", "R.Tuple", "R.Shape", "R.Prim", "R.Object", "R.dataflow", "R.output", "R.call_tir",
    "R.call_tir_inplace", "R.call_packed", "R.add", "R.multiply", "R.matmul", "R.nn.relu", "R.nn.softmax",
    "R.emit", "R.const", "R.match_cast", "R.reshape", "R.permute_dims", "R.sum", "R.concat", "R.shape",
    "R.prim_value", "R.str", "R.func_attr", "I.GlobalVar", "out_ty=", "out_sinfo=", "dtype=", "axis=",
    "\"float32\"", "\"int8\"", "\"int64\"", "\"SSR\"", "\"global\"", "\"shared\"", "\"local\"", "\"blockIdx.x\"",
    "\"threadIdx.x\"", "0", "1", "2", "16", "128", "-1", "0.5", "1e-05", "0x7fffffff", "2147483648",
    "99999999999999999999", "1e400", "A", "B", "C", "i", "j", "k", "n", "m", "x", "y", "v", "vi", "lv0",
    "gv", "main", "self", "(", ")", "[", "]", "{", "}", ",", ":", ".", "=", "+", "-", "*", "/", "//", "%",
    "**", "<", ">", "<=", "==", "!=", "&", "|", "^", "~", "<<", ">>", "->", "...", "\n", "\n    ",
    "\n        ", "\n            ", "\\\n", "#", "'", "\"\"\"",
};
constexpr size_t kVocabularySize = sizeof(kVocabulary) / sizeof(kVocabulary[0]);

const char* const kInterestingNumbers[] = {"0", "1", "-1", "2", "255", "256", "65535", "2147483647", "2147483648",
                                           "-2147483649", "9223372036854775807", "9223372036854775808",
                                           "18446744073709551616", "1e308", "1e309", "0.0", "-0.0", "1e-320",
                                           "0x8000000000000000", "0b1", "0o7", "1_000", "4294967296"};

struct Corpus {
  std::vector<std::string> files;
  std::vector<std::vector<std::string>> tokens;  // per file
  std::vector<std::string> pool;                 // every non-blank token of every file
};

// The seeds and their tokens, read once (the function-local static is initialized thread-safely
// and never changes afterwards).
const Corpus& GetCorpus() {
  static const Corpus* corpus = [] {
    auto* c = new Corpus;
    absl::StatusOr<std::string> shared = kiln::testing::SharedDir();
    if (!shared.ok()) {
      std::fprintf(stderr, "script_parse_fuzz: %s\n", std::string(shared.status().message()).c_str());
      std::exit(1);
    }
    for (const char* area : {"tir", "relax", "invalid"}) AddPyFiles(fs::path(*shared) / "corpus" / area, &c->files);
    size_t shared_files = c->files.size();
    AddPyFiles(ScriptTestsDir(), &c->files);
    size_t own_files = c->files.size() - shared_files;
    if (shared_files == 0 || own_files == 0) {
      std::fprintf(stderr, "script_parse_fuzz: corpus not found (%zu shared files, %zu in tests/script)\n",
                   shared_files, own_files);
      std::exit(1);
    }
    std::printf("seeds: %zu shared corpus files, %zu tests/script files\n", shared_files, own_files);
    for (const std::string& f : c->files) {
      c->tokens.push_back(Tokenize(f));
      for (const std::string& t : c->tokens.back()) {
        if (!IsBlank(t) && t != "\n") c->pool.push_back(t);
      }
    }
    return c;
  }();
  return *corpus;
}

// Token soup: a line structure with random indentation, each line a few tokens from the corpus
// pool or the vocabulary, often behind a valid function header so the parser's statement
// handlers (not just the reader) see it.
std::string TokenSoup(std::mt19937_64& rng) {
  const Corpus& c = GetCorpus();
  auto pick = [&rng](size_t n) { return static_cast<size_t>(rng() % n); };
  static const char* const kHeaders[] = {"", "@T.prim_func\ndef f(A: T.Buffer((16,), \"float32\")):\n",
                                         "@R.function\ndef f(x: R.Tensor((4,), \"float32\")):\n",
                                         "@I.ir_module\nclass M:\n    @T.prim_func\n    def f():\n"};
  std::string s = kHeaders[pick(4)];
  int indent = s.empty() ? 0 : 1;
  for (size_t line = 1 + pick(12); line > 0; --line) {
    s += std::string(4 * indent, ' ');
    for (size_t n = 1 + pick(8); n > 0; --n) {
      s += pick(3) == 0 ? kVocabulary[pick(kVocabularySize)] : c.pool[pick(c.pool.size())];
      if (pick(2)) s += ' ';
    }
    if (pick(4) == 0) {
      s += ":";
      ++indent;
    } else if (indent > 1 && pick(4) == 0) {
      --indent;
    }
    s += '\n';
  }
  return s;
}

// Index of a random non-blank token, or tokens.size() when there is none.
size_t PickToken(const std::vector<std::string>& t, std::mt19937_64& rng) {
  for (int tries = 0; tries < 16 && !t.empty(); ++tries) {
    size_t i = rng() % t.size();
    if (!IsBlank(t[i])) return i;
  }
  return t.size();
}

std::string TokenMutate(absl::string_view input, std::mt19937_64& rng) {
  const Corpus& c = GetCorpus();
  auto pick = [&rng](size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); };
  if (pick(12) == 0) return TokenSoup(rng);
  std::vector<std::string> t = Tokenize(input);
  for (int edits = 1 + static_cast<int>(pick(3)); edits > 0; --edits) {
    size_t i = PickToken(t, rng);
    if (i == t.size()) {
      t.push_back(kVocabulary[pick(kVocabularySize)]);
      continue;
    }
    switch (pick(10)) {
      case 0:  // delete 1-3 tokens
        t.erase(t.begin() + i, t.begin() + std::min(t.size(), i + 1 + pick(3)));
        break;
      case 1: {  // duplicate a run of tokens
        size_t end = std::min(t.size(), i + 1 + pick(8));
        std::vector<std::string> run(t.begin() + i, t.begin() + end);
        t.insert(t.begin() + end, run.begin(), run.end());
        break;
      }
      case 2: {  // splice: replace a run with a run of another file
        const std::vector<std::string>& o = c.tokens[pick(c.tokens.size())];
        if (o.empty()) break;
        size_t from = pick(o.size());
        size_t len = 1 + pick(24);
        t.erase(t.begin() + i, t.begin() + std::min(t.size(), i + pick(24)));
        t.insert(t.begin() + i, o.begin() + from, o.begin() + std::min(o.size(), from + len));
        break;
      }
      case 3: {  // swap two tokens
        size_t j = PickToken(t, rng);
        if (j < t.size()) std::swap(t[i], t[j]);
        break;
      }
      case 4:  // replace or insert a vocabulary word
        if (pick(2)) {
          t[i] = kVocabulary[pick(kVocabularySize)];
        } else {
          t.insert(t.begin() + i, kVocabulary[pick(kVocabularySize)]);
        }
        break;
      case 5: {  // rename: one name becomes another name of the same file (scoping, shadowing)
        if (!IsName(t[i])) break;
        size_t j = PickToken(t, rng);
        if (j < t.size() && IsName(t[j])) t[i] = t[j];
        break;
      }
      case 6:  // an interesting number instead of a number
        if (IsNumber(t[i])) t[i] = kInterestingNumbers[pick(sizeof(kInterestingNumbers) / sizeof(kInterestingNumbers[0]))];
        break;
      case 7:  // truncate at a token boundary
        t.resize(i);
        break;
      case 8: {  // delete or duplicate the whole line holding token i
        size_t b = i, e = i;
        while (b > 0 && t[b - 1] != "\n") --b;
        while (e < t.size() && t[e] != "\n") ++e;
        e = std::min(t.size(), e + 1);
        if (pick(2)) {
          t.erase(t.begin() + b, t.begin() + e);
        } else {
          std::vector<std::string> line(t.begin() + b, t.begin() + e);
          t.insert(t.begin() + e, line.begin(), line.end());
        }
        break;
      }
      default: {  // a whole line of another file, inserted here
        const std::vector<std::string>& o = c.tokens[pick(c.tokens.size())];
        size_t from = pick(o.size());
        while (from > 0 && o[from - 1] != "\n") --from;
        size_t to = from;
        while (to < o.size() && o[to] != "\n") ++to;
        size_t b = i;
        while (b > 0 && t[b - 1] != "\n") --b;
        std::vector<std::string> line(o.begin() + from, o.begin() + std::min(o.size(), to + 1));
        t.insert(t.begin() + b, line.begin(), line.end());
        break;
      }
    }
  }
  std::string out;
  for (const std::string& s : t) out += s;
  return out;
}

// Round-trip failures that are known gaps, each with why it is tolerated: a failure whose reason
// contains a fragment listed here is counted and reported at exit; any other fails the run. Keep it
// empty unless a gap is filed and cannot be fixed at once.
struct KnownGap {
  const char* fragment;
  const char* why;
};
constexpr std::initializer_list<KnownGap> kKnownRoundTripGaps = {};

// Accepted inputs, and the round-trip failures tolerated by kKnownRoundTripGaps, grouped by reason
// with the shortest input for each; printed when the process exits.
class RoundTripStats {
 public:
  ~RoundTripStats() {
    std::printf("script_parse_fuzz: %ld inputs accepted, %ld of them did not round-trip (%zu kinds)\n", accepted_,
                failed_, by_reason_.size());
    int shown = 0;
    for (const auto& [reason, entry] : by_reason_) {
      if (++shown > 12) break;
      std::printf("  %ld x %s\n    shortest input (%zu bytes): %s\n", entry.count, reason.c_str(),
                  entry.example.size(), OneLine(entry.example).c_str());
    }
  }
  void Accepted() { ++accepted_; }
  void Failed(const std::string& why, absl::string_view source) {
    ++failed_;
    // Line:column and sizes differ between inputs failing for the same reason.
    std::string key;
    for (char c : why.substr(0, why.find('\n'))) {
      if (!std::isdigit(static_cast<unsigned char>(c))) key += c;
      else if (key.empty() || key.back() != '#') key += '#';
    }
    Entry& e = by_reason_[key];
    ++e.count;
    if (e.example.empty() || source.size() < e.example.size()) e.example = std::string(source);
  }

 private:
  static std::string OneLine(std::string s) {
    for (char& c : s) c = c == '\n' ? '|' : c;
    return s.size() > 400 ? s.substr(0, 400) + "..." : s;
  }
  struct Entry {
    long count = 0;
    std::string example;
  };
  long accepted_ = 0, failed_ = 0;
  std::map<std::string, Entry> by_reason_;
};

RoundTripStats& Stats() {
  static RoundTripStats stats;  // the libFuzzer entry point has no other place to keep it
  return stats;
}

// An accepted program must round-trip: a failure is fatal unless it is a known gap.
void RoundTripFailed(const std::string& why, absl::string_view source, const std::string& detail) {
  for (const KnownGap& gap : kKnownRoundTripGaps) {
    if (absl::StrContains(why, gap.fragment)) {
      Stats().Failed(why, source);
      return;
    }
  }
  Die(why, source, detail);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace script = kiln::script;
  absl::string_view source(reinterpret_cast<const char*>(data), size);
  script::ParseInfo info;
  absl::StatusOr<ObjectRef> first = script::ParseScript(source, kFileName, nullptr, script::ParseOptions(), &info);
  if (!first.ok()) {
    // A rejection must point at the input ("fuzz.py:LINE:COL: error: ..."), whatever the input.
    const std::string message(first.status().message());
    if (!absl::StartsWith(message, absl::StrCat(kFileName, ":")) || message.find(": error: ") == std::string::npos) {
      Die("rejected without a located error", source, message);
    }
    return 0;
  }
  Stats().Accepted();
  // Print as `kiln fmt` does: a lone function under its own name where that is a `def` name.
  script::printer::PrinterOptions po = script::PrintOptionsFor(*first);
  std::string text = script::printer::Print(*first, po);
  // The printer may add parentheses, so text accepted near the nesting limit can read deeper.
  script::ParseOptions slack;
  slack.max_depth += 8;
  // TVM prints no check_well_formed=False: the printed text is read back as the source was.
  if (info.well_formed_check_off) slack.check_well_formed = false;
  absl::StatusOr<ObjectRef> second = script::ParseScript(text, "printed.py", nullptr, slack);
  if (!second.ok()) {
    const std::string message(second.status().message());
    size_t at = message.find(": error: ");
    RoundTripFailed("the printed text does not parse: " + (at == std::string::npos ? message : message.substr(at + 9)),
                    source, text + "\n" + message);
    return 0;
  }
  std::string path;
  // As script::CheckRoundTrip compares: free variables pair one to one (a buffer no statement
  // declares is a new object on each parse).
  if (!kiln::ir::StructuralEqual(*first, *second, /*map_free_vars=*/true, &path)) {
    RoundTripFailed("the re-parsed IR differs at " + path, source, text);
    return 0;
  }
  std::string text2 = script::printer::Print(*second, po);
  if (text2 != text) RoundTripFailed("printing is not a fixed point", source, text + "\n--- printed again:\n" + text2);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  std::mt19937_64 rng(seed);
  std::string out = TokenMutate(absl::string_view(reinterpret_cast<const char*>(data), size), rng);
  size_t n = std::min(out.size(), max_size);
  std::memcpy(data, out.data(), n);
  return n;
}

std::vector<std::string> KilnFuzzSeeds() {
  std::vector<std::string> seeds = GetCorpus().files;
  // Inputs that once crashed (statement-like T.* calls outside a T.prim_func body wrote through an
  // empty builder frame stack): every run replays them.
  seeds.push_back("@I.ir_module\nclass M:\n    T.evaluate(1)\n    T.attr(1, \"k\", 1)\n");
  seeds.push_back("T.decl_buffer((4,))\n@R.function\ndef f(x: R.Tensor((4,), \"float32\")):\n    T.evaluate(1)\n"
                  "    T.launch_thread(\"threadIdx.x\", 4)\n    return x\n");
  // Shapes near int64's limit once overflowed (UBSan) in folded products: the default layout's
  // strides and multibox_transform_loc's 4 * N.
  seeds.push_back("@T.prim_func\ndef main(B: T.Buffer((8, 9223372036854775807), \"float32\", "
                  "layout=T.TileLayout(T.S[(8, 4) : (1, 8)]))):\n    T.evaluate(0)\n");
  seeds.push_back("@R.function\ndef main(c: R.Tensor((1, 3, 9223372036854775807), dtype=\"float32\"), "
                  "l: R.Tensor((1, 20), dtype=\"float32\"), a: R.Tensor((1, 5, 4), dtype=\"float32\")):\n"
                  "    y = R.vision.multibox_transform_loc(c, l, a)\n    return y\n");
  // A bool literal as a Relax shape dim once read back as int64 only after printing.
  seeds.push_back("@R.function\ndef main(x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((True,), dtype=\"float32\"):\n"
                  "    y = R.reshape(x, R.shape([4]))\n    return x\n");
  // Token soups are seeds too, so byte-level mutation also starts from them.
  std::mt19937_64 rng(7);
  for (int i = 0; i < 64; ++i) seeds.push_back(TokenSoup(rng));
  return seeds;
}
