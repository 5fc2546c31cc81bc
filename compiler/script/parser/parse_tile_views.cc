// TVMScript parser, TVM v0.26's derived buffer views (python/tvm/tirx/_buffer_view.py). Each view
// is a T.decl_buffer over the parent's storage (same data, strides, scope and alignment; a tmem
// buffer keeps its allocated_addr instead) with its own shape, layout and elem_offset, and TVM
// emits one DeclBuffer per step, so a view made of several steps nests several declarations:
//  * A.view(dtype): the storage reinterpreted as a wider or narrower dtype (layout pack/unpack);
//  * A.local(*shape, layout=None): what one thread holds of a thread-distributed buffer;
//  * A.permute(*dims), A.rearrange("(a b) c -> a c b", a=2): dims reordered with their layout;
//  * A.sub[i, a:b, c::s], A.tile(dim, factors)[picks]: numpy-style views whose offsets fold into
//    elem_offset through the layout's strides;
//  * A.layout, and a layout's storage() / size() / span() / tile(outer, outer_shape, inner_shape);
//  * A.elem_offset_of(indices): T.buffer_offset(A[indices]), the offset through A's layout.
// The layout algebra itself is compiler/tir/op/tile_layout.
#include <algorithm>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/script/parser/handlers.h"
#include "compiler/tir/op/arith.h"
#include "compiler/tir/op/op.h"
#include "compiler/tir/op/tile_layout.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only

namespace {

PrimExpr Arith(const Parser& p, tir::BinaryOpKind k, const tir::Operand& a, const tir::Operand& b, const Span& span) {
  absl::StatusOr<PrimExpr> r = tir::BinaryOp(k, a, b, span);
  if (!r.ok()) p.Fail(span, std::string(r.status().message()));
  return *r;
}

std::optional<int64_t> ConstInt(const PrimExpr& e) {
  if (const auto* imm = e.as<IntImmNode>()) return imm->value;
  return std::nullopt;
}

template <typename T>
T Check(const Parser& p, absl::StatusOr<T> r, const Span& span) {
  if (!r.ok()) p.Fail(span, std::string(r.status().message()));
  return *std::move(r);
}

// A layout split into its tile layout and the swizzle around it, if any (TVM's _surgery_parts).
struct Surgery {
  TileLayout tile;
  const ComposeLayoutNode* swizzle = nullptr;
};
Surgery SurgeryParts(const Parser& p, const ObjectRef& layout, const std::string& what, const Span& span) {
  if (const auto* c = layout.as<ComposeLayoutNode>()) return {c->tile_layout, c};
  if (const auto* t = layout.as<TileLayoutNode>()) return {Downcast<TileLayout>(layout), nullptr};
  p.Fail(span, absl::StrCat(what, ": the buffer has no layout (layout=None)"));
}
ObjectRef Rewrap(const Surgery& s, TileLayout tile) {
  if (!s.swizzle) return tile;
  auto n = make_object<ComposeLayoutNode>();
  n->per_element = s.swizzle->per_element;
  n->swizzle_len = s.swizzle->swizzle_len;
  n->atom_len = s.swizzle->atom_len;
  n->swizzle_inner = s.swizzle->swizzle_inner;
  n->tile_layout = std::move(tile);
  return ComposeLayout(ObjectPtr<Object>(std::move(n)));
}

Value PrimValue(const PrimExpr& e) { return Value::Obj(K::kPrim, e); }

std::vector<Value> ShapeValues(const Array<PrimExpr>& shape) {
  std::vector<Value> out;
  for (const PrimExpr& d : shape) out.push_back(PrimValue(d));
  return out;
}

bool IsKeep(const Value& v) {
  return v.kind == K::kSlice && v.items[0].kind == K::kNone && v.items[1].kind == K::kNone && v.items[2].kind == K::kNone;
}

// The offset of `index` along one logical dimension carried by the shard iters `group` (mixed
// radix over their extents when there are several).
PrimExpr GroupOffset(const Parser& p, const std::vector<Iter>& group, const PrimExpr& index, const Span& span) {
  using tir::BinaryOpKind;
  if (group.size() == 1) return Arith(p, BinaryOpKind::kMul, index, group[0]->stride, span);
  std::vector<int64_t> extents;
  for (size_t i = 1; i < group.size(); ++i) {
    std::optional<int64_t> e = ConstInt(group[i]->extent);
    if (!e) p.Fail(span, "sub: a dim carried by several layout iters needs constant iter extents");
    extents.push_back(*e);
  }
  PrimExpr offset, remaining = index;
  for (size_t pos = 0; pos < group.size(); ++pos) {
    int64_t inner = 1;
    for (size_t k = pos; k < extents.size(); ++k) inner *= extents[k];
    PrimExpr coord = remaining;
    if (inner != 1) {
      coord = Arith(p, BinaryOpKind::kFloorDiv, remaining, tir::Operand::IntLiteral(inner), span);
      remaining = Arith(p, BinaryOpKind::kFloorMod, remaining, tir::Operand::IntLiteral(inner), span);
    }
    PrimExpr term = Arith(p, BinaryOpKind::kMul, coord, group[pos]->stride, span);
    offset = offset.defined() ? Arith(p, BinaryOpKind::kAdd, offset, term, span) : term;
  }
  return offset;
}

// Whether an element offset may move outside the swizzle (into elem_offset) rather than into the
// layout's "m" offset: it is a multiple of the swizzle's period.
bool SwizzleOffsetCommutes(const ComposeLayoutNode* s, const PrimExpr& offset) {
  if (!s || s->swizzle_len == 0) return true;
  int64_t period = int64_t{1} << (s->per_element + s->atom_len + s->swizzle_len);
  std::optional<int64_t> c = ConstInt(offset);
  return c && *c % period == 0;
}

}  // namespace

