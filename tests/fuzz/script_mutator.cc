// Token-level mutation of TVMScript programs (see script_mutator.h).
#include "tests/fuzz/script_mutator.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "absl/strings/match.h"

namespace kiln::fuzz {
namespace {

bool IsIdent(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

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

namespace {

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

}  // namespace

MutationCorpus::MutationCorpus(std::vector<std::string> seed_files) : files(std::move(seed_files)) {
  for (const std::string& f : files) {
    tokens.push_back(Tokenize(f));
    for (const std::string& t : tokens.back()) {
      if (!IsBlank(t) && t != "\n") pool.push_back(t);
    }
  }
}

std::string TokenSoup(const MutationCorpus& c, std::mt19937_64& rng) {
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

namespace {

// Index of a random non-blank token, or tokens.size() when there is none.
size_t PickToken(const std::vector<std::string>& t, std::mt19937_64& rng) {
  for (int tries = 0; tries < 16 && !t.empty(); ++tries) {
    size_t i = rng() % t.size();
    if (!IsBlank(t[i])) return i;
  }
  return t.size();
}

}  // namespace

std::string TokenMutate(const MutationCorpus& c, absl::string_view input, std::mt19937_64& rng) {
  auto pick = [&rng](size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); };
  if (pick(12) == 0) return TokenSoup(c, rng);
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

}  // namespace kiln::fuzz
