#include "runtime/npy.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "runtime/read_file.h"

namespace kiln::runtime {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
// numpy pads the header so the data starts at a multiple of 64 bytes (ARRAY_ALIGN).
constexpr size_t kHeaderAlign = 64;
// numpy's own limit (NPY_MAXDIMS is 32 in numpy 1.x and 64 in 2.x); reading and writing agree on it.
constexpr int kMaxDims = 64;

constexpr bool kHostLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

absl::Status Malformed(absl::string_view what) { return absl::InvalidArgumentError(absl::StrCat("malformed .npy: ", what)); }

// The header is a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// This reads exactly that grammar: string keys; values that are strings, True/False, or tuples
// of non-negative integers. Anything else (a structured descr is a list) is an error.
class HeaderParser {
 public:
  explicit HeaderParser(absl::string_view s) : s_(s) {}

  struct Header {
    std::string descr;
    bool fortran_order = false;
    std::vector<int64_t> shape;
    bool has_descr = false, has_order = false, has_shape = false;
  };

  absl::StatusOr<Header> Parse() {
    Header h;
    if (!Eat('{')) return Malformed("header is not a dict");
    while (true) {
      SkipSpace();
      if (Eat('}')) break;
      absl::StatusOr<std::string> key = String();
      if (!key.ok()) return key.status();
      if (!Eat(':')) return Malformed(absl::StrCat("expected ':' after '", *key, "'"));
      SkipSpace();
      if (*key == "descr") {
        if (Peek() == '[') return absl::InvalidArgumentError(".npy structured dtypes are not supported");
        absl::StatusOr<std::string> v = String();
        if (!v.ok()) return v.status();
        h.descr = *v, h.has_descr = true;
      } else if (*key == "fortran_order") {
        if (Keyword("True")) {
          h.fortran_order = true;
        } else if (!Keyword("False")) {
          return Malformed("fortran_order is not True or False");
        }
        h.has_order = true;
      } else if (*key == "shape") {
        absl::Status st = Shape(&h.shape);
        if (!st.ok()) return st;
        h.has_shape = true;
      } else {
        return Malformed(absl::StrCat("unexpected key '", *key, "' in header"));
      }
      SkipSpace();
      if (Eat('}')) break;
      if (!Eat(',')) return Malformed("expected ',' or '}' in header");
    }
    SkipSpace();
    if (pos_ != s_.size()) return Malformed("trailing characters after the header dict");
    if (!h.has_descr || !h.has_order || !h.has_shape) {
      return Malformed("header lacks one of 'descr', 'fortran_order', 'shape'");
    }
    return h;
  }

 private:
  char Peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void SkipSpace() {
    while (pos_ < s_.size() && absl::ascii_isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    SkipSpace();
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  bool Keyword(absl::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  absl::StatusOr<std::string> String() {
    SkipSpace();
    char q = Peek();
    if (q != '\'' && q != '"') return Malformed("expected a quoted string in header");
    size_t end = s_.find(q, pos_ + 1);
    if (end == absl::string_view::npos) return Malformed("unterminated string in header");
    std::string v(s_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return v;
  }
  absl::Status Shape(std::vector<int64_t>* shape) {
    if (!Eat('(')) return Malformed("shape is not a tuple");
    while (true) {
      if (Eat(')')) return absl::OkStatus();
      SkipSpace();
      if (!absl::ascii_isdigit(static_cast<unsigned char>(Peek()))) return Malformed("shape holds a non-integer");
      int64_t v = 0;
      while (absl::ascii_isdigit(static_cast<unsigned char>(Peek()))) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, Peek() - '0', &v)) {
          return Malformed("shape dimension overflows int64");
        }
        ++pos_;
      }
      if (Peek() == 'L') ++pos_;  // Python 2 longs, as very old numpy wrote them
      shape->push_back(v);
      if (shape->size() > kMaxDims) return Malformed(absl::StrCat("more than ", kMaxDims, " dimensions"));
      if (Eat(')')) return absl::OkStatus();
      if (!Eat(',')) return Malformed("expected ',' or ')' in shape");
    }
  }

  absl::string_view s_;
  size_t pos_ = 0;
};

struct Descr {
  DLDataType dtype;
  bool swap;  // the file's byte order differs from the host's
};

absl::StatusOr<Descr> ParseDescr(const std::string& descr) {
  if (descr.size() < 3) return absl::InvalidArgumentError(absl::StrCat("unsupported .npy dtype '", descr, "'"));
  char order = descr[0], kind = descr[1];
  int size = 0;
  for (size_t i = 2; i < descr.size(); ++i) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(descr[i])) || size > 1000) {
      return absl::InvalidArgumentError(absl::StrCat("unsupported .npy dtype '", descr, "'"));
    }
    size = size * 10 + (descr[i] - '0');
  }
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    return absl::InvalidArgumentError(absl::StrCat("unsupported .npy dtype '", descr, "' (bad byte order)"));
  }
  DLDataType t{0, static_cast<uint8_t>(size * 8), 1};
  bool ok = false;
  switch (kind) {
    case 'b': t = DLDataType{kDLBoolCode, 8, 1}, ok = size == 1; break;
    case 'i': t.code = kDLInt, ok = size == 1 || size == 2 || size == 4 || size == 8; break;
    case 'u': t.code = kDLUInt, ok = size == 1 || size == 2 || size == 4 || size == 8; break;
    case 'f': t.code = kDLFloat, ok = size == 2 || size == 4 || size == 8; break;
    default: break;
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unsupported .npy dtype '", descr,
        "' (kiln reads bool, int8..int64, uint8..uint64, float16, float32 and float64)"));
  }
  bool little = order == '<' || (order == '=' && kHostLittleEndian);
  bool swap = size > 1 && order != '|' && little != kHostLittleEndian;
  return Descr{t, swap};
}