ObjectRef Parser::EffectiveLayout(const Buffer& b) {
  if (b->layout.defined()) return b->layout;
  if (b->no_layout) return ObjectRef();
  std::string scope = b->scope();
  bool default_is_none = scope == "trn.sbuf" || scope == "trn.psum" || (tir_.func() && tir_.func()->s_tir);
  return default_is_none ? ObjectRef() : ObjectRef(TileLayout::Default(b->shape));
}

Value Parser::RedeclView(const Buffer& b, std::vector<Value> shape, Value layout, const PrimExpr& elem_offset,
                         const DataType* dtype, const PrimExpr& addr_offset, const CallArgs& a) {
  CallArgs ca;
  ca.span = a.span;
  ca.func_span = a.func_span;
  ca.args = {Value::Seq(K::kTuple, std::move(shape)), Value::Str((dtype ? *dtype : b->dtype).ToString())};
  if (b->scope() == "tmem" && !b->allocated_addr.empty()) {
    // A tmem buffer is addressed by its column: the view moves allocated_addr instead of data.
    PrimExpr addr = b->allocated_addr[0];
    if (addr_offset.defined()) addr = Arith(*this, tir::BinaryOpKind::kAdd, addr, addr_offset, a.span);
    ca.kwargs.emplace_back("allocated_addr", PrimValue(addr));
  } else {
    if (addr_offset.defined()) Fail(a.span, "a tmem column offset on a buffer without allocated_addr");
    ca.kwargs.emplace_back("data", PrimValue(b->data));
    if (!b->strides.empty()) ca.kwargs.emplace_back("strides", Value::Seq(K::kTuple, ShapeValues(b->strides)));
    PrimExpr off = elem_offset.defined() ? elem_offset : b->elem_offset;
    if (off.defined()) ca.kwargs.emplace_back("elem_offset", PrimValue(off));
    if (b->offset_factor != 0) ca.kwargs.emplace_back("offset_factor", Value::Int(b->offset_factor));
  }
  ca.kwargs.emplace_back("scope", Value::Str(b->scope()));
  if (b->data_alignment != 0) ca.kwargs.emplace_back("align", Value::Int(b->data_alignment));
  ca.kwargs.emplace_back("layout", std::move(layout));
  Value v = CallT("decl_buffer", ca);
  v.span = a.span;
  return v;
}

// A.view("float32"): the storage as `dtype`, the last dimension scaled by the width ratio and the
// layout packed (wider) or unpacked (narrower).
Value Parser::BufferViewDType(const Buffer& b, const DataType& dtype, const CallArgs& a) {
  const Span& span = a.span;
  int from = b->dtype.bits(), to = dtype.bits();
  if (b->shape.empty()) Fail(span, "A.view(dtype) needs a buffer with at least one dimension");
  if ((to > from && to % from != 0) || (to <= from && from % to != 0)) {
    Fail(span, absl::StrCat("A.view: ", b->dtype.ToString(), " and ", dtype.ToString(), " widths do not divide"));
  }
  ObjectRef layout = EffectiveLayout(b);
  if (!layout.defined()) Fail(span, "A.view(dtype): the buffer has no layout (layout=None) to pack or unpack");
  bool pack = to > from;
  int64_t ratio = pack ? to / from : from / to;
  ObjectRef l = Check(*this, pack ? tir::PackLayout(layout, ratio) : tir::UnpackLayout(layout, ratio), span);
  using tir::BinaryOpKind;
  BinaryOpKind k = pack ? BinaryOpKind::kFloorDiv : BinaryOpKind::kMul;
  Array<PrimExpr> shape = b->shape;
  shape.Set(shape.size() - 1, Arith(*this, k, shape[shape.size() - 1], tir::Operand::IntLiteral(ratio), span));
  PrimExpr off = b->elem_offset.defined() ? b->elem_offset : PrimExpr(IntImm(DataType::Int(32), 0));
  off = Arith(*this, k, off, tir::Operand::IntLiteral(ratio), span);
  return RedeclView(b, ShapeValues(shape), Value::Obj(K::kLayout, l), off, &dtype, PrimExpr(), a);
}

