// TVMScript parser, TIR buffers: the buffer constructors (T.Buffer, T.match_buffer,
// T.alloc_buffer and its scoped spellings, T.decl_buffer, T.sblock_alloc_buffer), buffer indexing
// (loads, stores' indices, regions) and the methods of a buffer value (A.vload, A.access_ptr, ...).
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/structural.h"
#include "compiler/script/parser/handlers.h"
#include "compiler/tir/op/arith.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only

namespace {

// T.Buffer(...), and T.buffer(...), the builder function behind the T.Buffer proxy: the same
// arguments.
Value CallBuffer(Parser& p, CallArgs& a, const TirCall& c) {
  return Value::Obj(K::kBuffer, p.MakeBuffer(c.FreshName(), a, 0, "global"));
}

// A block's match_buffer over a region must agree with it where TVM's MatchBufferRegion checks:
// scope, dtype, alignment, rank (extra leading region dimensions of extent 1) and constant extents.
void CheckMatchRegion(Parser& p, const Buffer& b, const BufferRegion& region, const Span& span) {
  const Buffer& src = region->buffer;
  if (b->scope() != src->scope()) {
    p.Fail(span, absl::StrCat("match_buffer ", b->name, " is in scope \"", b->scope(), "\" but its source ", src->name,
                              " is in scope \"", src->scope(), "\""));
  }
  if (b->dtype != src->dtype) {
    p.Fail(span, absl::StrCat("mismatched types: match_buffer ", b->name, " is ", b->dtype.ToString(), " but its source ",
                              src->name, " is ", src->dtype.ToString()));
  }
  // Alignments in bytes; 0 is TVM's default allocation alignment (64).
  int64_t src_align = src->data_alignment > 0 ? src->data_alignment : 64;
  int64_t align = b->data_alignment > 0 ? b->data_alignment : 64;
  if (src_align % align != 0) {
    p.Fail(span, absl::StrCat("match_buffer ", b->name, " asks for align=", align, " but its source ", src->name,
                              " is only aligned to ", src_align, " bytes"));
  }
  if (region->region.size() < b->shape.size()) {
    p.Fail(span, absl::StrCat("match_buffer ", b->name, " has ", b->shape.size(), " dimensions but its source region has ",
                              region->region.size()));
  }
  size_t lead = region->region.size() - b->shape.size();
  auto extent = [](const PrimExpr& e) -> const IntImmNode* { return e.as<IntImmNode>(); };
  for (size_t i = 0; i < region->region.size(); ++i) {
    const IntImmNode* have = extent(region->region[i]->extent);
    if (!have) continue;
    if (i < lead) {
      if (have->value != 1) {
        p.Fail(span, absl::StrCat("match_buffer ", b->name, ": the source region's extra leading dimension ", i,
                                  " has extent ", have->value, ", not 1"));
      }
      continue;
    }
    const IntImmNode* want = extent(b->shape[i - lead]);
    if (want && want->value != have->value) {
      p.Fail(span, absl::StrCat("match_buffer ", b->name, ": dimension ", i - lead, " is ", want->value,
                                " but the source region's extent there is ", have->value));
    }
  }
}

// T.match_buffer(param, shape, ...): in a block, a buffer over a region of another; outside, the
// buffer behind a T.handle parameter.
Value CallMatchBuffer(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  if (a.args.empty()) p.Fail(span, "T.match_buffer(param, shape, dtype, ...) needs the matched parameter");
  if (a.args.size() == 1 && !Kwarg(a, "shape") && a.args[0].kind == K::kRegion) {
    // Matching a region without a shape: as in TVM, the region's extents and the source
    // buffer's dtype (which overrides a dtype= given).
    const auto* region = a.args[0].obj.as<BufferRegionNode>();
    std::vector<Value> extents;
    for (const Range& r : region->region) extents.push_back(Value::Obj(K::kPrim, r->extent));
    a.args.push_back(Value::Seq(K::kTuple, std::move(extents)));
    a.args.push_back(Value::Str(region->buffer->dtype.ToString()));
    a.kwargs.erase(std::remove_if(a.kwargs.begin(), a.kwargs.end(), [](const auto& kv) { return kv.first == "dtype"; }),
                   a.kwargs.end());
  }
  Buffer b = p.MakeBuffer(c.FreshName(), a, 1, "global");
  const Value& src = a.args[0];
  if (builder::BlockData* blk = p.tir_.block()) {
    BufferRegion region;
    if (src.kind == K::kRegion) {
      region = Downcast<BufferRegion>(src.obj);
    } else if (src.kind == K::kBuffer) {
      Buffer sb = Downcast<Buffer>(src.obj);
      Array<Range> full;
      for (const PrimExpr& d : sb->shape) full.push_back(Range(IntImm(d.dtype(), 0), d));
      region = BufferRegion(sb, full);
    } else if (src.kind == K::kPrim && src.obj.as<BufferLoadNode>()) {
      const auto* load = src.obj.as<BufferLoadNode>();
      Array<Range> r;
      for (const PrimExpr& i : load->indices) r.push_back(Range(i, IntImm(i.dtype(), 1)));
      region = BufferRegion(load->buffer, r);
    } else {
      p.Fail(SpanOr(src, span), "T.match_buffer in a block matches a buffer region, e.g. A[vi, 0:16]");
    }
    CheckMatchRegion(p, b, region, span);
    blk->match_buffers.push_back(MatchBufferRegion(b, region));
    return Value::Obj(K::kBuffer, b);
  }
  builder::PrimFuncData* fd = p.tir_.func();
  const VarNode* param = src.kind == K::kPrim ? src.obj.as<VarNode>() : nullptr;
  int64_t index = -1;
  if (fd && param) {
    for (size_t i = 0; i < fd->params.size(); ++i) if (fd->params[i].get() == param) index = static_cast<int64_t>(i);
  }
  if (index < 0) p.Fail(span, "T.match_buffer outside a block matches a T.handle parameter of the function");
  if (fd->buffer_map.count(fd->params[index])) p.Fail(SpanOr(src, span), absl::StrCat("parameter ", param->name, " is already matched to a buffer"));
  fd->buffer_map.Set(fd->params[index], b);
  return Value::Obj(K::kBuffer, b);
}

// TVM's builder: a global/shared/local buffer is placed by the compiler and takes no
// allocated_addr=; a tmem buffer (T.decl_buffer) is addressed only through allocated_addr=.
void CheckAllocatedAddr(Parser& p, const Buffer& b, const std::string& what, bool has_data, const Span& span) {
  const auto* ptr = b->data.defined() && b->data->ty.defined() ? b->data->ty.as<PointerTypeNode>() : nullptr;
  std::string scope = ptr && !ptr->storage_scope.empty() ? ptr->storage_scope : "global";
  if (!b->allocated_addr.empty() && (b->elem_offset.defined() || b->offset_factor != 0 || (has_data && scope != "tmem"))) {
    p.Fail(span, absl::StrCat(what, ": `allocated_addr` can only be used without data=, elem_offset= and offset_factor="));
  }
  if (scope == "tmem" && what == "T.decl_buffer") {
    if (has_data) p.Fail(span, "for `tmem` scope, T.decl_buffer accepts only `allocated_addr`, not data=");
    if (b->allocated_addr.empty()) p.Fail(span, "for `tmem` scope, T.decl_buffer requires `allocated_addr`");
  }
  if ((scope == "global" || scope == "shared" || scope == "shared.dyn" || scope == "local") && !b->allocated_addr.empty()) {
    p.Fail(span, absl::StrCat("for `", scope, "` scope, ", what, " does not accept `allocated_addr`"));
  }
}

// T.alloc_buffer / T.alloc_local / T.alloc_shared: a buffer allocated over the rest of the block.
Value CallAllocBuffer(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  const std::string& name = c.name;
  std::string scope = name == "alloc_local" ? "local" : name == "alloc_shared" ? "shared" : "global";
  Buffer b = p.MakeBuffer(c.FreshName(), a, 0, scope);
  CheckAllocatedAddr(p, b, "T." + name, false, span);
  Map<String, ObjectRef> ann;
  if (const Value* an = Kwarg(a, "annotations")) ann = p.ToAttrMap(*an, span);
  c.NeedBody();
  p.tir_.BeginImplicit([b, ann, span](Stmt body) { return AllocBuffer(b, body, ann, span); });
  return Value::Obj(K::kBuffer, b);
}

// T.decl_buffer(shape, dtype, data=...): a buffer over existing storage (a new one without data=).
Value CallDeclBuffer(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  PrimExpr data_value;
  Buffer b = p.MakeBuffer(c.FreshName(), a, 0, "global", &data_value);
  const Value* data = Arg(a, 2, "data");
  CheckAllocatedAddr(p, b, "T.decl_buffer", data && data->kind != K::kNone, span);
  c.NeedBody();
  if (!data || data->kind == K::kNone) {
    // Without data= the buffer is a new allocation, as in TVM (an AllocBuffer).
    p.tir_.BeginImplicit([b, span](Stmt body) { return AllocBuffer(b, body, {}, span); });
    return Value::Obj(K::kBuffer, b);
  }
  p.tir_.BeginImplicit([b, data_value, span](Stmt body) {
    Stmt decl = DeclBuffer(b, body, span);
    return data_value.defined() ? Stmt(LetStmt(b->data, data_value, decl, span)) : decl;
  });
  return Value::Obj(K::kBuffer, b);
}

// T.sblock_alloc_buffer(...): a buffer allocated by the enclosing block (or an s_tir function's root).
Value CallSBlockAllocBuffer(Parser& p, CallArgs& a, const TirCall& c) {
  Buffer b = p.MakeBuffer(c.FreshName(), a, 0, "global");
  CheckAllocatedAddr(p, b, "T.sblock_alloc_buffer", false, a.span);
  if (builder::BlockData* blk = p.tir_.block()) {
    blk->alloc_buffers.push_back(b);
  } else if (p.tir_.func() && p.tir_.func()->s_tir) {
    p.tir_.func()->root_alloc_buffers.push_back(b);
  } else {
    p.Fail(a.func_span, "T.sblock_alloc_buffer must be used inside a T.sblock (or at the top of an s_tir function)");
  }
  return Value::Obj(K::kBuffer, b);
}

}  // namespace