void ByteSwap(char* data, int64_t count, int elem) {
  for (int64_t i = 0; i < count; ++i, data += elem) {
    for (int a = 0, b = elem - 1; a < b; ++a, --b) std::swap(data[a], data[b]);
  }
}

uint32_t ReadLE(const unsigned char* p, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// numpy's descr string for a dtype in host byte order.
absl::StatusOr<std::string> DescrOf(DLDataType t) {
  const char* order = kHostLittleEndian ? "<" : ">";
  if (t.lanes != 1) return absl::InvalidArgumentError(absl::StrCat(".npy cannot hold vector dtype ", DTypeString(t)));
  if (t.code == kDLBoolCode && t.bits == 8) return std::string("|b1");
  int bytes = t.bits / 8;
  bool pow2 = t.bits % 8 == 0 && (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8);
  if ((t.code == kDLInt || t.code == kDLUInt) && pow2) {
    return absl::StrCat(bytes == 1 ? "|" : order, t.code == kDLInt ? "i" : "u", bytes);
  }
  if (t.code == kDLFloat && pow2 && bytes >= 2) return absl::StrCat(order, "f", bytes);
  return absl::InvalidArgumentError(absl::StrCat(".npy cannot hold dtype ", DTypeString(t)));
}

}  // namespace

absl::StatusOr<Tensor> ParseNpy(absl::string_view bytes) {
  if (bytes.size() < kMagicLen + 2 || std::memcmp(bytes.data(), kMagic, kMagicLen) != 0) {
    return Malformed("missing the \\x93NUMPY magic");
  }
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  int major = u[kMagicLen], minor = u[kMagicLen + 1];
  if (major < 1 || major > 3 || minor != 0) {
    return absl::InvalidArgumentError(absl::StrCat("unsupported .npy format version ", major, ".", minor));
  }
  size_t len_bytes = major == 1 ? 2 : 4;
  size_t prefix = kMagicLen + 2 + len_bytes;
  if (bytes.size() < prefix) return Malformed("truncated before the header length");
  size_t header_len = ReadLE(u + kMagicLen + 2, static_cast<int>(len_bytes));
  if (bytes.size() - prefix < header_len) {
    return Malformed(absl::StrCat("truncated header (", header_len, " bytes announced, ", bytes.size() - prefix,
                                  " present)"));
  }
  // Versions 1 and 2 are latin-1, version 3 UTF-8; the grammar we accept is ASCII in both.
  absl::StatusOr<HeaderParser::Header> h = HeaderParser(bytes.substr(prefix, header_len)).Parse();
  if (!h.ok()) return h.status();
  absl::StatusOr<Descr> descr = ParseDescr(h->descr);
  if (!descr.ok()) return descr.status();
  const int64_t elem = DTypeBytes(descr->dtype);
  int64_t numel = 1, nbytes = 0;
  for (int64_t d : h->shape) {
    if (__builtin_mul_overflow(numel, d, &numel)) return Malformed("shape overflows");
  }
  if (__builtin_mul_overflow(numel, elem, &nbytes)) return Malformed("shape overflows");
  absl::string_view payload = bytes.substr(prefix + header_len);
  if (static_cast<uint64_t>(nbytes) > payload.size()) {
    return Malformed(absl::StrCat("truncated data (shape needs ", nbytes, " bytes, ", payload.size(), " present)"));
  }
  if (static_cast<uint64_t>(nbytes) < payload.size()) {
    return Malformed(absl::StrCat(payload.size() - nbytes, " bytes after the array data"));
  }

  // Fortran order is C order of the reversed shape; read it so, then transpose through a view.
  std::vector<int64_t> stored_shape = h->shape;
  if (h->fortran_order) stored_shape.assign(h->shape.rbegin(), h->shape.rend());
  absl::StatusOr<Tensor> t = Tensor::Empty(stored_shape, descr->dtype);
  if (!t.ok()) return t.status();
  char* data = static_cast<char*>(t->data());
  if (nbytes > 0) std::memcpy(data, payload.data(), static_cast<size_t>(nbytes));
  if (descr->swap) ByteSwap(data, numel, static_cast<int>(elem));
  if (descr->dtype.code == kDLBoolCode) {
    for (int64_t i = 0; i < numel; ++i) data[i] = data[i] != 0;
  }
  if (!h->fortran_order || h->shape.size() < 2) return t;
  std::vector<int64_t> strides(t->strides().rbegin(), t->strides().rend());
  absl::StatusOr<Tensor> transposed = t->View(h->shape, strides);
  if (!transposed.ok()) return transposed.status();
  return transposed->Contiguous();
}