// A.local(*shape, layout=None): the per-thread storage of a thread-distributed buffer, by
// default one dimension spanning it (gaps included), with the default layout.
Value Parser::BufferLocal(const Buffer& b, CallArgs& a) {
  const Span& span = a.span;
  const Value* layout = nullptr;
  for (const auto& [k, v] : a.kwargs) {
    if (k != "layout") Fail(SpanOr(v, span), absl::StrCat("A.local: unexpected keyword argument '", k, "'"));
    if (v.kind != K::kNone) layout = &v;
  }
  ObjectRef parent = EffectiveLayout(b);
  std::vector<Value> shape = a.args;
  if (shape.empty()) {
    if (!parent.defined()) {
      Fail(span, "Buffer.local cannot infer a shape because the parent buffer has layout=None; pass an explicit shape together with layout=...");
    }
    ObjectRef storage = tir::LayoutStorage(parent);
    shape.push_back(PrimValue(layout ? tir::LayoutSize(storage) : tir::LayoutSpan(storage)));
  } else if (!layout) {
    if (!parent.defined()) {
      Fail(span, "Buffer.local without layout= cannot validate the physical storage span because the parent buffer has layout=None; pass an explicit layout=...");
    }
    PrimExpr span_total = tir::LayoutSpan(tir::LayoutStorage(parent));
    PrimExpr total = IntImm(DataType::Int(32), 1);
    for (const Value& d : shape) total = Arith(*this, tir::BinaryOpKind::kMul, total, ToPrim(d, SpanOr(d, span)), span);
    std::optional<int64_t> t = ConstInt(total), s = ConstInt(span_total);
    if (t && s && *t != *s) {
      Fail(span, absl::StrCat("Local view shape has ", *t, " elements, but the buffer has physical storage span ", *s,
                              " per thread"));
    }
  }
  return RedeclView(b, std::move(shape), layout ? *layout : Value::Str("default"), PrimExpr(), nullptr, PrimExpr(), a);
}

// A.permute(*dims): the dims reordered, each with the shard iters that carry it.
Value Parser::BufferPermute(const Buffer& b, const std::vector<int64_t>& dims, const CallArgs& a) {
  const Span& span = a.span;
  if (dims.size() != b->shape.size()) {
    Fail(span, absl::StrCat("permute: ", dims.size(), " dims given for a buffer of rank ", b->shape.size()));
  }
  Array<PrimExpr> shape;
  for (int64_t d : dims) {
    if (d < 0 || d >= static_cast<int64_t>(b->shape.size())) Fail(span, absl::StrCat("permute: dim ", d, " out of range"));
    shape.push_back(b->shape[d]);
  }
  Surgery s = SurgeryParts(*this, EffectiveLayout(b), "permute", span);
  tir::GroupedLayout g = Check(*this, tir::GroupLayout(s.tile, b->shape), span);
  TileLayout l = Check(*this, tir::PermuteByGroups(g.layout, g.seps, dims), span);
  return RedeclView(b, ShapeValues(shape), Value::Obj(K::kLayout, Rewrap(s, l)), PrimExpr(), nullptr, PrimExpr(), a);
}

// A.view(*shape) keeping A's layout (what rearrange, sub and tile reshape with).
Value Parser::ReshapeView(const Buffer& b, std::vector<Value> shape, const CallArgs& a) {
  CallArgs va;
  va.span = a.span;
  va.func_span = a.func_span;
  va.args = std::move(shape);
  return BufferView(b, va);
}