Buffer Parser::MakeBuffer(const std::string& name, CallArgs& a, size_t first, const std::string& default_scope,
                          PrimExpr* data_value) {
  auto pos = [&](size_t i, const char* kw) { return Arg(a, first + i, kw); };
  const Value* shape_v = pos(0, "shape");
  if (!shape_v) Fail(a.span, "a buffer needs a shape");
  Array<PrimExpr> shape = ToPrimArray(*shape_v, SpanOr(*shape_v, a.span));
  DataType dtype = DataType::Float(32);
  if (const Value* d = pos(1, "dtype")) dtype = ToDType(*d, SpanOr(*d, a.span));
  std::string scope = default_scope;
  if (const Value* sc = pos(5, "scope")) scope = ToStr(*sc, SpanOr(*sc, a.span));
  if (scope.empty()) scope = "global";  // scope="" is the global scope, printed as the default
  Buffer b = Buffer::Make(name.empty() ? "buffer" : name, shape, dtype, scope, a.span);
  BufferNode* n = b.CopyOnWrite();
  if (const Value* data = pos(2, "data")) {
    if (data->kind != K::kNone) {
      PrimExpr dv = ToPrim(*data, SpanOr(*data, a.span));
      if (dv.as<VarNode>()) {
        n->data = Downcast<Var>(dv);
      } else if (data_value && dv.dtype().is_handle()) {
        // data=T.address_of(A[4]): TVM keeps the expression on the DeclBuffer; kiln binds it to
        // the buffer's data variable with a let just outside the declaration.
        n->data = Var(n->name + "_data", PointerType(PrimType(dtype), scope), SpanOr(*data, a.span));
        *data_value = dv;
      } else {
        Fail(SpanOr(*data, a.span), data_value ? "data= must be a pointer (a handle variable such as A.data, or T.address_of(...))"
                                               : "data= must be a handle variable (e.g. A.data)");
      }
    }
  }
  if (const Value* st = pos(3, "strides")) {
    if (st->kind != K::kNone) {
      for (const Value& s : ToSeq(*st, SpanOr(*st, a.span))) {
        if (s.kind == K::kStr) {  // strides=("s0", "s1"): new symbolic variables
          const Value* known = Lookup(s.s);
          Var v = known && known->kind == K::kPrim && known->obj.as<VarNode>() ? Downcast<Var>(known->obj) : Var(s.s, DataType::Int(32), a.span);
          if (!known) Define(s.s, Value::Obj(K::kPrim, v));
          n->strides.push_back(v);
        } else {
          n->strides.push_back(ToPrim(s, SpanOr(s, a.span)));
        }
      }
    }
  }
  if (const Value* eo = pos(4, "elem_offset")) {
    // An explicit elem_offset=0 is the default (an undefined offset means 0): one canonical form,
    // T.int64(0) too: the printer omits a zero offset of any integer type.
    if (eo->kind != K::kNone && !(eo->kind == K::kInt && eo->i == 0)) {
      PrimExpr off = ToPrim(*eo, SpanOr(*eo, a.span));
      const auto* imm = off.as<IntImmNode>();
      if (!imm || imm->value != 0) n->elem_offset = off;
    }
  }
  if (const Value* al = pos(6, "align")) n->data_alignment = static_cast<int32_t>(ToInt(*al, a.span) < 0 ? 0 : ToInt(*al, a.span));
  if (const Value* of = pos(7, "offset_factor")) n->offset_factor = static_cast<int32_t>(ToInt(*of, a.span));
  if (const Value* bt = pos(8, "buffer_type")) {
    std::string t = ToStr(*bt, a.span);
    if (t == "auto") n->buffer_type = BufferKind::kAutoBroadcast;
    else if (t != "" && t != "default") Fail(SpanOr(*bt, a.span), "buffer_type is \"default\" or \"auto\"");
  }
  if (const Value* ax = pos(9, "axis_separators")) {
    if (ax->kind != K::kNone) {
      for (const Value& x : ToSeq(*ax, a.span)) n->axis_separators.push_back(IntImm(DataType::Int(32), ToInt(x, a.span)));
    }
  }
  if (const Value* l = Kwarg(a, "layout")) SetBufferLayout(*l, n, SpanOr(*l, a.span));
  if (const Value* ad = Kwarg(a, "allocated_addr")) {
    // One address or one per dimension of the scope's address space; None = not assigned.
    if (ad->kind != K::kNone) n->allocated_addr = ad->is_seq() ? ToPrimArray(*ad, SpanOr(*ad, a.span)) : Array<PrimExpr>{ToPrim(*ad, SpanOr(*ad, a.span))};
  }
  static const char* kKnown[] = {"shape", "dtype", "data", "strides", "elem_offset", "scope", "align",
                                 "offset_factor", "buffer_type", "axis_separators", "annotations",
                                 "layout", "allocated_addr"};
  for (const auto& [k, v] : a.kwargs) {
    bool ok = false;
    for (const char* known : kKnown) ok |= k == known;
    if (!ok) Fail(SpanOr(v, a.span), absl::StrCat("unexpected keyword argument '", k, "' for a buffer"));
  }
  return b;
}


