#include "compiler/tir/op/op.h"

#include <set>

#include "gtest/gtest.h"

namespace kiln::tir {
namespace {

TEST(IntrinsicRegistryTest, RequiredOpsArePresent) {
  const auto& reg = IntrinsicRegistry::Global();
  for (const char* name :
       {"exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos",
        "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "atan2",
        "sigmoid", "erf", "pow", "fabs", "floor", "ceil", "round", "nearbyint", "trunc", "fmod", "hypot",
        "copysign", "nextafter", "ldexp", "isnan", "isinf", "isfinite", "popcount", "clz", "bitwise_and",
        "bitwise_or", "bitwise_xor", "bitwise_not", "shift_left", "shift_right", "if_then_else",
        "likely", "assume", "ret", "reinterpret", "tvm_thread_allreduce", "tvm_storage_sync",
        "tvm_warp_shuffle", "tvm_warp_shuffle_up", "tvm_warp_shuffle_down", "tvm_warp_activemask",
        "call_extern", "call_pure_extern", "call_packed", "call_cpacked", "call_llvm_intrin",
        "call_llvm_pure_intrin", "tvm_call_packed_lowered", "tvm_struct_get", "tvm_struct_set",
        "tvm_stack_alloca", "tvm_stack_make_shape", "tvm_stack_make_array", "address_of",
        "handle_add_byte_offset", "isnullptr", "lookup_param", "tvm_access_ptr", "type_annotation",
        "ptx_commit_group", "ptx_wait_group", "ptx_cp_async", "vectorlow", "vectorhigh",
        "vectorcombine", "start_profile_intrinsic", "end_profile_intrinsic", "q_multiply_shift"}) {
    EXPECT_NE(reg.FindByScriptName(name), nullptr) << name;
  }
  // Parser-level names are not calls.
  for (const char* name : {"max", "min", "floordiv", "floormod", "truncdiv", "truncmod", "Select",
                           "Cast", "Let", "call_intrin", "fast_erf"}) {
    EXPECT_EQ(reg.FindByScriptName(name), nullptr) << name;
  }
}

TEST(IntrinsicRegistryTest, NamesAreUniqueAndPrefixed) {
  std::set<std::string> names, scripts;
  for (const IntrinsicInfo& info : IntrinsicRegistry::Global().all()) {
    EXPECT_EQ(info.name.rfind("tirx.", 0), 0u) << info.name;
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_TRUE(scripts.insert(info.script_name).second) << info.script_name;
    EXPECT_EQ(IntrinsicRegistry::Global().FindByName(info.name), &info);
    EXPECT_TRUE(info.max_args < 0 || info.max_args >= info.min_args) << info.name;
  }
}

TEST(IntrinsicRegistryTest, PackedCallsUseTvmIrNames) {
  const auto& reg = IntrinsicRegistry::Global();
  const IntrinsicInfo* packed = reg.FindByScriptName("call_packed");
  ASSERT_NE(packed, nullptr);
  EXPECT_EQ(packed->name, "tirx.tvm_call_packed");
  EXPECT_EQ(reg.FindByScriptName("tvm_call_packed"), packed);
  EXPECT_EQ(reg.FindByName("tirx.tvm_call_packed_lowered")->script_name, "call_packed_lowered");
  EXPECT_EQ(packed->dtype_rule, IntrinsicInfo::DTypeRule::kInt32);
  EXPECT_EQ(packed->max_args, -1);
}

TEST(IntrinsicRegistryTest, Metadata) {
  const auto& reg = IntrinsicRegistry::Global();
  const IntrinsicInfo* ite = reg.FindByName("tirx.if_then_else");
  ASSERT_NE(ite, nullptr);
  EXPECT_EQ(ite->min_args, 3);
  EXPECT_EQ(ite->max_args, 3);
  EXPECT_EQ(ite->dtype_rule, IntrinsicInfo::DTypeRule::kSecondArg);
  EXPECT_TRUE(reg.FindByName("tirx.exp")->float_only);
  EXPECT_FALSE(reg.FindByName("tirx.bitwise_and")->float_only);
  EXPECT_TRUE(reg.FindByName("tirx.bitwise_and")->int_only);
  EXPECT_EQ(reg.FindByName("tirx.call_extern")->dtype_rule, IntrinsicInfo::DTypeRule::kExplicit);
  EXPECT_EQ(reg.FindByName("tirx.call_extern")->effect, CallEffect::kOpaque);
  EXPECT_EQ(reg.FindByName("tirx.call_pure_extern")->effect, CallEffect::kPure);
  EXPECT_EQ(reg.FindByName("tirx.ret")->effect, CallEffect::kControlJump);
  EXPECT_EQ(reg.FindByName("tirx.isnan")->dtype_rule, IntrinsicInfo::DTypeRule::kBoolLanesOfFirstArg);
  EXPECT_EQ(reg.FindByName("tirx.nosuchop"), nullptr);
}

TEST(IntrinsicRegistryTest, CudaAndMetalNamespaces) {
  const auto& reg = IntrinsicRegistry::Global();
  // A warp shuffle has its value's dtype (args[1]) without unifying it with the lane.
  const IntrinsicInfo* shfl = reg.FindByScriptName("cuda.__shfl_sync");
  ASSERT_NE(shfl, nullptr);
  EXPECT_EQ(shfl->name, "tirx.cuda.__shfl_sync");
  EXPECT_EQ(shfl->dtype_rule, IntrinsicInfo::DTypeRule::kValueArg);
  EXPECT_EQ(reg.FindByScriptName("cuda.make_float2")->dtype_rule, IntrinsicInfo::DTypeRule::kUInt64);
  EXPECT_EQ(reg.FindByScriptName("cuda.uint_as_float")->dtype_rule, IntrinsicInfo::DTypeRule::kFloat32);
  EXPECT_EQ(reg.FindByScriptName("cuda.printf")->max_args, -1);
  EXPECT_EQ(reg.FindByScriptName("cuda.clock64")->dtype_rule, IntrinsicInfo::DTypeRule::kUInt64);
  EXPECT_EQ(reg.FindByScriptName("cuda.hmax2")->dtype_rule, IntrinsicInfo::DTypeRule::kUInt32);
  // The tcgen05 packers are spelled T.cuda.tcgen05.<name> in scripts and printed under the op name.
  const IntrinsicInfo* desc = reg.FindByScriptName("cuda.tcgen05.encode_matrix_descriptor");
  ASSERT_NE(desc, nullptr);
  EXPECT_EQ(desc->name, "tirx.cuda.tcgen05_encode_matrix_descriptor");
  EXPECT_EQ(desc->script_name, "cuda.tcgen05_encode_matrix_descriptor");
  EXPECT_EQ(reg.FindByScriptName("s_tir.cp_async_raw.legacy")->name, "tirx.s_tir.cp_async_raw");
  EXPECT_EQ(reg.FindByScriptName("nvshmem.quiet")->dtype_rule, IntrinsicInfo::DTypeRule::kVoid);
  // The simdgroup builtins are TVM's tirx.<name> ops, spelled only under T.metal.
  const IntrinsicInfo* load = reg.FindByScriptName("metal.simdgroup_load");
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(load->name, "tirx.simdgroup_load");
  EXPECT_EQ(reg.FindByName("tirx.simdgroup_load"), load);
  EXPECT_EQ(reg.FindByScriptName("simdgroup_load"), nullptr);
}

// print_buffer and cuda.ldg have the dtype their string operand names (void for ldg's vector
// form); cuda.mov_sreg an int of its bit width.
TEST(IntrinsicRegistryTest, DTypeFromArgs) {
  const auto& reg = IntrinsicRegistry::Global();
  using ir::DataType;
  ir::Var p("p", DataType::Handle());
  const IntrinsicInfo* ldg = reg.FindByScriptName("cuda.ldg");
  EXPECT_EQ(DTypeFromArgs(*ldg, {p, ir::StringImm("float16")}), DataType::Float(16));
  EXPECT_EQ(DTypeFromArgs(*ldg, {p, p, p, ir::StringImm("int32"), ir::StringImm("v2"), ir::IntImm(DataType::Int(32), 2)}),
            DataType::Void());
  EXPECT_FALSE(DTypeFromArgs(*ldg, {p, ir::StringImm("notatype")}).has_value());
  const IntrinsicInfo* sreg = reg.FindByScriptName("cuda.mov_sreg");
  EXPECT_EQ(DTypeFromArgs(*sreg, {ir::IntImm(DataType::Int(32), 64), ir::StringImm("globaltimer")}), DataType::Int(64));
  EXPECT_FALSE(DTypeFromArgs(*sreg, {ir::IntImm(DataType::Int(32), 16), ir::StringImm("x")}).has_value());
  const IntrinsicInfo* pb = reg.FindByScriptName("print_buffer");
  EXPECT_EQ(pb->dtype_rule, IntrinsicInfo::DTypeRule::kNamedByArg1);
}

}  // namespace
}  // namespace kiln::tir