// A.rearrange("(a b) c -> a c b", a=2): einops-style; a view splitting the groups, a permute and
// a view merging them.
Value Parser::BufferRearrange(const Buffer& b, CallArgs& a) {
  const Span& span = a.span;
  std::string pattern;
  std::vector<std::pair<std::string, int64_t>> sizes;
  bool have_pattern = false;
  if (a.args.size() == 1) {
    pattern = ToStr(a.args[0], SpanOr(a.args[0], span));
    have_pattern = true;
  } else if (!a.args.empty()) {
    Fail(span, "rearrange takes one pattern string and axis sizes as keywords");
  }
  for (const auto& [k, v] : a.kwargs) {
    // The pattern is positional-only in TVM; a keyword `pattern=` is the pattern only when no
    // positional one is given and its value is a string.
    if (k == "pattern" && !have_pattern && v.kind == K::kStr) {
      pattern = v.s;
      have_pattern = true;
      continue;
    }
    sizes.emplace_back(k, ToInt(v, SpanOr(v, span)));
  }
  if (!have_pattern) Fail(span, "rearrange: a pattern string is required");
  size_t arrow = pattern.find("->");
  if (arrow == std::string::npos) Fail(span, absl::StrCat("rearrange: pattern must contain '->', got '", pattern, "'"));
  auto groups = [](const std::string& side) {
    std::vector<std::vector<std::string>> out;
    static const std::regex kGroup(R"(\(([^)]*)\)|(\S+))");
    for (auto it = std::sregex_iterator(side.begin(), side.end(), kGroup); it != std::sregex_iterator(); ++it) {
      std::vector<std::string> names;
      if ((*it)[1].matched) {
        std::string inner = (*it)[1].str();
        static const std::regex kWord(R"(\S+)");
        for (auto w = std::sregex_iterator(inner.begin(), inner.end(), kWord); w != std::sregex_iterator(); ++w) {
          names.push_back(w->str());
        }
      } else {
        names.push_back((*it)[2].str());
      }
      out.push_back(std::move(names));
    }
    return out;
  };
  std::vector<std::vector<std::string>> lhs = groups(pattern.substr(0, arrow)), rhs = groups(pattern.substr(arrow + 2));
  if (lhs.size() != b->shape.size()) {
    Fail(span, absl::StrCat("rearrange: lhs has ", lhs.size(), " groups but buffer has ", b->shape.size(), " dims"));
  }
  auto given = [&](const std::string& axis) -> std::optional<int64_t> {
    for (const auto& [k, v] : sizes) if (k == axis) return v;
    return std::nullopt;
  };
  std::vector<std::pair<std::string, int64_t>> axis_size;
  auto size_of = [&](const std::string& axis) {
    for (const auto& [k, v] : axis_size) if (k == axis) return v;
    Fail(span, absl::StrCat("rearrange: axis '", axis, "' is not on the left-hand side"));
  };
  std::vector<std::string> flat_lhs, flat_rhs;
  for (size_t i = 0; i < lhs.size(); ++i) {
    std::optional<int64_t> dim = ConstInt(b->shape[i]);
    if (!dim) Fail(span, "rearrange needs constant buffer dims");
    int64_t product = 1;
    std::string unknown;
    int unknowns = 0;
    for (const std::string& axis : lhs[i]) {
      if (std::optional<int64_t> s = given(axis)) product *= *s;
      else unknown = axis, ++unknowns;
    }
    if (unknowns > 1) Fail(span, "rearrange: a group has more than one unknown axis; give sizes for all but one");
    if (unknowns == 0 && product != *dim) Fail(span, absl::StrCat("rearrange: group product ", product, " != dim ", *dim));
    if (unknowns == 1 && (product == 0 || *dim % product != 0)) {
      Fail(span, absl::StrCat("rearrange: dim ", *dim, " not divisible by known product ", product));
    }
    for (const std::string& axis : lhs[i]) {
      axis_size.emplace_back(axis, axis == unknown ? *dim / product : *given(axis));
      flat_lhs.push_back(axis);
    }
  }
  for (const auto& g : rhs) for (const std::string& axis : g) flat_rhs.push_back(axis);
  std::vector<std::string> sl = flat_lhs, sr = flat_rhs;
  std::sort(sl.begin(), sl.end());
  std::sort(sr.begin(), sr.end());
  if (sl != sr) Fail(span, absl::StrCat("rearrange: the axes of the two sides differ (pattern '", pattern, "')"));
  std::vector<Value> split;
  for (const std::string& axis : flat_lhs) split.push_back(Value::Int(size_of(axis)));
  Buffer out = Downcast<Buffer>(ReshapeView(b, std::move(split), a).obj);
  std::vector<int64_t> perm;
  for (const std::string& axis : flat_rhs) {
    perm.push_back(std::find(flat_lhs.begin(), flat_lhs.end(), axis) - flat_lhs.begin());
  }
  out = Downcast<Buffer>(BufferPermute(out, perm, a).obj);
  std::vector<Value> merged;
  for (const auto& g : rhs) {
    int64_t size = 1;
    for (const std::string& axis : g) size *= size_of(axis);
    merged.push_back(Value::Int(size));
  }
  return ReshapeView(out, std::move(merged), a);
}