namespace {

// The vscale factor of a slice whose extent is T.vscale() * k with step 1, or T.vscale() * k * step
// (the extent TVM prints for a scalable Ramp of stride `step`); nullopt for any other extent.
std::optional<int64_t> ScalableSliceLanes(const PrimExpr& extent, int64_t step) {
  if (step == 1) return tir::MatchVScaleLanes(extent);
  const auto* mul = extent.as<MulNode>();
  const auto* by = mul ? mul->b.as<IntImmNode>() : nullptr;
  if (by == nullptr || by->value != step) return std::nullopt;
  return tir::MatchVScaleLanes(mul->a);
}

}  // namespace

Array<PrimExpr> Parser::BufferIndices(const Buffer& b, const std::vector<Value>& given, const Span& span,
                                      bool* has_slice, Array<Range>* region) {
  std::vector<Value> idx = given;
  // As in Python, A[(i, j)] (or A[t] with t a tuple) is A[i, j], and A[()] has no indices.
  if (idx.size() == 1 && idx[0].kind == K::kTuple) idx = std::vector<Value>(given[0].items.begin(), given[0].items.end());
  if (idx.size() != b->shape.size()) {
    Fail(span, absl::StrCat("buffer ", b->name, " is ", b->shape.size(), "-dimensional but is indexed with ",
                            idx.size(), " ", idx.size() == 1 ? "index" : "indices"));
  }
  Array<PrimExpr> out;
  for (size_t d = 0; d < idx.size(); ++d) {
    const Value& v = idx[d];
    if (v.kind == K::kSlice) {
      *has_slice = true;
      PrimExpr lo = v.items[0].kind == K::kNone ? PrimExpr(IntImm(DataType::Int(32), 0)) : ToPrim(v.items[0], SpanOr(v.items[0], span));
      PrimExpr hi = v.items[1].kind == K::kNone ? b->shape[d] : ToPrim(v.items[1], SpanOr(v.items[1], span));
      for (const PrimExpr* bound : {&lo, &hi}) {
        if (!bound->dtype().is_int() && !bound->dtype().is_uint()) {
          Fail(span, absl::StrCat("slice bounds of buffer ", b->name, " must be integers, not ", bound->dtype().ToString()));
        }
      }
      PrimExpr extent;
      const auto* l = lo.as<IntImmNode>();
      const auto* h = hi.as<IntImmNode>();
      const auto* add = hi.as<AddNode>();
      if (l && h) {
        // stop - start in the wider of the two types, as the subtraction would promote (A[2**31:16]).
        extent = IntImm(l->dtype.bits() > h->dtype.bits() ? l->dtype : h->dtype, h->value - l->value);
      } else if (add && StructuralEqual(add->a, lo)) {
        extent = add->b;  // A[i : i + n]: the printer's own spelling of extent n
      } else if (l && l->value == 0 && hi.dtype() == lo.dtype()) {
        extent = hi;  // A[0 : n]: the extent is n itself, so printing gives back the same slice
      } else {
        absl::StatusOr<PrimExpr> e = tir::BinaryOp(tir::BinaryOpKind::kSub, tir::Operand(hi), tir::Operand(lo), span);
        if (!e.ok()) Fail(span, std::string(e.status().message()));
        extent = *e;
      }
      if (region) region->push_back(Range(lo, extent));
      int64_t step = v.items[2].kind == K::kNone ? 1 : ToInt(v.items[2], SpanOr(v.items[2], span));
      if (step == 0) Fail(SpanOr(v.items[2], span), "slice step cannot be zero");
      if (const auto* n = extent.as<IntImmNode>()) {
        // len(range(0, extent, step)), for either sign of step.
        int64_t lanes = step > 0 ? (n->value + step - 1) / step : (n->value + step + 1) / step;
        if (lanes > 1) {
          out.push_back(Ramp(lo, IntImm(lo.dtype(), step), static_cast<int>(lanes)));
        } else {
          out.push_back(lo);
        }
      } else if (std::optional<int64_t> factor = ScalableSliceLanes(extent, step)) {
        // A[lo : lo + T.vscale() * k]: a scalable vector access (how TVM prints one).
        if (*factor < 2 || *factor > 32767) Fail(span, "slice of T.vscale() * k lanes: k must be between 2 and 32767");
        out.push_back(Ramp(lo, IntImm(lo.dtype(), step), static_cast<int>(-*factor)));
      } else {
        out.push_back(lo);
      }
      continue;
    }
    PrimExpr e = ToPrim(v, SpanOr(v, span));
    if (region) region->push_back(Range(e, IntImm(e.dtype().with_lanes(1), 1)));
    out.push_back(e);
  }
  return out;
}

