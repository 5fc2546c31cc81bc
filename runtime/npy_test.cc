// .npy reading and writing against numpy itself: /usr/bin/python3 writes fixtures (every dtype,
// both byte orders, Fortran order, 0-d, empty, format versions 1.0/2.0/3.0) together with the raw
// C-order little-endian bytes numpy says they hold, and reads back what kiln writes. Malformed and
// truncated inputs must give errors (every prefix of a valid file, byte flips, hand-made headers).
#include "runtime/npy.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace kiln::runtime {
namespace {

std::string TempDir() {
  const char* d = std::getenv("TEST_TMPDIR");
  return d != nullptr ? d : "/tmp";
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void Spit(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  out << data;
}

// Runs a Python script with numpy; returns its exit status (0 = success).
int RunPython(const std::string& script, const std::string& arg) {
  std::string path = TempDir() + "/npy_test_script.py";
  Spit(path, script);
  std::string cmd = "/usr/bin/python3 " + path + " " + arg;
  return std::system(cmd.c_str());
}

// Writes NAME.npy, NAME.raw (the values' bytes, C order, little-endian) and a manifest line
// "NAME DTYPE DIM,DIM,..." ("-" for a 0-d array) for each fixture.
constexpr char kMakeFixtures[] = R"PY(
import sys, os
import numpy as np
out = sys.argv[1]
rng = np.random.default_rng(0)
cases = []
for dt in ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64"]:
    if dt == "bool":
        a = rng.integers(0, 2, (3, 4)).astype(bool)
    elif dt.startswith("float"):
        a = rng.standard_normal((3, 4)).astype(dt)
    else:
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, (3, 4), dtype=dt, endpoint=True)
    cases.append((dt + "_le", a, (1, 0)))
    cases.append((dt + "_be", a.astype(a.dtype.newbyteorder(">")), (1, 0)))
    cases.append((dt + "_fortran", np.asfortranarray(rng.standard_normal((2, 3, 5)) * 50).astype(dt), (1, 0)))
cases.append(("scalar_i64", np.array(17, np.int64), (1, 0)))
cases.append(("scalar_f32", np.array(2.5, np.float32), (1, 0)))
cases.append(("empty", np.zeros((0, 3), np.float32), (1, 0)))
cases.append(("vector", np.arange(7, dtype=np.int32), (1, 0)))
cases.append(("v2", np.arange(12, dtype=np.float64).reshape(3, 4), (2, 0)))
cases.append(("v3", np.arange(12, dtype=np.int16).reshape(2, 6), (3, 0)))
cases.append(("fortran_be", np.asfortranarray(np.arange(24, dtype=">f4").reshape(2, 3, 4)), (1, 0)))
with open(os.path.join(out, "manifest.txt"), "w") as m:
    for name, a, ver in cases:
        with open(os.path.join(out, name + ".npy"), "wb") as f:
            np.lib.format.write_array(f, a, version=ver)
        c = np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<"))
        with open(os.path.join(out, name + ".raw"), "wb") as f:
            f.write(c.tobytes(order="C"))
        dt = "bool" if a.dtype == bool else a.dtype.name
        m.write("%s %s %s\n" % (name, dt, ",".join(str(d) for d in a.shape) or "-"))
)PY";

TEST(NpyTest, ReadsWhatNumpyWrites) {
  std::string dir = TempDir() + "/npy_fixtures";
  std::system(("mkdir -p " + dir).c_str());
  ASSERT_EQ(RunPython(kMakeFixtures, dir), 0) << "python3 with numpy is needed to make the fixtures";
  std::ifstream manifest(dir + "/manifest.txt");
  std::string name, dtype, shape;
  int count = 0;
  while (manifest >> name >> dtype >> shape) {
    SCOPED_TRACE(name);
    absl::StatusOr<Tensor> t = ReadNpy(dir + "/" + name + ".npy");
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(DTypeString(t->dtype()), dtype);
    std::string dims;
    for (size_t i = 0; i < t->shape().size(); ++i) dims += (i ? "," : "") + std::to_string(t->shape()[i]);
    EXPECT_EQ(dims.empty() ? "-" : dims, shape);
    EXPECT_TRUE(t->IsCompact());
    std::string raw = Slurp(dir + "/" + name + ".raw");
    ASSERT_EQ(static_cast<size_t>(t->nbytes()), raw.size());
    EXPECT_EQ(std::memcmp(t->data(), raw.data(), raw.size()), 0);
    ++count;
  }
  EXPECT_EQ(count, 12 * 3 + 7);
}