// A view with shard `shard` over A's grouped layout, `extra` elements further (TVM's
// _rebuild_view): the offset goes to elem_offset, or into the layout's "m" offset where it does
// not commute with the swizzle.
Value Parser::RebuildView(const Buffer& b, std::vector<Value> shape, const Array<Iter>& shard, const TileLayout& grouped,
                          const ComposeLayoutNode* swizzle, PrimExpr extra, const CallArgs& a) {
  const Span& span = a.span;
  Map<String, PrimExpr> offset = grouped->offset;
  bool tmem = b->scope() == "tmem" && !b->allocated_addr.empty();
  if (!tmem && !SwizzleOffsetCommutes(swizzle, extra)) {
    PrimExpr prev = offset.Get(String("m"));
    offset.Set(String("m"), prev.defined() ? Arith(*this, tir::BinaryOpKind::kAdd, prev, extra, span) : extra);
    extra = PrimExpr();
  }
  ObjectRef layout = Rewrap({TileLayout(), swizzle}, TileLayout(shard, grouped->replica, offset, grouped->span));
  Value l = Value::Obj(K::kLayout, layout);
  if (tmem) {
    PrimExpr column;
    if (extra.defined()) {
      // An element offset along TCol moves allocated_addr by whole 32-bit columns.
      PrimExpr bits = Arith(*this, tir::BinaryOpKind::kMul, extra, tir::Operand::IntLiteral(b->dtype.bits()), span);
      std::optional<int64_t> c = ConstInt(bits);
      if (!c || *c % 32 != 0) Fail(span, "sub: a tmem TCol offset must be a constant multiple of a 32-bit column");
      column = IntImm(DataType::Int(32), *c / 32);
    }
    return RedeclView(b, std::move(shape), l, PrimExpr(), nullptr, column, a);
  }
  PrimExpr base = b->elem_offset.defined() ? b->elem_offset : PrimExpr(IntImm(DataType::Int(32), 0));
  PrimExpr elem_offset = extra.defined() ? Arith(*this, tir::BinaryOpKind::kAdd, base, extra, span) : b->elem_offset;
  return RedeclView(b, std::move(shape), l, elem_offset, nullptr, PrimExpr(), a);
}

namespace {

// A tmem view may move its column address only along TCol iters.
void CheckTmemOffsetAxis(const Parser& p, const Buffer& b, const std::vector<Iter>& group, std::optional<int64_t> start,
                         const Span& span) {
  if (b->scope() != "tmem" || b->allocated_addr.empty() || (start && *start == 0)) return;
  for (const Iter& it : group) {
    if (it->axis != "TCol") {
      p.Fail(span, absl::StrCat("sub: a tmem view with a nonzero offset needs TCol-stride layout iters; this dim's iter has axis '",
                                it->axis, "'"));
    }
  }
}

}  // namespace

// Drops dimension `dim` at `index` (an int pick of A.sub / A.tile).
Value Parser::ViewDrop(const Buffer& b, size_t dim, const PrimExpr& index, const CallArgs& a) {
  const Span& span = a.span;
  std::optional<int64_t> i = ConstInt(index), extent = ConstInt(b->shape[dim]);
  if (i && (*i < 0 || (extent && *i >= *extent))) {
    Fail(span, absl::StrCat("index ", *i, " out of range for dim ", dim, " of extent ", extent ? *extent : -1));
  }
  Surgery s = SurgeryParts(*this, EffectiveLayout(b), "sub", span);
  tir::GroupedLayout g = Check(*this, tir::GroupLayout(s.tile, b->shape), span);
  std::vector<Iter> iters(g.layout->shard.begin(), g.layout->shard.end());
  std::vector<Iter> group(iters.begin() + g.seps[dim], iters.begin() + g.seps[dim + 1]);
  CheckTmemOffsetAxis(*this, b, group, i, span);
  PrimExpr offset = group.empty() ? PrimExpr(IntImm(index.dtype(), 0)) : GroupOffset(*this, group, index, span);
  std::vector<Value> shape;
  for (size_t k = 0; k < b->shape.size(); ++k) if (k != dim) shape.push_back(PrimValue(b->shape[k]));
  Array<Iter> shard;
  for (size_t k = 0; k < iters.size(); ++k) if (k < g.seps[dim] || k >= g.seps[dim + 1]) shard.push_back(iters[k]);
  return RebuildView(b, std::move(shape), shard, g.layout, s.swizzle, offset, a);
}

