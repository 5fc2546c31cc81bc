// TVMScript parser, device intrinsics whose script form differs from their IR operands: keyword
// arguments that become positional operands (T.cuda.ldg(addr, dtype, dst=(...), vec="v4"), the
// tcgen05 descriptor packers, T.cuda.func_call's source_code=/return_type=), Python values TVM's
// builder converts (T.print_buffer's dim_num is a uint32) and helpers TVM's builder expands into
// other calls (T.cuda.sm100_2sm_leader_smem_addr). Each handler rewrites the call into the
// registry's positional form and hands it to the intrinsic registry (parse_tir_intrin.cc), so the
// printed form (the registry's spelling, positional) parses back to the same call.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/script/parser/handlers.h"
#include "compiler/tir/op/op.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only

namespace {

// One keyword-capable parameter of a script signature: its name and its default (kNone: required).
struct Param {
  const char* name;
  Value fallback;
};

// Binds positional and keyword arguments to `params` in order, as a Python call would, and
// leaves the bound values as the positional arguments of `a`.
void BindParams(Parser& p, CallArgs& a, const TirCall& c, const std::vector<Param>& params) {
  if (a.args.size() > params.size()) {
    p.Fail(c.span, absl::StrCat("T.", c.name_in, " takes at most ", params.size(), " arguments, got ", a.args.size()));
  }
  std::vector<Value> bound(params.size());
  std::vector<bool> have(params.size(), false);
  for (size_t i = 0; i < a.args.size(); ++i) {
    bound[i] = a.args[i];
    have[i] = true;
  }
  for (const auto& [k, v] : a.kwargs) {
    size_t i = 0;
    while (i < params.size() && k != params[i].name) ++i;
    if (i == params.size()) p.Fail(c.span, absl::StrCat("T.", c.name_in, " has no argument '", k, "'"));
    if (have[i]) p.Fail(c.span, absl::StrCat("T.", c.name_in, " got argument '", k, "' twice"));
    bound[i] = v;
    have[i] = true;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (have[i]) continue;
    if (params[i].fallback.kind == K::kNone) {
      p.Fail(c.span, absl::StrCat("T.", c.name_in, " is missing argument '", params[i].name, "'"));
    }
    bound[i] = params[i].fallback;
  }
  a.args = std::move(bound);
  a.kwargs.clear();
}

// T.cuda.tcgen05.encode_matrix_descriptor(desc, addr, ldo, sdo, swizzle), keywords allowed.
Value CallEncodeMatrixDescriptor(Parser& p, CallArgs& a, const TirCall& c) {
  BindParams(p, a, c, {{"desc", Value()}, {"addr", Value()}, {"ldo", Value()}, {"sdo", Value()}, {"swizzle", Value()}});
  return CallTirIntrinsic(p, a, c);
}

// T.cuda.tcgen05.encode_instr_descriptor(desc, *, d_dtype, a_dtype, b_dtype, M, N, K, trans_a,
// trans_b, n_cta_groups=1, neg_a=False, neg_b=False, sat_d=False, is_sparse=False).
Value CallEncodeInstrDescriptor(Parser& p, CallArgs& a, const TirCall& c) {
  if (a.kwargs.empty() && a.args.size() == 14) return CallTirIntrinsic(p, a, c);  // printed form
  if (a.args.size() > 1) p.Fail(c.span, absl::StrCat("T.", c.name_in, " takes the descriptor positionally and the rest by keyword"));
  BindParams(p, a, c,
             {{"desc", Value()}, {"d_dtype", Value()}, {"a_dtype", Value()}, {"b_dtype", Value()}, {"M", Value()},
              {"N", Value()}, {"K", Value()}, {"trans_a", Value()}, {"trans_b", Value()},
              {"n_cta_groups", Value::Int(1)}, {"neg_a", Value::Bool(false)}, {"neg_b", Value::Bool(false)},
              {"sat_d", Value::Bool(false)}, {"is_sparse", Value::Bool(false)}});
  const Value& groups = a.args[9];
  if (groups.kind == K::kInt && groups.i != 1 && groups.i != 2) p.Fail(SpanOr(groups, c.span), "n_cta_groups must be 1 or 2");
  return CallTirIntrinsic(p, a, c);
}

// ..._block_scaled(desc, *, d_dtype, a_dtype, b_dtype, sfa_dtype, sfb_dtype, sfa_tmem_addr,
// sfb_tmem_addr, M, N, K, trans_a, trans_b, n_cta_groups=1, neg_a=False, neg_b=False,
// is_sparse=False).
Value CallEncodeInstrDescriptorBlockScaled(Parser& p, CallArgs& a, const TirCall& c) {
  if (a.kwargs.empty() && a.args.size() == 17) return CallTirIntrinsic(p, a, c);  // printed form
  if (a.args.size() > 1) p.Fail(c.span, absl::StrCat("T.", c.name_in, " takes the descriptor positionally and the rest by keyword"));
  BindParams(p, a, c,
             {{"desc", Value()}, {"d_dtype", Value()}, {"a_dtype", Value()}, {"b_dtype", Value()},
              {"sfa_dtype", Value()}, {"sfb_dtype", Value()}, {"sfa_tmem_addr", Value()}, {"sfb_tmem_addr", Value()},
              {"M", Value()}, {"N", Value()}, {"K", Value()}, {"trans_a", Value()}, {"trans_b", Value()},
              {"n_cta_groups", Value::Int(1)}, {"neg_a", Value::Bool(false)}, {"neg_b", Value::Bool(false)},
              {"is_sparse", Value::Bool(false)}});
  const Value& groups = a.args[13];
  if (groups.kind == K::kInt && groups.i != 1 && groups.i != 2) p.Fail(SpanOr(groups, c.span), "n_cta_groups must be 1 or 2");
  return CallTirIntrinsic(p, a, c);
}

// T.cuda.ldg(addr, dtype) loads one value; T.cuda.ldg(addr, dtype, dst=(p0, p1[, p2, p3]),
// vec="v2"|"v4") stores a vector through the pointers, operands (dst..., addr, dtype, vec, n).
Value CallCudaLdg(Parser& p, CallArgs& a, const TirCall& c) {
  const Value* dst = Kwarg(a, "dst");
  const Value* vec = Kwarg(a, "vec");
  if (dst == nullptr || dst->kind == K::kNone) {
    if (vec != nullptr && !(vec->kind == K::kStr && vec->s.empty())) p.Fail(c.span, "vector T.cuda.ldg requires dst");
    a.kwargs.clear();
    return CallTirIntrinsic(p, a, c);
  }
  if (a.args.size() != 2) p.Fail(c.span, "T.cuda.ldg(addr, dtype, dst=..., vec=...) takes the address and the dtype");
  std::string v = vec != nullptr && vec->kind == K::kStr ? vec->s : "";
  if (v != "v2" && v != "v4") p.Fail(c.span, absl::StrCat("vector T.cuda.ldg expects vec in {'v2', 'v4'}, got '", v, "'"));
  if (!dst->is_seq()) p.Fail(SpanOr(*dst, c.span), "vector T.cuda.ldg requires a tuple or list dst");
  int64_t n = v == "v2" ? 2 : 4;
  if (static_cast<int64_t>(dst->items.size()) != n) {
    p.Fail(SpanOr(*dst, c.span), absl::StrCat("T.cuda.ldg dst length must match ", v, ": got ", dst->items.size()));
  }
  std::vector<Value> args = dst->items;
  args.push_back(a.args[0]);
  args.push_back(a.args[1]);
  args.push_back(Value::Str(v));
  args.push_back(Value::Int(n));
  a.args = std::move(args);
  a.kwargs.clear();
  return CallTirIntrinsic(p, a, c);
}

// T.cuda.func_call("name", args..., source_code=src, return_type="void"): the source is the last
// operand, the return type the call's dtype.
Value CallCudaFuncCall(Parser& p, CallArgs& a, const TirCall& c) {
  const Value* src = Kwarg(a, "source_code");
  if (src == nullptr) p.Fail(c.span, "T.cuda.func_call requires source_code=");
  if (src->kind != K::kStr) p.Fail(SpanOr(*src, c.span), "T.cuda.func_call's source_code must be a string");
  if (a.args.empty() || a.args[0].kind != K::kStr) p.Fail(c.span, "T.cuda.func_call needs the function name (a string) first");
  const Value* ret = Kwarg(a, "return_type");
  for (const auto& kv : a.kwargs) {
    if (kv.first != "source_code" && kv.first != "return_type") {
      p.Fail(c.span, absl::StrCat("T.cuda.func_call has no argument '", kv.first, "'"));
    }
  }
  std::vector<Value> args;
  args.push_back(ret != nullptr ? *ret : Value::Str("void"));  // the registry's explicit dtype comes first
  args.insert(args.end(), a.args.begin(), a.args.end());
  args.push_back(*src);
  a.args = std::move(args);
  a.kwargs.clear();
  return CallTirIntrinsic(p, a, c);
}

// T.print_buffer(data, dtype, is_string, is_scalar, dim_num, *shape): dim_num is a uint32 and a
// single tuple of dims stands for the dims, as TVM's builder has them.
Value CallPrintBuffer(Parser& p, CallArgs& a, const TirCall& c) {
  if (a.args.size() < 5) p.Fail(c.span, "T.print_buffer(buffer_var, dtype, is_string, is_scalar, dim_num, *shape) needs 5 arguments or more");
  if (a.args.size() == 6 && a.args[5].is_seq()) {
    std::vector<Value> dims = a.args[5].items;
    a.args.pop_back();
    a.args.insert(a.args.end(), dims.begin(), dims.end());
  }
  if (a.args[1].kind != K::kStr) a.args[1] = Value::Str(p.ToDType(a.args[1], SpanOr(a.args[1], c.span)).ToString());
  for (size_t i : {size_t{2}, size_t{3}}) {
    if (a.args[i].kind == K::kInt) a.args[i] = Value::Bool(a.args[i].i != 0);
  }
  if (a.args[4].kind == K::kInt) a.args[4] = Value::Obj(K::kPrim, IntImm(DataType::UInt(32), a.args[4].i, SpanOr(a.args[4], c.span)));
  return CallTirIntrinsic(p, a, c);
}

// T.cuda.sm100_2sm_leader_smem_addr(ptr): the leader CTA's shared address of a generic pointer,
// which TVM's builder writes as cvta_generic_to_shared(ptr) & 0xFEFFFFFF.
Value CallSm100LeaderSmemAddr(Parser& p, CallArgs& a, const TirCall& c) {
  c.Need(1, 1);
  PrimExpr ptr = c.Prim(0);
  PrimExpr shared = Call(DataType::UInt(32), Op("tirx.cuda.cvta_generic_to_shared"), {ptr}, c.span);
  PrimExpr mask = IntImm(DataType::UInt(32), 0xFEFFFFFFLL, c.span);
  return Value::Obj(K::kPrim, Call(DataType::UInt(32), Op("tirx.bitwise_and"), {shared, mask}, c.span));
}

}  // namespace

void AddTirDeviceIntrinsicCalls(TirCallTable* t) {
  for (const char* name : {"cuda.tcgen05.encode_matrix_descriptor", "cuda.tcgen05_encode_matrix_descriptor"}) {
    t->by_name.emplace(name, &CallEncodeMatrixDescriptor);
  }
  for (const char* name : {"cuda.tcgen05.encode_instr_descriptor", "cuda.tcgen05_encode_instr_descriptor"}) {
    t->by_name.emplace(name, &CallEncodeInstrDescriptor);
  }
  for (const char* name : {"cuda.tcgen05.encode_instr_descriptor_block_scaled", "cuda.tcgen05_encode_instr_descriptor_block_scaled"}) {
    t->by_name.emplace(name, &CallEncodeInstrDescriptorBlockScaled);
  }
  t->by_name.emplace("cuda.ldg", &CallCudaLdg);
  t->by_name.emplace("cuda.func_call", &CallCudaFuncCall);
  t->by_name.emplace("print_buffer", &CallPrintBuffer);
  t->by_name.emplace("cuda.sm100_2sm_leader_smem_addr", &CallSm100LeaderSmemAddr);
}

}  // namespace kiln::script::parser