// Tensors kiln writes hold value i at flat index i; numpy must read them back as such.
constexpr char kCheckWritten[] = R"PY(
import sys, os
import numpy as np
d = sys.argv[1]
expect = {
    "f32_2x3": ("float32", (2, 3)), "i8_5": ("int8", (5,)), "u64_2x2": ("uint64", (2, 2)),
    "f16_4": ("float16", (4,)), "bool_3": ("bool", (3,)), "i64_scalar": ("int64", ()),
    "f64_empty": ("float64", (2, 0)), "i32_strided": ("int32", (3, 2)),
}
bad = 0
for name, (dt, shape) in expect.items():
    a = np.load(os.path.join(d, name + ".npy"))
    want = (np.arange(int(np.prod(shape))) % 2).astype(dt) if dt == "bool" else np.arange(int(np.prod(shape))).astype(dt)
    want = want.reshape(shape)
    if name == "i32_strided":
        want = np.arange(6, dtype=np.int32).reshape(2, 3).T
    if a.dtype != want.dtype or a.shape != want.shape or not np.array_equal(a, want):
        print("MISMATCH", name, a.dtype, a.shape, a)
        bad += 1
sys.exit(1 if bad else 0)
)PY";

Tensor Iota(const std::vector<int64_t>& shape, const char* dtype) {
  Tensor t = *Tensor::Empty(shape, *ParseDType(dtype));
  char* p = static_cast<char*>(t.data());
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (t.dtype().code) {
      case kDLFloat:
        if (t.dtype().bits == 16) {
          // Small integers in binary16: exponent 15 + e, mantissa from the value.
          uint16_t h = 0;
          if (i != 0) {
            int e = 63 - __builtin_clzll(static_cast<uint64_t>(i));
            h = static_cast<uint16_t>(((15 + e) << 10) | ((i << (10 - e)) & 0x3ff));
          }
          std::memcpy(p + i * 2, &h, 2);
        } else if (t.dtype().bits == 32) {
          float f = static_cast<float>(i);
          std::memcpy(p + i * 4, &f, 4);
        } else {
          double f = static_cast<double>(i);
          std::memcpy(p + i * 8, &f, 8);
        }
        break;
      case kDLBoolCode: p[i] = static_cast<char>(i % 2); break;
      default: {
        uint64_t v = static_cast<uint64_t>(i);
        std::memcpy(p + i * DTypeBytes(t.dtype()), &v, DTypeBytes(t.dtype()));  // little-endian host
      }
    }
  }
  return t;
}

TEST(NpyTest, NumpyReadsWhatKilnWrites) {
  std::string dir = TempDir() + "/npy_written";
  std::system(("mkdir -p " + dir).c_str());
  ASSERT_TRUE(WriteNpy(dir + "/f32_2x3.npy", Iota({2, 3}, "float32")).ok());
  ASSERT_TRUE(WriteNpy(dir + "/i8_5.npy", Iota({5}, "int8")).ok());
  ASSERT_TRUE(WriteNpy(dir + "/u64_2x2.npy", Iota({2, 2}, "uint64")).ok());
  ASSERT_TRUE(WriteNpy(dir + "/f16_4.npy", Iota({4}, "float16")).ok());
  ASSERT_TRUE(WriteNpy(dir + "/bool_3.npy", Iota({3}, "bool")).ok());
  ASSERT_TRUE(WriteNpy(dir + "/i64_scalar.npy", Iota({}, "int64")).ok());
  ASSERT_TRUE(WriteNpy(dir + "/f64_empty.npy", Iota({2, 0}, "float64")).ok());
  // A transposed view is written in logical order.
  Tensor t = Iota({2, 3}, "int32");
  ASSERT_TRUE(WriteNpy(dir + "/i32_strided.npy", *t.View({3, 2}, {1, 3})).ok());
  EXPECT_EQ(RunPython(kCheckWritten, dir), 0);
}

TEST(NpyTest, HeaderIsAlignedAndRoundTrips) {
  Tensor t = Iota({3, 5}, "float64");
  std::string bytes = *SerializeNpy(t);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  size_t header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u);
  EXPECT_EQ(bytes[10 + header_len - 1], '\n');
  EXPECT_EQ(bytes.size(), 10 + header_len + 15 * 8);
  absl::StatusOr<Tensor> back = ParseNpy(bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape(), t.shape());
  EXPECT_EQ(std::memcmp(back->data(), t.data(), 120), 0);
  // 64 dims (numpy 2's limit) fit a version 1.0 header; more are refused.
  absl::StatusOr<Tensor> wide = ParseNpy(*SerializeNpy(*Tensor::Empty(std::vector<int64_t>(64, 1), *ParseDType("int8"))));
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_EQ(wide->ndim(), 64);
  EXPECT_FALSE(SerializeNpy(*Tensor::Empty(std::vector<int64_t>(65, 1), *ParseDType("int8"))).ok());
  EXPECT_FALSE(SerializeNpy(*Tensor::Empty({2}, *ParseDType("bfloat16"))).ok());
  EXPECT_FALSE(SerializeNpy(*Tensor::Empty({2}, *ParseDType("float32x4"))).ok());
  EXPECT_FALSE(SerializeNpy(Tensor()).ok());
}