// Narrows dimension `dim` to [start, start + length) (a slice of A.sub).
Value Parser::ViewNarrow(const Buffer& b, size_t dim, const PrimExpr& start, const PrimExpr& length, const CallArgs& a) {
  const Span& span = a.span;
  std::optional<int64_t> s0 = ConstInt(start), len = ConstInt(length), extent = ConstInt(b->shape[dim]);
  if (s0 && *s0 < 0) Fail(span, absl::StrCat("sub: start ", *s0, " must be non-negative"));
  if (len && *len < 1) Fail(span, absl::StrCat("sub: length ", *len, " must be positive"));
  if (s0 && len && extent && *s0 + *len > *extent) {
    Fail(span, absl::StrCat("sub: range [", *s0, ", ", *s0 + *len, ") exceeds dim ", dim, " extent ", *extent));
  }
  Surgery s = SurgeryParts(*this, EffectiveLayout(b), "sub", span);
  tir::GroupedLayout g = Check(*this, tir::GroupLayout(s.tile, b->shape), span);
  std::vector<Iter> iters(g.layout->shard.begin(), g.layout->shard.end());
  size_t lo = g.seps[dim], hi = g.seps[dim + 1];
  std::vector<Iter> group(iters.begin() + lo, iters.begin() + hi);
  if (group.empty()) Fail(span, "sub: cannot narrow a dim of extent 1");
  PrimExpr offset;
  std::vector<Iter> narrowed;
  using tir::BinaryOpKind;
  if (group.size() == 1) {
    CheckTmemOffsetAxis(*this, b, group, s0, span);
    offset = Arith(*this, BinaryOpKind::kMul, start, group[0]->stride, span);
    narrowed.push_back(Iter(length, group[0]->stride, group[0]->axis));
  } else {
    int64_t inner = 1;
    for (size_t k = 1; k < group.size(); ++k) {
      std::optional<int64_t> e = ConstInt(group[k]->extent);
      if (!e) Fail(span, "sub: dim with multiple layout iters requires concrete iter extents");
      inner *= *e;
    }
    if (!s0 || !len) Fail(span, absl::StrCat("sub: dim ", dim, " is made of ", group.size(), " layout iters; start/length must be concrete multiples of ", inner));
    if (*s0 % inner != 0 || *len % inner != 0) {
      Fail(span, absl::StrCat("sub: dim ", dim, " start/length must be multiples of the inner iter block ", inner,
                              "; got start=", *s0, " length=", *len));
    }
    CheckTmemOffsetAxis(*this, b, {group[0]}, *s0 / inner, span);
    offset = Arith(*this, BinaryOpKind::kMul, tir::Operand::IntLiteral(*s0 / inner), group[0]->stride, span);
    narrowed.push_back(Iter(IntImm(length.dtype(), *len / inner), group[0]->stride, group[0]->axis));
    narrowed.insert(narrowed.end(), group.begin() + 1, group.end());
  }
  std::vector<Value> shape = ShapeValues(b->shape);
  shape[dim] = PrimValue(length);
  Array<Iter> shard;
  for (size_t k = 0; k < lo; ++k) shard.push_back(iters[k]);
  for (const Iter& it : narrowed) shard.push_back(it);
  for (size_t k = hi; k < iters.size(); ++k) shard.push_back(iters[k]);
  return RebuildView(b, std::move(shape), shard, g.layout, s.swizzle, offset, a);
}

// A.sub[...]: numpy basic indexing as a view: an int drops its dim, a:b narrows it, a::s keeps
// every s-th index from a.
Value Parser::BufferSub(const Buffer& b0, const std::vector<Value>& idx, const Span& span) {
  CallArgs a;
  a.span = span;
  a.func_span = span;
  if (idx.size() > b0->shape.size()) Fail(span, absl::StrCat("sub: ", idx.size(), " indices for buffer of rank ", b0->shape.size()));
  Buffer b = b0;
  Value out = Value::Obj(K::kBuffer, b0);
  size_t dim = 0;
  using tir::BinaryOpKind;
  for (const Value& item : idx) {
    Span is = SpanOr(item, span);
    if (item.kind != K::kSlice) {
      out = ViewDrop(b, dim, ToPrim(item, is), a);
      b = Downcast<Buffer>(out.obj);
      continue;
    }
    const Value &lo = item.items[0], &hi = item.items[1], &step = item.items[2];
    if (step.kind == K::kNone || (step.kind == K::kInt && step.i == 1)) {
      if (lo.kind == K::kNone && hi.kind == K::kNone) {
        ++dim;
        continue;
      }
      PrimExpr start = lo.kind == K::kNone ? PrimExpr(IntImm(DataType::Int(32), 0)) : ToPrim(lo, is);
      PrimExpr stop = hi.kind == K::kNone ? b->shape[dim] : ToPrim(hi, is);
      out = ViewNarrow(b, dim, start, Arith(*this, BinaryOpKind::kSub, stop, start, is), a);
      b = Downcast<Buffer>(out.obj);
      ++dim;
      continue;
    }
    if (step.kind != K::kInt || step.i <= 0) Fail(is, "sub: step must be a positive int");
    if (hi.kind != K::kNone) Fail(is, "sub: a stop bound with a step is not supported");
    std::optional<int64_t> extent = ConstInt(b->shape[dim]);
    if (!extent) Fail(is, "sub: a stepped slice requires a concrete dim extent");
    if (*extent % step.i != 0) Fail(is, absl::StrCat("sub: dim extent ", *extent, " is not divisible by step ", step.i));
    PrimExpr start = lo.kind == K::kNone ? PrimExpr(IntImm(DataType::Int(32), 0)) : ToPrim(lo, is);
    std::optional<int64_t> s0 = ConstInt(start);
    if (s0 && (*s0 < 0 || *s0 >= step.i)) Fail(is, absl::StrCat("sub: stepped-slice start ", *s0, " must be in [0, ", step.i, ")"));
    std::vector<Value> split;
    for (size_t k = 0; k < dim; ++k) split.push_back(PrimValue(b->shape[k]));
    split.push_back(Value::Int(*extent / step.i));
    split.push_back(Value::Int(step.i));
    for (size_t k = dim + 1; k < b->shape.size(); ++k) split.push_back(PrimValue(b->shape[k]));
    Buffer s = Downcast<Buffer>(ReshapeView(b, std::move(split), a).obj);
    out = ViewDrop(s, dim + 1, start, a);
    b = Downcast<Buffer>(out.obj);
    ++dim;
  }
  return out;
}