Value Parser::LoadFromBuffer(const Buffer& b, const std::vector<Value>& idx, const Span& span) {
  bool has_slice = false;
  Array<Range> region;
  if (!idx.empty() && idx.size() < b->shape.size() && !(idx.size() == 1 && idx[0].kind == K::kTuple)) {
    // Fewer indices than dimensions (A[0] of a 3-d buffer): TVM's Buffer.__getitem__ slices the
    // rest whole and gives a BufferRegion, a tile primitive's operand rather than a value.
    std::vector<Value> full = idx;
    while (full.size() < b->shape.size()) full.push_back(Value::Seq(K::kSlice, {Value::None(), Value::None(), Value::None()}));
    BufferIndices(b, full, span, &has_slice, &region);
    return Value::Obj(K::kRegion, BufferRegion(b, region));
  }
  Array<PrimExpr> indices = BufferIndices(b, idx, span, &has_slice, &region);
  if (has_slice) {
    Value v = Value::Obj(K::kRegion, BufferRegion(b, region));
    v.items.push_back(Value::Obj(K::kPrim, BufferLoad(b, indices, span)));  // its vector-load reading
    return v;
  }
  return Value::Obj(K::kPrim, BufferLoad(b, indices, span));
}


Value Parser::BufferAccessPtr(const Buffer& b, CallArgs& a) {
  // A.access_ptr(access_mask, ptr_type="handle", content_lanes=1, offset=0, extent=None): the
  // tvm_access_ptr call TVM's Buffer.access_ptr builds.
  const Span& span = a.span;
  static const char* kNames[] = {"access_mask", "ptr_type", "content_lanes", "offset", "extent"};
  for (const auto& [k, v] : a.kwargs) {
    if (std::find(std::begin(kNames), std::end(kNames), k) == std::end(kNames)) {
      Fail(SpanOr(v, span), absl::StrCat("access_ptr: unsupported argument '", k, "'"));
    }
  }
  const Value* mask_v = Arg(a, 0, "access_mask");
  if (!mask_v || a.args.size() > 5) Fail(span, "A.access_ptr(access_mask, ptr_type, content_lanes, offset, extent) needs an access mask");
  int64_t mask = 0;
  if (mask_v->kind == K::kStr) {
    for (char c : mask_v->s) {
      if (c == 'r') mask |= 1;
      else if (c == 'w') mask |= 2;
      else Fail(SpanOr(*mask_v, span), absl::StrCat("unknown access mask \"", mask_v->s, "\""));
    }
  } else {
    mask = ToInt(*mask_v, SpanOr(*mask_v, span));
  }
  if (const Value* pt = Arg(a, 1, "ptr_type")) ToDType(*pt, SpanOr(*pt, span));  // any pointer is a handle
  int64_t lanes = 1;
  if (const Value* cl = Arg(a, 2, "content_lanes")) lanes = ToInt(*cl, SpanOr(*cl, span));
  auto arith = [&](tir::BinaryOpKind k, const tir::Operand& x, const tir::Operand& y) {
    absl::StatusOr<PrimExpr> r = tir::BinaryOp(k, x, y, span);
    if (!r.ok()) Fail(span, std::string(r.status().message()));
    return *r;
  };
  const Value* off_v = Arg(a, 3, "offset");
  tir::Operand offset = off_v && off_v->kind != K::kNone
                            ? (off_v->kind == K::kInt ? tir::Operand::IntLiteral(off_v->i) : tir::Operand(ToPrim(*off_v, SpanOr(*off_v, span))))
                            : tir::Operand::IntLiteral(0);
  PrimExpr extent;
  if (b->shape.empty()) {
    extent = IntImm(DataType::Int(32), 1);
  } else if (b->strides.size() == b->shape.size()) {
    extent = arith(tir::BinaryOpKind::kSub, arith(tir::BinaryOpKind::kMul, b->strides[0], b->shape[0]), offset);
  } else {
    PrimExpr n = IntImm(DataType::Int(32), 1);
    for (const PrimExpr& d : b->shape) n = arith(tir::BinaryOpKind::kMul, n, d);
    extent = arith(tir::BinaryOpKind::kSub, n, offset);
  }
  PrimExpr base = b->elem_offset.defined() ? b->elem_offset : PrimExpr(IntImm(DataType::Int(32), 0));
  PrimExpr elem_offset = arith(tir::BinaryOpKind::kAdd, base, offset);
  DataType elem = b->dtype;
  if (lanes > 1) {
    elem = b->dtype.with_lanes(static_cast<int>(lanes));
    extent = arith(tir::BinaryOpKind::kDiv, extent, tir::Operand::IntLiteral(lanes));
    elem_offset = arith(tir::BinaryOpKind::kDiv, base, tir::Operand::IntLiteral(lanes));
  }
  if (const Value* ex = Arg(a, 4, "extent")) {
    if (ex->kind != K::kNone) extent = ToPrim(*ex, SpanOr(*ex, span));
  }
  Array<PrimExpr> args = {Call(elem, Op("tirx.type_annotation"), {}, span), b->data, elem_offset, extent,
                          IntImm(DataType::Int(32), mask)};
  return Value::Obj(K::kPrim, Call(DataType::Handle(), Op("tirx.tvm_access_ptr"), args, span));
}