absl::StatusOr<Tensor> ReadNpy(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadRegularFile(path);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<Tensor> t = ParseNpy(*bytes);
  if (!t.ok()) return absl::Status(t.status().code(), absl::StrCat(path, ": ", t.status().message()));
  return t;
}

absl::StatusOr<std::string> SerializeNpy(const Tensor& tensor) {
  if (!tensor.defined()) return absl::InvalidArgumentError("cannot write an undefined tensor");
  if (tensor.device().device_type != kDLCPU) return absl::InvalidArgumentError(".npy writes need a CPU tensor");
  absl::StatusOr<std::string> descr = DescrOf(tensor.dtype());
  if (!descr.ok()) return descr.status();
  if (tensor.ndim() > kMaxDims) {
    return absl::InvalidArgumentError(absl::StrCat(".npy files hold at most ", kMaxDims, " dimensions, not ", tensor.ndim()));
  }
  absl::StatusOr<Tensor> c = tensor.Contiguous();
  if (!c.ok()) return c.status();
  std::string shape = "(";
  for (size_t i = 0; i < c->shape().size(); ++i) absl::StrAppend(&shape, i ? ", " : "", c->shape()[i]);
  absl::StrAppend(&shape, c->shape().size() == 1 ? ",)" : ")");
  std::string dict = absl::StrCat("{'descr': '", *descr, "', 'fortran_order': False, 'shape': ", shape, ", }");
  // Pad with spaces and end with '\n' so that the data starts aligned, as numpy does. With at most
  // kMaxDims dims the header stays far below version 1.0's 64 KiB limit.
  const size_t prefix = kMagicLen + 2 + 2;
  size_t total = (prefix + dict.size() + 1 + kHeaderAlign - 1) / kHeaderAlign * kHeaderAlign;
  size_t header_len = total - prefix;
  dict.append(header_len - dict.size() - 1, ' ');
  dict.push_back('\n');
  std::string out(kMagic, kMagicLen);
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<char>(header_len & 0xff));
  out.push_back(static_cast<char>(header_len >> 8));
  out += dict;
  out.append(static_cast<const char*>(c->data()), static_cast<size_t>(c->nbytes()));
  return out;
}

absl::Status WriteNpy(const std::string& path, const Tensor& tensor) {
  absl::StatusOr<std::string> bytes = SerializeNpy(tensor);
  if (!bytes.ok()) return bytes.status();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace kiln::runtime