std::string WithHeader(const std::string& dict, const std::string& payload, int major = 1) {
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  uint32_t n = static_cast<uint32_t>(dict.size());
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  return out + dict + payload;
}

TEST(NpyTest, MalformedInputsAreErrors) {
  const std::string four_floats(16, '\0');
  struct Case {
    std::string bytes, message;
  };
  std::vector<Case> cases = {
      {"", "magic"},
      {"\x93NUMPZ\x01\x00", "magic"},
      {std::string("\x93NUMPY\x04\x00\x00\x00", 10), "version 4.0"},
      {std::string("\x93NUMPY\x01\x00\xff\x00{", 11), "truncated header"},
      {WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }\n", four_floats.substr(0, 15)), "truncated data"},
      {WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }\n", four_floats + "x"), "after the array data"},
      {WithHeader("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }", four_floats), "structured"},
      {WithHeader("{'descr': '<U4', 'fortran_order': False, 'shape': (1,), }", four_floats), "'<U4'"},
      {WithHeader("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", four_floats), "'<c8'"},
      {WithHeader("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", four_floats), "'|O'"},
      {WithHeader("{'descr': '<f3', 'fortran_order': False, 'shape': (2,), }", four_floats), "'<f3'"},
      {WithHeader("{'descr': '!f4', 'fortran_order': False, 'shape': (4,), }", four_floats), "byte order"},
      {WithHeader("{'descr': '<f4', 'fortran_order': 0, 'shape': (4,), }", four_floats), "fortran_order"},
      {WithHeader("{'descr': '<f4', 'shape': (4,), }", four_floats), "lacks"},
      {WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }", four_floats), "non-integer"},
      {WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': 4, }", four_floats), "not a tuple"},
      {WithHeader("['descr']", four_floats), "not a dict"},
      {WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'x': 1}", four_floats), "unexpected key"},
      {WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (4,)} x", four_floats), "trailing"},
      {WithHeader("{'descr': '<f4, 'fortran_order': False, 'shape': (4,)}", four_floats), ""},
      {WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", ""), "overflows"},
      {WithHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", ""), "overflows"},
      {WithHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }", ""), "truncated data"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Tensor> t = ParseNpy(c.bytes);
    ASSERT_FALSE(t.ok()) << "accepted: " << c.bytes;
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(t.status().message()).find(c.message), std::string::npos) << t.status();
  }
  // Version 2.0 headers (4-byte length) parse too.
  absl::StatusOr<Tensor> v2 = ParseNpy(WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", four_floats, 2));
  ASSERT_TRUE(v2.ok()) << v2.status();
  EXPECT_EQ(v2->numel(), 4);
  EXPECT_EQ(ReadNpy(TempDir() + "/does_not_exist.npy").status().code(), absl::StatusCode::kNotFound);
}

TEST(NpyTest, EveryPrefixAndByteFlipFailsCleanly) {
  std::string good = *SerializeNpy(Iota({3, 4}, "int32"));
  for (size_t n = 0; n < good.size(); ++n) {
    ASSERT_FALSE(ParseNpy(good.substr(0, n)).ok()) << "prefix of " << n << " bytes accepted";
  }
  std::mt19937 rng(1);
  for (int i = 0; i < 3000; ++i) {
    std::string bad = good;
    bad[rng() % 128] = static_cast<char>(rng());  // header region
    absl::StatusOr<Tensor> t = ParseNpy(bad);    // must not crash; may succeed (e.g. a space flipped)
    if (t.ok()) {
      EXPECT_LE(t->nbytes(), static_cast<int64_t>(bad.size()));
    }
  }
}

TEST(NpyTest, BoolsAreNormalized) {
  std::string payload = std::string("\x00\x02\xff\x01", 4);
  absl::StatusOr<Tensor> t = ParseNpy(WithHeader("{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }", payload));
  ASSERT_TRUE(t.ok()) << t.status();
  const auto* p = static_cast<const unsigned char*>(t->data());
  EXPECT_EQ(p[0], 0);
  EXPECT_EQ(p[1], 1);
  EXPECT_EQ(p[2], 1);
  EXPECT_EQ(p[3], 1);
}

// An endless device or a directory given as an input is refused by name, never read until memory
// runs out.
TEST(NpyTest, NonRegularInputsAreRefused) {
  EXPECT_EQ(ReadNpy("/dev/zero").status().message(), "/dev/zero is not a regular file");
  EXPECT_EQ(ReadNpy(TempDir()).status().message(), TempDir() + " is a directory");
}

}  // namespace
}  // namespace kiln::runtime