Value Parser::CallBufferMethod(const Buffer& b, const std::string& method, CallArgs& a) {
  // A.vload(begin, dtype) / A.vstore(begin, value): a load or store of several lanes starting at
  // `begin`; the last index becomes a Ramp over value_lanes / buffer_lanes elements.
  const Span& span = a.span;
  if (method == "Buffer.access_ptr") return BufferAccessPtr(b, a);
  if (method == "Buffer.ptr_to") return BufferPtrTo(b, a);
  if (method == "Buffer.view") return BufferView(b, a);
  if (method == "Buffer.local") return BufferLocal(b, a);
  if (method == "Buffer.elem_offset_of") return BufferElemOffsetOf(b, a);
  if (method == "Buffer.sub") Fail(span, "A.sub is indexed, not called: A.sub[i, a:b]");
  if (method == "Buffer.tile[]") Fail(span, "A.tile(...) is indexed, not called: A.tile(dim, factors)[picks]");
  if (method == "Buffer.rearrange") return BufferRearrange(b, a);
  if (method == "Buffer.permute") {
    if (!a.kwargs.empty()) Fail(span, "permute takes the dims positionally");
    std::vector<int64_t> dims;
    for (const Value& d : a.args) dims.push_back(ToInt(d, SpanOr(d, span)));
    return BufferPermute(b, dims, a);
  }
  if (method == "Buffer.tile") {
    // A.tile(...) is an indexer: A.tile(...)[picks] makes the view (BufferTile).
    if (!a.kwargs.empty()) Fail(span, "tile takes (dim, factors) specs positionally");
    Value indexer = Value::Name("Buffer.tile[]");
    indexer.obj = b;
    indexer.items = a.args;
    indexer.span = span;
    return indexer;
  }
  bool load = method == "Buffer.vload";
  const Value* begin = Arg(a, 0, "begin");
  const Value* second = Arg(a, 1, load ? "dtype" : "value");
  const Value* predicate = Kwarg(a, "predicate");
  for (const auto& [k, v] : a.kwargs) {
    if (k != "begin" && k != (load ? "dtype" : "value") && k != "predicate") {
      Fail(SpanOr(v, span), absl::StrCat(method.substr(7), ": unsupported argument '", k, "'"));
    }
  }
  if (!begin || (!load && !second) || a.args.size() > 2) {
    Fail(span, load ? "A.vload(begin, dtype) takes the start indices and an optional dtype"
                    : "A.vstore(begin, value) takes the start indices and a value");
  }
  Array<PrimExpr> indices = ToPrimArray(*begin, SpanOr(*begin, span));
  if (indices.size() != b->shape.size()) {
    Fail(SpanOr(*begin, span), absl::StrCat("buffer ", b->name, " is ", b->shape.size(), "-dimensional but ",
                                            indices.size(), " start indices are given"));
  }
  PrimExpr value = load ? PrimExpr() : ToPrimAs(b->dtype, *second, SpanOr(*second, span));
  DataType vt = load ? (second && second->kind != K::kNone ? ToDType(*second, SpanOr(*second, span)) : b->dtype)
                     : value.dtype();
  // A scalable value (vscale * k lanes) fits a buffer of scalars, or of that very dtype.
  bool scalable = vt.is_scalable_vector() || b->dtype.is_scalable_vector();
  if (vt.element_of() != b->dtype.element_of() || vt.lanes() % b->dtype.lanes() != 0 ||
      (scalable && !b->dtype.is_scalar() && vt != b->dtype)) {
    Fail(span, absl::StrCat(method.substr(7), ": ", vt.ToString(), " does not fit buffer ", b->name, " of ",
                            b->dtype.ToString()));
  }
  int factor = vt.lanes() / b->dtype.lanes();  // negative: vscale * -factor lanes
  if (factor != 1 && !indices.empty() && indices.back().dtype().lanes() == 1) {
    PrimExpr last = indices.back();
    indices.Set(indices.size() - 1, Ramp(last, IntImm(last.dtype(), 1), factor, span));
  }
  // predicate=: a bool lane mask; masked-off lanes are neither read nor written.
  PrimExpr mask;
  if (predicate && predicate->kind != K::kNone) mask = ToPrim(*predicate, SpanOr(*predicate, span));
  if (load) {
    BufferLoad l(b, indices, span);
    if (mask.defined()) l.CopyOnWrite()->predicate = mask;
    return Value::Obj(K::kPrim, l);
  }
  BufferStore st(b, value, indices, span);
  if (mask.defined()) st.CopyOnWrite()->predicate = mask;
  tir_.Emit(st);
  return Value::None();
}


void AddTirBufferCalls(TirCallTable* t) {
  for (const char* n : {"Buffer", "buffer"}) t->by_name.emplace(n, &CallBuffer);
  t->by_name.emplace("match_buffer", &CallMatchBuffer);
  for (const char* n : {"alloc_buffer", "alloc_local", "alloc_shared"}) t->by_name.emplace(n, &CallAllocBuffer);
  t->by_name.emplace("decl_buffer", &CallDeclBuffer);
  t->by_name.emplace("sblock_alloc_buffer", &CallSBlockAllocBuffer);
}

}  // namespace kiln::script::parser