// A.tile(dim, factors)[picks] / A.tile((dim, factors), ...)[picks]: each tiled dim is split into
// its factors, the picked ones are dropped and two or more kept factors merge back into one dim.
Value Parser::BufferTile(const Buffer& b0, const Value& specs_v, const std::vector<Value>& picks, const Span& span) {
  CallArgs a;
  a.span = span;
  a.func_span = span;
  struct Spec {
    size_t dim;
    std::vector<Value> factors;
  };
  std::vector<Value> raw = specs_v.items;
  if (!raw.empty() && raw[0].kind == K::kInt) {
    if (raw.size() != 2) Fail(span, "tile(dim, factors) takes a dim and a factors tuple");
    raw = {Value::Seq(K::kTuple, raw)};
  }
  std::vector<Spec> specs;
  size_t rank = b0->shape.size();
  for (const Value& s : raw) {
    if (!s.is_seq() || s.items.size() != 2) Fail(span, "tile: each spec must be (dim, factors)");
    int64_t d = ToInt(s.items[0], span);
    if (d < 0) d += static_cast<int64_t>(rank);
    if (d < 0 || d >= static_cast<int64_t>(rank)) Fail(span, absl::StrCat("tile: dim ", d, " out of range for buffer of rank ", rank));
    for (const Spec& o : specs) if (o.dim == static_cast<size_t>(d)) Fail(span, absl::StrCat("tile: dim ", d, " tiled more than once"));
    if (!s.items[1].is_seq() || s.items[1].items.empty()) Fail(span, absl::StrCat("tile: factors for dim ", d, " must be a non-empty tuple"));
    specs.push_back({static_cast<size_t>(d), s.items[1].items});
  }
  size_t n_factors = 0;
  for (const Spec& s : specs) n_factors += s.factors.size();
  if (picks.size() != n_factors) {
    Fail(span, absl::StrCat("tile: split into ", n_factors, " factor(s) but ", picks.size(),
                            " index(es) given (int/Expr picks, ':' keeps)"));
  }
  std::vector<std::pair<const Spec*, std::vector<Value>>> groups;
  size_t pos = 0;
  for (const Spec& s : specs) {
    groups.emplace_back(&s, std::vector<Value>(picks.begin() + pos, picks.begin() + pos + s.factors.size()));
    pos += s.factors.size();
  }
  std::stable_sort(groups.begin(), groups.end(), [](const auto& x, const auto& y) { return x.first->dim > y.first->dim; });
  Buffer b = b0;
  Value out = Value::Obj(K::kBuffer, b0);
  for (const auto& [spec, dim_picks] : groups) {
    size_t keep = 0;
    for (const Value& p : dim_picks) {
      if (p.kind == K::kSlice && !IsKeep(p)) Fail(span, "tile: a factor slice must be ':' (keep whole); got a sub-slice");
      if (IsKeep(p)) ++keep;
    }
    if (keep == dim_picks.size()) {
      Fail(span, absl::StrCat("tile: dim ", spec->dim, " picks no factor (all ':'); a chunk must pick at least one factor"));
    }
    size_t dim = spec->dim;
    std::vector<Value> split;
    for (size_t k = 0; k < dim; ++k) split.push_back(PrimValue(b->shape[k]));
    for (const Value& f : spec->factors) split.push_back(f);
    for (size_t k = dim + 1; k < b->shape.size(); ++k) split.push_back(PrimValue(b->shape[k]));
    out = ReshapeView(b, std::move(split), a);
    b = Downcast<Buffer>(out.obj);
    for (size_t k = dim_picks.size(); k-- > 0;) {
      if (IsKeep(dim_picks[k])) continue;
      out = ViewDrop(b, dim + k, ToPrim(dim_picks[k], SpanOr(dim_picks[k], span)), a);
      b = Downcast<Buffer>(out.obj);
    }
    if (keep >= 2) {
      std::vector<Value> merged;
      for (size_t k = 0; k < dim; ++k) merged.push_back(PrimValue(b->shape[k]));
      merged.push_back(Value::Int(-1));
      for (size_t k = dim + keep; k < b->shape.size(); ++k) merged.push_back(PrimValue(b->shape[k]));
      out = ReshapeView(b, std::move(merged), a);
      b = Downcast<Buffer>(out.obj);
    }
  }
  return out;
}

