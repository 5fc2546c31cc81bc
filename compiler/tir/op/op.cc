// The table of TIR intrinsics. Each row states what TVMScript v0.26 produces for T.<name>(...):
// the op name, the arity the script form accepts, how the call's dtype is chosen and its effect.
#include "compiler/tir/op/op.h"

namespace kiln::tir {
namespace {

using Rule = IntrinsicInfo::DTypeRule;
using E = CallEffect;

// Adds one row; returns it so the caller can set the flags that differ from the defaults.
IntrinsicInfo& Add(std::vector<IntrinsicInfo>* ops, const std::string& script, int min_args,
                   int max_args, Rule rule, E effect) {
  IntrinsicInfo info;
  info.name = "tirx." + script;
  info.script_name = script;
  info.min_args = min_args;
  info.max_args = max_args;
  info.dtype_rule = rule;
  info.effect = effect;
  ops->push_back(std::move(info));
  return ops->back();
}

void AddMath(std::vector<IntrinsicInfo>* ops) {
  // Unary float math: result has the argument's dtype.
  for (const char* name :
       {"exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin",
        "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh", "atanh",
        "sigmoid", "erf", "fabs", "floor", "ceil", "round", "nearbyint", "trunc"}) {
    Add(ops, name, 1, 1, Rule::kSameAsFirstArg, E::kPure).float_only = true;
  }
  // Binary float math: both operands are unified first.
  for (const char* name : {"pow", "atan2", "fmod", "hypot", "copysign", "nextafter"}) {
    IntrinsicInfo& info = Add(ops, name, 2, 2, Rule::kSameAsFirstArg, E::kPure);
    info.float_only = true;
    info.match_binary_args = true;
  }
  // ldexp(x, exp): exp is an integer, so the operands are not unified.
  Add(ops, "ldexp", 2, 2, Rule::kSameAsFirstArg, E::kPure).float_only = true;
  // fma(a, b, c) = a * b + c.
  Add(ops, "fma", 3, 3, Rule::kSameAsFirstArg, E::kPure).float_only = true;
  for (const char* name : {"isnan", "isinf", "isfinite"}) {
    Add(ops, name, 1, 1, Rule::kBoolLanesOfFirstArg, E::kPure).float_only = true;
  }
  Add(ops, "popcount", 1, 1, Rule::kSameAsFirstArg, E::kPure).int_only = true;
  Add(ops, "clz", 1, 1, Rule::kInt32, E::kPure).int_only = true;
  // q_multiply_shift(x, y, q, s): fixed-point multiply used by quantized kernels.
  Add(ops, "q_multiply_shift", 4, 4, Rule::kSameAsFirstArg, E::kPure).int_only = true;
  // q_multiply_shift_per_axis(x, y, ls, rs, q, is_lshift_required, is_rshift_required): the
  // per-channel form, always int32 as TVM builds it.
  Add(ops, "q_multiply_shift_per_axis", 7, 7, Rule::kInt32, E::kPure);
}

void AddBitwise(std::vector<IntrinsicInfo>* ops) {
  for (const char* name : {"bitwise_and", "bitwise_or", "bitwise_xor", "shift_left", "shift_right"}) {
    IntrinsicInfo& info = Add(ops, name, 2, 2, Rule::kSameAsFirstArg, E::kPure);
    info.int_only = true;
    info.match_binary_args = true;
  }
  Add(ops, "bitwise_not", 1, 1, Rule::kSameAsFirstArg, E::kPure).int_only = true;
}

void AddControl(std::vector<IntrinsicInfo>* ops) {
  // if_then_else(cond, t, f): only the taken branch is evaluated (unlike Select). Its two branches
  // (args 1 and 2) are unified by MakeCall.
  Add(ops, "if_then_else", 3, 3, Rule::kSecondArg, E::kPure);
  Add(ops, "likely", 1, 1, Rule::kSameAsFirstArg, E::kExprAnnotation);
  Add(ops, "assume", 1, 1, Rule::kBool, E::kExprAnnotation);
  Add(ops, "ret", 1, 1, Rule::kSameAsFirstArg, E::kControlJump);
  // check_failure(parts...): kiln's own (not TVMScript's): checked mode's failed check
  // (transform/instrument_checks.cc). Fails the call with the concatenation of its arguments:
  // string parts as written, integer values in decimal (signed, unsigned for uint dtypes).
  Add(ops, "check_failure", 1, -1, Rule::kInt32, E::kControlJump);
  // thread_return(): the calling GPU thread returns early.
  Add(ops, "thread_return", 0, 0, Rule::kVoid, E::kControlJump);
  // reinterpret(dtype, value): the dtype is the explicit one, value is the only IR argument.
  Add(ops, "reinterpret", 1, 1, Rule::kExplicit, E::kPure);
  Add(ops, "tvm_thread_allreduce", 1, -1, Rule::kHandle, E::kOpaque);
  // tvm_storage_sync("shared") or, lowered, ("global", is_load, num_blocks).
  Add(ops, "tvm_storage_sync", 1, 3, Rule::kInt32, E::kOpaque);
  // tvm_warp_shuffle[_up|_down](mask, value, lane_or_delta, width, warp_size): value's dtype.
  for (const char* name : {"tvm_warp_shuffle", "tvm_warp_shuffle_up", "tvm_warp_shuffle_down"}) {
    Add(ops, name, 5, 5, Rule::kSecondArg, E::kOpaque);
  }
  Add(ops, "tvm_warp_activemask", 0, 0, Rule::kUInt32, E::kOpaque);
  Add(ops, "tvm_warp_shuffle_xor", 5, 5, Rule::kSecondArg, E::kOpaque);
  Add(ops, "tvm_thread_invariant", 1, 1, Rule::kSameAsFirstArg, E::kPure);
  // Tensor-core fragments (wmma): every operation is an opaque handle-typed call.
  for (const char* name : {"tvm_load_matrix_sync", "tvm_store_matrix_sync", "tvm_mma_sync", "tvm_bmma_sync"}) {
    Add(ops, name, 8, 8, Rule::kHandle, E::kOpaque);
  }
  Add(ops, "tvm_fill_fragment", 6, 6, Rule::kHandle, E::kOpaque);
  // An unspecified value (e.g. the initial value of a buffer that is written before it is read).
  Add(ops, "undef", 0, 0, Rule::kInt32, E::kReadState);
  // Workspace allocation in lowered host code: (device_type, device_id, nbytes, dtype_code, dtype_bits).
  Add(ops, "TVMBackendAllocWorkspace", 5, 5, Rule::kHandle, E::kOpaque);
  Add(ops, "TVMBackendFreeWorkspace", 3, 3, Rule::kInt32, E::kOpaque);
  Add(ops, "start_profile_intrinsic", 1, 1, Rule::kHandle, E::kOpaque);
  // The handle of a module-level static slot (the LLVM host backend's lazy-init pattern).
  Add(ops, "tvm_static_handle", 0, 0, Rule::kHandle, E::kSpecialCallArg);
  // A context id separating workspaces (an integer; InjectVirtualThread makes it per-vthread and
  // LowerTVMBuiltin folds it to 0).
  Add(ops, "tvm_context_id", 0, 0, Rule::kInt32, E::kReadState);
  // Marks where a kernel-generating transform puts its initialization code.
  Add(ops, "tvm_kernel_replace_point", 0, 0, Rule::kVoid, E::kOpaque);
  // print_buffer(data, "dtype", is_string, is_scalar, dim_num, *shape): device-side dump of a
  // buffer; the call has the printed elements' dtype.
  Add(ops, "print_buffer", 5, -1, Rule::kNamedByArg1, E::kOpaque);
  Add(ops, "end_profile_intrinsic", 1, 1, Rule::kHandle, E::kOpaque);
}

void AddCalls(std::vector<IntrinsicInfo>* ops) {
  // External calls: args[0] is the callee's name (a StringImm); the dtype is given in the script.
  Add(ops, "call_extern", 1, -1, Rule::kExplicit, E::kOpaque);
  Add(ops, "call_pure_extern", 1, -1, Rule::kExplicit, E::kPure);
  // call_llvm_intrin(dtype, "llvm.name" or id, ...).
  Add(ops, "call_llvm_intrin", 1, -1, Rule::kExplicit, E::kOpaque);
  Add(ops, "call_llvm_pure_intrin", 1, -1, Rule::kExplicit, E::kPure);
  // Packed calls: T.call_packed("fname", args...) returns int32 (the callee's status).
  {
    IntrinsicInfo& info = Add(ops, "tvm_call_packed", 1, -1, Rule::kInt32, E::kOpaque);
    info.script_name = "call_packed";
    info.aliases = {"tvm_call_packed"};
  }
  {
    IntrinsicInfo& info = Add(ops, "tvm_call_cpacked", 1, -1, Rule::kInt32, E::kOpaque);
    info.script_name = "call_cpacked";
    info.aliases = {"tvm_call_cpacked"};
  }
  {
    IntrinsicInfo& info = Add(ops, "tvm_call_packed_lowered", 1, -1, Rule::kInt32, E::kOpaque);
    info.script_name = "call_packed_lowered";
    info.aliases = {"tvm_call_packed_lowered"};
  }
  {
    IntrinsicInfo& info = Add(ops, "tvm_call_cpacked_lowered", 1, -1, Rule::kInt32, E::kOpaque);
    info.script_name = "call_cpacked_lowered";
    info.aliases = {"tvm_call_cpacked_lowered"};
  }
  // tvm_struct_get(handle, index, field_kind) -> dtype given in the script (last position).
  Add(ops, "tvm_struct_get", 3, 3, Rule::kExplicit, E::kReadState);
  Add(ops, "tvm_struct_set", 4, 4, Rule::kInt32, E::kUpdateState);
  // tvm_stack_alloca("shape"|"arg_value"|"arg_tcode"|"array", count).
  Add(ops, "tvm_stack_alloca", 2, 2, Rule::kHandle, E::kOpaque);
  Add(ops, "tvm_stack_make_shape", 0, -1, Rule::kHandle, E::kOpaque);
  // tvm_stack_make_array(data, shape, strides, ndim, arr_dtype, elem_offset).
  Add(ops, "tvm_stack_make_array", 6, 6, Rule::kHandle, E::kOpaque);
  Add(ops, "tvm_throw_last_error", 0, 0, Rule::kInt32, E::kOpaque);
  Add(ops, "address_of", 1, 1, Rule::kHandle, E::kPure);
  // buffer_offset(A[i, j]): the element offset of A[i, j] through A's layout (A.elem_offset_of).
  Add(ops, "buffer_offset", 1, 2, Rule::kInt32, E::kPure);
  Add(ops, "handle_add_byte_offset", 2, 2, Rule::kHandle, E::kPure);
  // ptr_byte_offset(data, byte_offset, type_annotation(dtype)): data + byte_offset as a dtype*.
  Add(ops, "ptr_byte_offset", 3, 3, Rule::kHandle, E::kPure);
  Add(ops, "isnullptr", 1, 1, Rule::kBool, E::kPure);
  Add(ops, "lookup_param", 1, 1, Rule::kHandle, E::kUpdateState);
  // tvm_access_ptr(type_annotation(dtype), data, offset, extent, rw_mask).
  Add(ops, "tvm_access_ptr", 5, 5, Rule::kHandle, E::kSpecialCallArg);
  Add(ops, "type_annotation", 0, 0, Rule::kExplicit, E::kSpecialCallArg);
  Add(ops, "tvm_tuple", 0, -1, Rule::kHandle, E::kOpaque);
  Add(ops, "prefetch", 1, -1, Rule::kVoid, E::kOpaque);
  // vscale(): the run-time multiplier of scalable vector lengths (llvm.vscale).
  Add(ops, "vscale", 0, 0, Rule::kInt32, E::kPure);
  // get_active_lane_mask(mask_dtype; base, limit): the predicate of a tail-masked vector access.
  Add(ops, "get_active_lane_mask", 2, 2, Rule::kExplicit, E::kPure);
  // ignore_loop_partition(cond) is cond, marked as no loop-partition point.
  Add(ops, "ignore_loop_partition", 1, 1, Rule::kBool, E::kPure);
  // The Relax VM's AnyList registers, as lowered VM code (codegen_vm_tir) uses them:
  // getitem(list, index) -> handle; resetitem(list, index); setitem_call_[c]packed(list, index,
  // "func", args...) stores the packed call's result.
  Add(ops, "anylist_getitem", 2, 2, Rule::kHandle, E::kReadState);
  Add(ops, "anylist_resetitem", 2, 2, Rule::kInt32, E::kOpaque);
  Add(ops, "anylist_setitem_call_packed", 3, -1, Rule::kInt32, E::kOpaque);
  Add(ops, "anylist_setitem_call_cpacked", 3, -1, Rule::kInt32, E::kOpaque);
}

void AddVectorAndPtx(std::vector<IntrinsicInfo>* ops) {
  // vectorlow/vectorhigh(dtype, v) take one half of v; vectorcombine(dtype, a, b) concatenates.
  Add(ops, "vectorlow", 1, 1, Rule::kExplicit, E::kPure);
  Add(ops, "vectorhigh", 1, 1, Rule::kExplicit, E::kPure);
  Add(ops, "vectorcombine", 2, 2, Rule::kExplicit, E::kPure);
  // The common CUDA async-copy and barrier intrinsics (mma/ldmatrix are not supported).
  // ptx_cp_async(dtype, shared_ptr, shared_offset, global_ptr, global_offset, bytes).
  Add(ops, "ptx_cp_async", 5, 5, Rule::kExplicit, E::kOpaque);
  Add(ops, "ptx_commit_group", 0, 0, Rule::kVoid, E::kOpaque);
  Add(ops, "ptx_wait_group", 1, 1, Rule::kVoid, E::kOpaque);
  Add(ops, "ptx_cp_async_barrier", 1, 1, Rule::kVoid, E::kOpaque);
  Add(ops, "ptx_init_barrier_thread_count", 2, 2, Rule::kVoid, E::kOpaque);
  Add(ops, "ptx_arrive_barrier", 1, 1, Rule::kVoid, E::kOpaque);
  Add(ops, "ptx_arrive_barrier_expect_tx", 2, 2, Rule::kVoid, E::kOpaque);
  Add(ops, "ptx_wait_barrier", 1, 1, Rule::kVoid, E::kOpaque);
  Add(ops, "create_barriers", 1, 1, Rule::kVoid, E::kOpaque);
  // The pre-dialect tensor-core spellings (T.ptx_legacy.*) that s_tir tensor intrinsics emit.
  // ldmatrix(elem_dtype; trans, num, ".b16", local_ptr, local_offset, smem_ptr, smem_offset): the
  // call's dtype is the buffer element type. mma(shape, a_layout, b_layout, a_dtype, b_dtype,
  // c_dtype, a, a_offset, b, b_offset, acc, acc_offset, saturate[, operator]) returns nothing.
  Add(ops, "ptx_legacy.ldmatrix", 7, 7, Rule::kExplicit, E::kOpaque);
  Add(ops, "ptx_legacy.mma", 13, 14, Rule::kVoid, E::kOpaque);
  // The nodes TVM's s_tir passes build (InjectPTXAsyncCopy, InjectPTXLDG32), spelled so that
  // printed IR parses back: cp_async_raw(elem_dtype; dst, dst_offset, src, src_offset, bytes) and
  // ldg32(reg, guard, addr, local_addr) with the register's dtype.
  // T.s_tir.cp_async_raw.legacy(...) is TVM's name for the same six-argument form.
  Add(ops, "s_tir.cp_async_raw", 5, 5, Rule::kExplicit, E::kOpaque).aliases = {"s_tir.cp_async_raw.legacy"};
  Add(ops, "s_tir.ldg32", 4, 4, Rule::kSameAsFirstArg, E::kOpaque);
  // WebGPU subgroup shuffles: (value, lane or delta) -> value's dtype.
  for (const char* name : {"webgpu.subgroup_shuffle", "webgpu.subgroup_shuffle_up", "webgpu.subgroup_shuffle_down"}) {
    Add(ops, name, 2, 2, Rule::kSameAsFirstArg, E::kOpaque);
  }
}

void AddPtxDialect(std::vector<IntrinsicInfo>* ops) {
  // TVM's table-driven T.ptx dialect: one void, opaque op per instruction family, spelled
  // T.ptx.<family>(operands..., modifier tokens..., marker) (see script/parser/parse_tile.cc).
  for (const char* family :
      {"abs", "activemask", "add", "and", "applypriority", "atom", "bar", "barrier", "bfe", "bfi",
        "bfind", "bmsk", "brev", "clusterlaunchcontrol", "clz", "cnot", "copysign", "cos", "cp",
        "createpolicy", "cvt", "cvt_pack", "cvta", "discard", "div", "dp2a", "dp4a", "elect_sync",
        "ex2", "fence", "fma", "fns", "getctarank", "griddepcontrol", "isspacep", "ld", "ldmatrix",
        "ldu", "lg2", "lop3", "mad", "mad24", "mapa", "match", "max", "mbarrier", "min", "mma",
        "mov", "mul", "mul24", "multimem_ld_reduce", "multimem_red", "multimem_st", "neg", "not",
        "or", "popc", "prefetch", "prefetchu", "prmt", "rcp", "red", "red_async", "redux_sync",
        "rem", "rsqrt", "sad", "selp", "set", "setmaxnreg", "setp", "shf", "shfl_sync", "shl",
        "shr", "sin", "slct", "sqrt", "st", "st_async", "st_bulk", "stmatrix", "sub", "szext",
        "tanh", "tcgen05", "tensormap_cp_fenceproxy", "tensormap_replace", "testp", "vote_sync",
        "wgmma", "xor"}) {
    IntrinsicInfo& info = Add(ops, std::string("ptx.") + family, 1, -1, Rule::kVoid, E::kOpaque);
    // Python keywords are spelled with a trailing underscore (T.ptx.and_) so the text parses.
    std::string f = family;
    if (f == "and" || f == "or" || f == "not") info.script_name += "_";
  }
  // T.ptx.addr(base, byte_offset): an address operand with an immediate offset.
  Add(ops, "ptx.addr", 2, 2, Rule::kSameAsFirstArg, E::kPure);
}

void AddNkiDialect(std::vector<IntrinsicInfo>* ops) {
  // TVM's T.nki namespace (Trainium): void calls on buffer elements, opcodes as strings. The
  // parser fills the optional trailing parameters, so each call has its full arity.
  auto add = [&](const char* name, int min_args, int max_args) {
    Add(ops, std::string("nki.") + name, min_args, max_args, Rule::kVoid, E::kOpaque);
  };
  for (const char* name : {"load", "store", "tensor_copy", "reciprocal", "memset", "identity"}) add(name, 2, 2);
  add("matmul", 4, 4);
  add("activation", 5, 5);
  add("tensorreduce", 4, -1);  // (result, data, opcode, negate, *axes)
  add("tensortensor", 4, 4);
  add("tensorscalar", 5, 5);
  add("activation_reduce", 7, 7);
  add("tensorscalar_reduce", 7, 7);
  add("scalar_tensor_tensor", 8, 8);
  add("scalar_tensor_scalar", 8, 8);
  add("affine_select", 4, 4);
}

void AddCudaDialect(std::vector<IntrinsicInfo>* ops) {
  // TVM's T.cuda namespace: CUDA helpers whose result dtype is fixed (or that of the value
  // argument for the atomics), spelled T.cuda.<name>.
  auto add = [&](const char* name, int n_args, Rule rule) {
    Add(ops, std::string("cuda.") + name, n_args, n_args, rule, E::kOpaque);
  };
  add("cta_sync", 0, Rule::kVoid);
  add("cluster_sync", 0, Rule::kVoid);
  add("thread_fence", 0, Rule::kVoid);
  add("mbarrier_wait", 2, Rule::kVoid);  // (barrier pointer, phase)
  add("nano_sleep", 1, Rule::kVoid);
  add("elect_sync", 0, Rule::kUInt32);
  add("get_tmem_addr", 3, Rule::kUInt32);  // (addr, row offset, column offset)
  add("cvta_generic_to_shared", 1, Rule::kUInt32);
  add("float_as_uint", 1, Rule::kUInt32);
  add("ballot_sync", 2, Rule::kUInt32);
  add("reduce_add_sync_u32", 2, Rule::kUInt32);
  add("reduce_min_sync_u32", 2, Rule::kUInt32);
  add("float22bfloat162_rn", 2, Rule::kUInt32);
  add("ffs_u32", 1, Rule::kInt32);
  add("warp_sync", 0, Rule::kVoid);
  add("grid_sync", 0, Rule::kVoid);
  add("warpgroup_sync", 1, Rule::kVoid);  // (named barrier number)
  add("thread_rank", 0, Rule::kInt32);
  add("any_sync", 2, Rule::kInt32);
  // warp_reduce(value, "sum"|"max"|"min", width) and cta_reduce(value, op, num_warps, scratch):
  // the value's dtype (T.cuda.warp_sum / cta_max / ... are spellings of these).
  add("warp_reduce", 3, Rule::kSameAsFirstArg);
  add("cta_reduce", 4, Rule::kSameAsFirstArg);
  add("atomic_add", 2, Rule::kSecondArg);  // (address, value): the value's dtype
  add("atomic_cas", 3, Rule::kSecondArg);  // (pointer, expected, desired)
  // iket_mark(name[, payload]): a profiler marker; the payload's type is checked when lowered.
  Add(ops, "cuda.iket_mark", 1, 2, Rule::kVoid, E::kOpaque);
  // Warp intrinsics under their CUDA names: __shfl*_sync(mask, value, lane or delta, width) has the
  // value's dtype, __activemask() the uint32 mask.
  for (const char* name : {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync"}) {
    add(name, 4, Rule::kValueArg);
  }
  add("__activemask", 0, Rule::kUInt32);
  add("make_float2", 2, Rule::kUInt64);   // (x, y) packed into one 64-bit register
  add("uint_as_float", 1, Rule::kFloat32);  // reinterprets uint32 bits
  add("fdividef", 2, Rule::kFloat32);
  // Fixed-dtype conversions and packed-pair arithmetic (a float2 travels as one uint64, a
  // bfloat162/half2 as one uint32), the cycle counter and a cluster address narrowed to shared.
  add("clock64", 0, Rule::kUInt64);
  add("float2_x", 1, Rule::kFloat32);
  add("float2_y", 1, Rule::kFloat32);
  add("half2float", 1, Rule::kFloat32);
  add("bfloat162float", 1, Rule::kFloat32);
  add("fmul2_rn", 2, Rule::kUInt64);
  add("fadd2_rn", 2, Rule::kUInt64);
  add("bfloat1622float2", 1, Rule::kUInt64);
  add("float22bfloat162_rn_from_float2", 1, Rule::kUInt32);
  add("hmin2", 2, Rule::kUInt32);
  add("hmax2", 2, Rule::kUInt32);
  add("fp8x4_e4m3_from_float4", 4, Rule::kUInt32);
  add("smem_addr_from_uint64", 1, Rule::kUInt32);
  // printf(format, args...): device-side printf, for its effect.
  Add(ops, "cuda.printf", 1, -1, Rule::kVoid, E::kOpaque);
  // ldg(addr, "dtype"): a read-only cached load of that dtype; the vector form
  // ldg(dst..., addr, "dtype", "v2"|"v4", n) stores n elements through the dst pointers.
  Add(ops, "cuda.ldg", 2, 8, Rule::kNamedByArg1, E::kOpaque);
  // mov_sreg(bits, "reg"): a PTX special register (clusterid.x, ...) as an int<bits>.
  Add(ops, "cuda.mov_sreg", 2, 2, Rule::kIntOfArg0Bits, E::kPure);
  // func_call("name", args..., source): calls a device function whose CUDA source is the last
  // argument; the script spells the source and the result type as source_code= / return_type=.
  Add(ops, "cuda.func_call", 2, -1, Rule::kExplicit, E::kOpaque);
  // tcgen05 descriptor packers, spelled T.cuda.tcgen05.<name>(desc, ...keywords) in scripts and
  // printed under the op name: they write the descriptor through `desc`.
  // encode_matrix_descriptor(desc, addr, ldo, sdo, swizzle).
  Add(ops, "cuda.tcgen05_encode_matrix_descriptor", 5, 5, Rule::kVoid, E::kOpaque)
      .aliases = {"cuda.tcgen05.encode_matrix_descriptor"};
  // encode_instr_descriptor(desc, d, a, b dtypes, M, N, K, trans_a, trans_b, n_cta_groups, neg_a,
  // neg_b, sat_d, is_sparse).
  Add(ops, "cuda.tcgen05_encode_instr_descriptor", 14, 14, Rule::kVoid, E::kOpaque)
      .aliases = {"cuda.tcgen05.encode_instr_descriptor"};
  // encode_instr_descriptor_block_scaled(desc, d, a, b, sfa, sfb dtypes, sfa_tmem_addr,
  // sfb_tmem_addr, M, N, K, trans_a, trans_b, n_cta_groups, neg_a, neg_b, is_sparse).
  Add(ops, "cuda.tcgen05_encode_instr_descriptor_block_scaled", 17, 17, Rule::kVoid, E::kOpaque)
      .aliases = {"cuda.tcgen05.encode_instr_descriptor_block_scaled"};
  // kiln's Hopper GEMM schedule (schedule_gpu_gemm_wgmma.h) writes these; the CUDA backend prints
  // each as the PTX instruction of its name (sm_90a).
  // wgmma_mma_async(shape, d, a, b dtypes, acc, acc_offset, desc_a, desc_b, trans_a, trans_b):
  // wgmma.mma_async.sync.aligned.<shape> accumulating into the float32 registers acc[acc_offset..],
  // both operands read from shared memory through their 64-bit descriptors.
  Add(ops, "cuda.wgmma_mma_async", 10, 10, Rule::kVoid, E::kOpaque);
  add("wgmma_fence", 0, Rule::kVoid);          // wgmma.fence.sync.aligned
  add("wgmma_commit_group", 0, Rule::kVoid);   // wgmma.commit_group.sync.aligned
  add("wgmma_wait_group", 1, Rule::kVoid);     // wgmma.wait_group.sync.aligned N (a constant)
  // wgmma_fence_operand(acc, offset, count): orders the compiler's uses of those accumulator
  // registers against the asynchronous instructions that write them (no instruction).
  add("wgmma_fence_operand", 3, Rule::kVoid);
  add("fence_proxy_async_shared", 0, Rule::kVoid);  // fence.proxy.async.shared::cta
  // bulk_copy_shared_to_global(dst, dst_byte_offset, src, src_byte_offset, bytes): the copy
  // engine moves `bytes` (a multiple of 16, both addresses 16-byte aligned) from shared to global
  // memory (cp.async.bulk.global.shared::cta.bulk_group), completed by bulk_commit_group and
  // bulk_wait_group(N).
  add("bulk_copy_shared_to_global", 5, Rule::kVoid);
  add("bulk_commit_group", 0, Rule::kVoid);
  add("bulk_wait_group", 1, Rule::kVoid);
}

void AddNvshmemDialect(std::vector<IntrinsicInfo>* ops) {
  // TVM's T.nvshmem namespace: one-sided communication between GPUs (processing elements).
  Add(ops, "nvshmem.my_pe", 0, 0, Rule::kInt32, E::kOpaque);
  Add(ops, "nvshmem.n_pes", 0, 0, Rule::kInt32, E::kOpaque);
  Add(ops, "nvshmem.quiet", 0, 0, Rule::kVoid, E::kOpaque);
  Add(ops, "nvshmem.fence", 0, 0, Rule::kVoid, E::kOpaque);
  Add(ops, "nvshmem.barrier_all", 0, 0, Rule::kVoid, E::kOpaque);
}

void AddMetalDialect(std::vector<IntrinsicInfo>* ops) {
  // TVM's T.metal namespace. The simdgroup matrix builtins are the TVM ops tirx.<name>, spelled
  // T.metal.<name>: fill(d, index, value, col, row), load/store(d, index, ptr, stride, col, row,
  // transpose), multiply_accumulate(d, i_d, a, i_a, b, i_b, c, i_c).
  auto simdgroup = [&](const char* name, int n_args) {
    IntrinsicInfo& info = Add(ops, std::string("metal.") + name, n_args, n_args, Rule::kVoid, E::kOpaque);
    info.name = std::string("tirx.") + name;
  };
  simdgroup("make_filled_simdgroup_matrix", 5);
  simdgroup("simdgroup_load", 7);
  simdgroup("simdgroup_store", 7);
  simdgroup("simdgroup_multiply_accumulate", 8);
  // simd_shuffle[_up|_down](value, lane or delta): the value's dtype.
  for (const char* name : {"metal.simd_shuffle", "metal.simd_shuffle_up", "metal.simd_shuffle_down"}) {
    Add(ops, name, 2, 2, Rule::kSameAsFirstArg, E::kOpaque);
  }
}

}  // namespace

std::optional<ir::DataType> DTypeFromArgs(const IntrinsicInfo& info, const ir::Array<ir::PrimExpr>& args) {
  if (info.dtype_rule == Rule::kNamedByArg1) {
    if (args.size() < 2) return std::nullopt;
    const auto* s = args[1].as<ir::StringImmNode>();
    if (s == nullptr) return ir::DataType::Void();
    ir::DataType t;
    if (!ir::DataType::TryParse(s->value, &t)) return std::nullopt;
    return t;
  }
  if (info.dtype_rule == Rule::kIntOfArg0Bits) {
    const auto* bits = args.empty() ? nullptr : args[0].as<ir::IntImmNode>();
    if (bits == nullptr || (bits->value != 32 && bits->value != 64)) return std::nullopt;
    return ir::DataType::Int(static_cast<int>(bits->value));
  }
  return std::nullopt;
}

IntrinsicRegistry::IntrinsicRegistry() {
  AddMath(&ops_);
  AddBitwise(&ops_);
  AddControl(&ops_);
  AddCalls(&ops_);
  AddVectorAndPtx(&ops_);
  AddPtxDialect(&ops_);
  AddCudaDialect(&ops_);
  AddMetalDialect(&ops_);
  AddNvshmemDialect(&ops_);
  AddNkiDialect(&ops_);
  for (size_t i = 0; i < ops_.size(); ++i) {
    by_name_.emplace(ops_[i].name, i);
    by_script_.emplace(ops_[i].script_name, i);
    for (const std::string& alias : ops_[i].aliases) by_script_.emplace(alias, i);
  }
}

const IntrinsicRegistry& IntrinsicRegistry::Global() {
  static const IntrinsicRegistry* const kRegistry = new IntrinsicRegistry();
  return *kRegistry;
}

const IntrinsicInfo* IntrinsicRegistry::FindByName(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &ops_[it->second];
}

const IntrinsicInfo* IntrinsicRegistry::FindByScriptName(const std::string& script) const {
  auto it = by_script_.find(script);
  return it == by_script_.end() ? nullptr : &ops_[it->second];
}

}  // namespace kiln::tir
