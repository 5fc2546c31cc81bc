#include "compiler/tir/transform/interp_check.h"

#include <cstring>
#include <string>

#include "compiler/tir/interp/interp.h"
#include "gtest/gtest.h"
#include "runtime/kernel_abi.h"

namespace kiln::tir::transform::testing {
namespace {

using namespace ir;  // NOLINT

// One buffer argument: its bytes and the DLTensor over them.
struct Arg {
  std::vector<uint8_t> bytes;
  std::vector<int64_t> shape;
  DLTensor t{};
};

// Every parameter as the interpreter takes it; false (with a gtest failure) when a parameter is of
// a kind this check does not fill.
bool MakeArgs(const PrimFunc& f, int64_t scalar, std::vector<Arg>* bufs, std::vector<KilnAny>* args) {
  bufs->resize(f->params.size());
  uint32_t seed = 12345;
  for (size_t i = 0; i < f->params.size(); ++i) {
    const Var& p = f->params[i];
    KilnAny a{};
    Buffer b = f->buffer_map.Get(p);
    if (!b.defined()) {
      if (!p->dtype.is_int()) {
        ADD_FAILURE() << "parameter " << p->name << ": only integer scalars are filled";
        return false;
      }
      a.type_index = kKilnInt;
      a.v_int64 = scalar;
      args->push_back(a);
      continue;
    }
    const bool is_float = b->dtype == DataType::Float(32);
    if (!is_float && b->dtype != DataType::Int(32)) {
      ADD_FAILURE() << "buffer " << b->name << ": only float32 and int32 buffers are filled";
      return false;
    }
    Arg& arg = (*bufs)[i];
    int64_t n = 1;
    for (const PrimExpr& d : b->shape) {
      const auto* c = d.as<IntImmNode>();
      if (c == nullptr) {
        ADD_FAILURE() << "buffer " << b->name << ": only constant shapes are filled";
        return false;
      }
      arg.shape.push_back(c->value);
      n *= c->value;
    }
    arg.bytes.resize(static_cast<size_t>(n) * 4);
    for (int64_t k = 0; k < n; ++k) {
      seed = seed * 1103515245u + 12345u;
      int32_t small = static_cast<int32_t>((seed >> 16) % 17) - 8;  // -8..8: comparisons go both ways
      float f32 = static_cast<float>(small) * 0.25f;
      std::memcpy(arg.bytes.data() + 4 * k, is_float ? static_cast<const void*>(&f32) : &small, 4);
    }
    arg.t.data = arg.bytes.data();
    arg.t.device = {kDLCPU, 0};
    arg.t.ndim = static_cast<int32_t>(arg.shape.size());
    arg.t.dtype = {static_cast<uint8_t>(is_float ? kDLFloat : kDLInt), 32, 1};
    arg.t.shape = arg.shape.data();
    a.type_index = kKilnDLTensorPtr;
    a.v_ptr = &arg.t;
    args->push_back(a);
  }
  return true;
}

// Runs `f` on fresh arguments; returns the final bytes of every buffer parameter, in order, or the
// interpreter's error (InternalError when the arguments cannot be made).
absl::Status RunOnce(const PrimFunc& f, int64_t scalar, std::vector<std::vector<uint8_t>>* out) {
  std::vector<Arg> bufs;
  std::vector<KilnAny> args;
  if (!MakeArgs(f, scalar, &bufs, &args)) return absl::InternalError("unsupported parameters");
  IRModule m = IRModule::Make();
  m.Add(GlobalVar("f"), f);
  KilnAny result{};
  InterpOptions options;
  options.max_steps = 10'000'000;
  absl::Status st = Interpret(m, "f", args.data(), static_cast<int32_t>(args.size()), &result, options);
  if (!st.ok()) return st;
  for (const Arg& a : bufs) out->push_back(a.bytes);
  return absl::OkStatus();
}

bool Run(const PrimFunc& f, int64_t scalar, std::vector<std::vector<uint8_t>>* out) {
  absl::Status st = RunOnce(f, scalar, out);
  if (!st.ok()) ADD_FAILURE() << "the interpreter failed with scalars = " << scalar << ": " << st;
  return st.ok();
}

}  // namespace

void ExpectSameBehaviour(const PrimFunc& before, const PrimFunc& after, const std::vector<int64_t>& scalar_values) {
  ASSERT_EQ(before->params.size(), after->params.size());
  for (int64_t v : scalar_values) {
    std::vector<std::vector<uint8_t>> want, got;
    if (!Run(before, v, &want) || !Run(after, v, &got)) return;
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_TRUE(want[i] == got[i]) << "parameter " << before->params[i]->name << " differs after the pass with scalars = " << v;
    }
  }
}

void ExpectSameFailure(const PrimFunc& before, const PrimFunc& after, int64_t scalar) {
  std::vector<std::vector<uint8_t>> unused;
  absl::Status want = RunOnce(before, scalar, &unused);
  absl::Status got = RunOnce(after, scalar, &unused);
  ASSERT_FALSE(want.ok()) << "the program before the pass ran without error with scalars = " << scalar;
  EXPECT_EQ(got.message(), want.message()) << "with scalars = " << scalar;
}

}  // namespace kiln::tir::transform::testing