// A.elem_offset_of(indices, inner=True): the element offset of A[indices] through A's layout, as
// T.buffer_offset(A[indices]) (TVM resolves it when it lowers the layout); inner=False adds A's
// elem_offset.
Value Parser::BufferElemOffsetOf(const Buffer& b, CallArgs& a) {
  const Span& span = a.span;
  const Value* indices = Arg(a, 0, "indices");
  const Value* inner = Arg(a, 1, "inner");
  for (const auto& [k, v] : a.kwargs) {
    if (k != "indices" && k != "inner") Fail(SpanOr(v, span), absl::StrCat("elem_offset_of: unexpected keyword argument '", k, "'"));
  }
  if (!indices || a.args.size() > 2) Fail(span, "A.elem_offset_of(indices, inner=True) takes a list of indices");
  std::vector<Value> idx = indices->is_seq() ? indices->items : std::vector<Value>{*indices};
  Array<PrimExpr> at;
  for (const Value& i : idx) at.push_back(ToPrim(i, SpanOr(i, span)));
  if (at.size() != b->shape.size()) {
    Fail(span, absl::StrCat("elem_offset_of: buffer ", b->name, " is ", b->shape.size(), "-dimensional but ", at.size(),
                            " indices are given"));
  }
  PrimExpr offset = Call(DataType::Int(32), Op("tirx.buffer_offset"), {BufferLoad(b, at, span)}, span);
  if (inner && !ToBool(*inner, SpanOr(*inner, span))) {
    PrimExpr base = b->elem_offset.defined() ? b->elem_offset : PrimExpr(IntImm(DataType::Int(32), 0));
    offset = Arith(*this, tir::BinaryOpKind::kAdd, base, offset, span);
  }
  return PrimValue(offset);
}

// layout.storage() / layout.size() / layout.span(), and layout.tile(outer, outer_shape,
// inner_shape).
Value Parser::CallLayoutMethod(const ObjectRef& layout, const std::string& method, CallArgs& a) {
  if (method == "Layout.tile") {
    const Span& span = a.span;
    const Value* outer = Arg(a, 0, "outer");
    const Value* outer_shape = Arg(a, 1, "outer_shape");
    const Value* inner_shape = Arg(a, 2, "inner_shape");
    if (!outer || !outer_shape || !inner_shape || a.args.size() > 3 || a.args.size() + a.kwargs.size() != 3) {
      Fail(span, "layout.tile(outer, outer_shape, inner_shape)");
    }
    const auto* tile = layout.as<TileLayoutNode>();
    if (!tile) Fail(span, "layout.tile: tiling a T.ComposeLayout is not supported yet");
    if (outer->kind != K::kLayout || !outer->obj.as<TileLayoutNode>()) Fail(SpanOr(*outer, span), "layout.tile: the outer layout must be a T.TileLayout");
    TileLayout t = Check(*this,
                         tir::TileLayoutBy(Downcast<TileLayout>(layout), Downcast<TileLayout>(outer->obj),
                                           ToPrimArray(*outer_shape, SpanOr(*outer_shape, span)),
                                           ToPrimArray(*inner_shape, SpanOr(*inner_shape, span))),
                         span);
    return Value::Obj(K::kLayout, t);
  }
  if (!a.args.empty() || !a.kwargs.empty()) {
    if (method != "Layout.size" && method != "Layout.span") Fail(a.span, absl::StrCat(method.substr(7), "() takes no arguments"));
    Fail(a.span, absl::StrCat(method.substr(7), "(axis) is supported without an axis only"));
  }
  if (method == "Layout.storage") return Value::Obj(K::kLayout, tir::LayoutStorage(layout));
  if (method == "Layout.size") return PrimValue(tir::LayoutSize(layout));
  return PrimValue(tir::LayoutSpan(layout));
}

}  // namespace kiln::script::parser
