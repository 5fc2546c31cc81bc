// The random TIR program generator (see program_gen.h for what it produces and why it is defined
// behaviour). One Generator per program; every random choice comes from the program's seed.
#include "tests/diff/program_gen.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "absl/strings/str_cat.h"
#include "compiler/tir/functor.h"

namespace kiln::difftest {
namespace {

using namespace ir;  // NOLINT

const DataType kElemTypes[] = {
    DataType::Int(8),   DataType::Int(16),   DataType::Int(32),   DataType::Int(64),
    DataType::UInt(8),  DataType::UInt(16),  DataType::UInt(32),  DataType::UInt(64),
    DataType::Float(16), DataType::Float(32), DataType::Float(64), DataType::Bool(),
};

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }

// Mantissa precision (bits, implicit one included) and largest finite value of a float type.
int Precision(DataType t) { return t.bits() == 16 ? 11 : t.bits() == 32 ? 24 : 53; }
double MaxFinite(DataType t) {
  return t.bits() == 16 ? 65504.0 : t.bits() == 32 ? std::numeric_limits<float>::max()
                                                   : std::numeric_limits<double>::max();
}

// The range [lo, hi] of float type `from` whose values convert to integer type `to` without
// overflow: the extremes of `to` rounded inwards to values `from` represents exactly. (2^k - 1
// itself is not representable once k exceeds the precision; the largest float below it is
// 2^k - 2^(k - precision).)
std::pair<double, double> CastableRange(DataType from, DataType to) {
  int k = to.is_int() ? to.bits() - 1 : to.bits();
  int p = Precision(from);
  double hi = k <= p ? std::ldexp(1.0, k) - 1 : std::ldexp(1.0, k) - std::ldexp(1.0, k - p);
  double lo = to.is_int() ? -std::ldexp(1.0, k) : 0.0;
  return {std::max(lo, -MaxFinite(from)), std::min(hi, MaxFinite(from))};
}

int64_t IntMin(DataType t) { return t.is_int() ? -(int64_t{1} << (t.bits() - 2)) * 2 : 0; }
// The largest value of t as its int64 bit pattern (uint64's is -1).
int64_t IntMax(DataType t) {
  if (t.bits() == 64) return t.is_int() ? std::numeric_limits<int64_t>::max() : -1;
  return t.is_int() ? (int64_t{1} << (t.bits() - 1)) - 1 : (int64_t{1} << t.bits()) - 1;
}

bool ContainsLet(const PrimExpr& e) {
  struct Finder : StmtExprVisitor {
    bool found = false;
    void VisitExpr_(const LetNode*) override { found = true; }
  } finder;
  finder.VisitExpr(e);
  return finder.found;
}

enum class Layout { k2D, kRows, kCols, kFlat };  // [i, j], [i], [j], [i * N1 + j]

struct Input {
  Buffer buf;
  ArgSpec spec;
  Layout layout;
  bool reversed;  // 2-D: index j as N1 - 1 - j
};

struct LetVar {
  Var var;
  bool math;  // its value uses transcendental math
};

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) { program_.seed = seed; }

  Program Run() {
    program_.name = absl::StrCat("p", program_.seed);
    reduce_ = Coin(0.3);
    outer_kind_ = Coin(0.3) ? ForKind::kParallel : ForKind::kSerial;
    if (reduce_) {
      inner_kind_ = Coin(0.2) ? ForKind::kUnrolled : ForKind::kSerial;
    } else {
      int r = Uniform(0, 99);
      inner_kind_ = r < 35 ? ForKind::kVectorized : r < 50 ? ForKind::kUnrolled : r < 55 ? ForKind::kParallel
                                                                                       : ForKind::kSerial;
    }
    if (outer_kind_ == ForKind::kSerial && Coin(0.1)) outer_kind_ = ForKind::kUnrolled;
    n0_ = Uniform(1, outer_kind_ == ForKind::kUnrolled ? 6 : 12);
    n1_ = inner_kind_ == ForKind::kVectorized ? (2 << Uniform(0, 3)) : Uniform(1, 12);
    i_ = Var("i", DataType::Int(32));
    j_ = Var(reduce_ ? "k" : "j", DataType::Int(32));
    // Drawn from its own stream so that every other program of a seed stays what it was.
    std::mt19937_64 side_rng(program_.seed ^ 0x5f3759dfULL);
    if (!reduce_ && std::bernoulli_distribution(0.25)(side_rng)) {
      n_ = Var("n", DataType::Int(32));
    }

    int num_inputs = Uniform(1, 3);
    for (int n = 0; n < num_inputs; ++n) AddInput(absl::StrCat("A", n));
    int num_scalars = Uniform(0, 2);
    for (int n = 0; n < num_scalars; ++n) AddScalar(absl::StrCat("s", n));
    Stmt body = reduce_ ? ReduceBody() : ElementwiseBody();

    Map<String, ObjectRef> attrs;
    attrs.Set(String("global_symbol"), String(program_.name));
    program_.func = PrimFunc(params_, body, Type(), buffer_map_, attrs);
    return program_;
  }

 private:
  // ---- randomness ----
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Coin(double p) { return std::bernoulli_distribution(p)(rng_); }
  DataType AnyType() { return kElemTypes[Uniform(0, 11)]; }
  DataType NumericType() { return kElemTypes[Uniform(0, 10)]; }
  DataType IntType() { return kElemTypes[Uniform(0, 7)]; }
  DataType FloatType() { return kElemTypes[Uniform(8, 10)]; }

  // ---- parameters ----
  void AddInput(const std::string& name) {
    Input in;
    in.spec.name = name;
    in.spec.dtype = AnyType();
    int r = Uniform(0, 9);
    in.layout = r < 5 ? Layout::k2D : r < 7 ? Layout::kRows : r < 9 ? Layout::kCols : Layout::kFlat;
    // A symbolic n is bound from the first bare `n` in a shape; n0 * n binds nothing.
    if (n_.defined() && in.layout == Layout::kFlat) in.layout = Layout::k2D;
    in.reversed = in.layout == Layout::k2D && Coin(0.25);
    Array<PrimExpr> shape;
    switch (in.layout) {
      case Layout::k2D: in.spec.shape = {n0_, n1_}; shape = {I32(n0_), N1()}; break;
      case Layout::kRows: in.spec.shape = {n0_}; shape = {I32(n0_)}; break;
      case Layout::kCols: in.spec.shape = {n1_}; shape = {N1()}; break;
      case Layout::kFlat: in.spec.shape = {n0_ * n1_}; shape = {I32(n0_ * n1_)}; break;
    }
    in.buf = MakeParamBuffer(&in.spec, shape, /*allow_layout=*/true);
    inputs_.push_back(in);
  }

  // Declares a buffer param for `spec` (shape and dtype set), maybe with padded row strides and an
  // element offset (constant or a variable bound from the DLTensor's byte_offset).
  // `shape` is the declared shape: spec->shape, with the symbolic n where n1 stands for it.
  Buffer MakeParamBuffer(ArgSpec* spec, const Array<PrimExpr>& shape, bool allow_layout) {
    Buffer b = Buffer::Make(spec->name, shape, spec->dtype);
    if (allow_layout && spec->shape.size() == 2 && Coin(0.3)) {
      spec->strides = {spec->shape[1] + Uniform(1, 5), 1};
      b.CopyOnWrite()->strides = {I32(spec->strides[0]), I32(1)};
    }
    if (allow_layout && Coin(0.25)) {
      spec->elem_offset = Uniform(1, 9);
      if (Coin(0.5)) {
        b.CopyOnWrite()->elem_offset = I32(spec->elem_offset);
      } else {
        b.CopyOnWrite()->elem_offset = Var(spec->name + "_elem_offset", DataType::Int(32));
      }
    }
    Var handle(spec->name + "_handle", DataType::Handle());
    params_.push_back(handle);
    buffer_map_.Set(handle, b);
    program_.args.push_back(*spec);
    return b;
  }

  void AddScalar(const std::string& name) {
    static const DataType kScalarTypes[] = {DataType::Int(32), DataType::Int(64), DataType::Float(32),
                                            DataType::Float(64), DataType::Bool()};
    ArgSpec spec;
    spec.name = name;
    spec.is_buffer = false;
    spec.dtype = kScalarTypes[Uniform(0, 4)];
    Var v(name, spec.dtype);
    params_.push_back(v);
    scalars_.push_back(v);
    program_.args.push_back(spec);
  }

  Buffer AddOutput(const std::string& name, DataType t, std::vector<int64_t> shape,
                   Array<PrimExpr> declared = {}) {
    ArgSpec spec;
    spec.name = name;
    spec.dtype = t;
    spec.shape = std::move(shape);
    spec.is_output = true;
    if (declared.empty()) {
      for (int64_t d : spec.shape) declared.push_back(I32(d));
    }
    return MakeParamBuffer(&spec, declared, /*allow_layout=*/true);
  }

  // ---- statements ----
  // for i: [let] for j: [if c:] Out0[i, j] = e ... [else ...]
  Stmt ElementwiseBody() {
    int num_outputs = Uniform(1, 2);
    bool flat = Coin(0.2) && !n_.defined();
    std::vector<Buffer> outs;
    for (int n = 0; n < num_outputs; ++n) {
      DataType t = AnyType();
      outs.push_back(flat ? AddOutput(absl::StrCat("Out", n), t, {n0_ * n1_})
                          : AddOutput(absl::StrCat("Out", n), t, {n0_, n1_}, {I32(n0_), N1()}));
    }
    // An outer let (depends on i only); it keeps the inner loop vectorizable.
    Var outer_let;
    PrimExpr outer_value;
    if (Coin(0.25)) {
      DataType t = NumericType();
      int before = math_count_;
      outer_value = WithoutInner([&] { return Gen(t, 2, true); });
      outer_let = Var(absl::StrCat("t", names_++), t);
      lets_.push_back({outer_let, math_count_ > before});
    }
    auto index = [&](const Buffer& b) -> Array<PrimExpr> {
      if (b->shape.size() == 1) return {Add(Mul(i_, I32(n1_)), j_)};
      return {i_, j_};
    };
    std::vector<Stmt> stores;
    for (const Buffer& out : outs) stores.push_back(Store(out, index(out)));
    bool vector = inner_kind_ == ForKind::kVectorized;
    if (Coin(vector ? 0.1 : 0.3)) {
      std::vector<Stmt> alt;
      for (const Buffer& out : outs) alt.push_back(Store(out, index(out)));
      PrimExpr cond = Gen(DataType::Bool(), 2, false);
      stores = {IfThenElse(cond, SeqStmt::Flatten(stores), Coin(0.7) ? SeqStmt::Flatten(alt) : Stmt())};
    }
    Stmt inner = n_.defined() ? TiledLikelyLoop(SeqStmt::Flatten(stores))
                              : For(j_, I32(0), I32(n1_), inner_kind_, SeqStmt::Flatten(stores));
    if (outer_let.defined()) inner = LetStmt(outer_let, outer_value, inner);
    return For(i_, I32(0), I32(n0_), outer_kind_, inner);
  }

  // With a symbolic n: the j loop tiled by a constant the way a schedule tiles a dimension it
  // cannot divide, the bounds guard marked likely (what LoopPartition splits off):
  //   for jo in range(ceildiv(n, t)): for ji in range(t): if T.likely(jo * t + ji < n): j = ...
  Stmt TiledLikelyLoop(Stmt body) {
    int64_t t = inner_kind_ == ForKind::kVectorized ? (2 << Uniform(0, 2)) : Uniform(2, 6);
    Var jo("jo", DataType::Int(32)), ji("ji", DataType::Int(32));
    PrimExpr j = Add(Mul(jo, I32(t)), ji);
    Stmt guarded = IfThenElse(Call(DataType::Bool(), Op("tirx.likely"), {LT(j, n_)}), LetStmt(j_, j, body));
    Stmt inner = For(ji, I32(0), I32(t), inner_kind_, guarded);
    return For(jo, I32(0), FloorDiv(Add(n_, I32(t - 1)), I32(t)), ForKind::kSerial, inner);
  }

  // The inner extent as the program declares it: the symbolic n or the constant n1.
  PrimExpr N1() const { return n_.defined() ? PrimExpr(n_) : PrimExpr(I32(n1_)); }

  // Out[i] = e; or: Out[i] = Out[i] <op> e (reads the previous contents).
  Stmt Store(const Buffer& out, Array<PrimExpr> index) {
    DataType t = out->dtype;
    PrimExpr v = Gen(t, Uniform(1, 3), true);
    if (Coin(0.2)) v = Combine(BufferLoad(out, index), v);
    return BufferStore(out, v, index);
  }

  // for i: acc = alloc((1,)); acc[0] = init; for k: acc[0] = acc[0] <op> e; Out[i] = acc[0]
  Stmt ReduceBody() {
    DataType t = AnyType();
    Buffer out = AddOutput("Out0", t, {n0_});
    Buffer acc = Buffer::Make("acc", {I32(1)}, t, Coin(0.5) ? "local" : "global");
    Stmt init = BufferStore(acc, WithoutInner([&] { return Gen(t, 1, false); }), {I32(0)});
    Stmt update = BufferStore(acc, Combine(BufferLoad(acc, {I32(0)}), Gen(t, Uniform(1, 3), true)), {I32(0)});
    Stmt loop = For(j_, I32(0), I32(n1_), inner_kind_, update);
    Stmt store = BufferStore(out, BufferLoad(acc, {I32(0)}), {i_});
    return For(i_, I32(0), I32(n0_), outer_kind_, AllocBuffer(acc, SeqStmt({init, loop, store})));
  }

  // A reduction/accumulation step of a's dtype.
  PrimExpr Combine(const PrimExpr& a, const PrimExpr& b) {
    DataType t = a.dtype();
    if (t.is_bool()) return Coin(0.5) ? PrimExpr(And(a, b)) : PrimExpr(Or(a, b));
    switch (Uniform(0, t.is_float() ? 2 : 3)) {
      case 0: return Add(a, b);
      case 1: return Max(a, b);
      case 2: return Min(a, b);
      default: return Call(t, Op("tirx.bitwise_xor"), {a, b});
    }
  }

  // Runs `gen` with the inner loop variable out of scope (for values computed outside that loop).
  template <typename F>
  PrimExpr WithoutInner(F gen) {
    inner_in_scope_ = false;
    PrimExpr e = gen();
    inner_in_scope_ = true;
    return e;
  }

  // ---- expressions ----
  // An expression of dtype t. `math`: transcendental intrinsics allowed (the value only feeds
  // continuous operations). math_count_ counts the transcendental calls (and references to let
  // variables holding one) generated so far, so callers can tell whether a subexpression has any.
  PrimExpr Gen(DataType t, int depth, bool math) {
    if (depth <= 0 || Coin(0.2)) return Leaf(t, math);
    if (Coin(0.08)) return GenLet(t, depth, math);
    if (t.is_bool()) return GenBool(depth);
    if (t.is_float()) return GenFloat(t, depth, math);
    return GenInt(t, depth);
  }

  PrimExpr GenLet(DataType t, int depth, bool math) {
    DataType vt = NumericType();
    int before = math_count_;
    PrimExpr value = Gen(vt, depth - 1, math && vt.is_float());
    Var v(absl::StrCat("v", names_++), vt);
    // In scope only while its body is generated.
    lets_.push_back({v, math_count_ > before});
    PrimExpr body = Gen(t, depth - 1, math);
    lets_.pop_back();
    return Let(v, value, body);
  }

  PrimExpr Call1(DataType t, const char* op, const PrimExpr& a) { return Call(t, Op(op), {a}); }
  PrimExpr Call2(DataType t, const char* op, const PrimExpr& a, const PrimExpr& b) {
    return Call(t, Op(op), {a, b});
  }

  PrimExpr GenInt(DataType t, int depth) {
    auto sub = [&] { return Gen(t, depth - 1, false); };
    switch (Uniform(0, 15)) {
      case 0: return Add(sub(), sub());
      case 1: return Sub(sub(), sub());
      case 2: return Mul(sub(), sub());
      case 3: return Div(sub(), SafeDivisor(sub()));
      case 4: return Mod(sub(), SafeDivisor(sub()));
      case 5: return FloorDiv(sub(), SafeDivisor(sub()));
      case 6: return FloorMod(sub(), SafeDivisor(sub()));
      case 7: return Min(sub(), sub());
      case 8: return Max(sub(), sub());
      case 9: return Select(Gen(DataType::Bool(), depth - 1, false), sub(), sub());
      case 10: return IfThenElseExpr(Gen(DataType::Bool(), depth - 1, false), sub(), sub());
      case 11: {
        static const char* kOps[] = {"tirx.bitwise_and", "tirx.bitwise_or", "tirx.bitwise_xor"};
        return Call2(t, kOps[Uniform(0, 2)], sub(), sub());
      }
      case 12: return Call1(t, "tirx.bitwise_not", sub());
      case 13: {
        // The amount is masked into [0, bits): shifting by the width or more is undefined.
        PrimExpr amount = Call2(t, "tirx.bitwise_and", sub(), IntImm(t, t.bits() - 1));
        return Call2(t, Coin(0.5) ? "tirx.shift_left" : "tirx.shift_right", sub(), amount);
      }
      default: {
        DataType from = AnyType();
        return CastGuarded(t, Gen(from, depth - 1, false));
      }
    }
  }

  PrimExpr GenFloat(DataType t, int depth, bool math) {
    auto sub = [&] { return Gen(t, depth - 1, math); };
    auto exact = [&] { return Gen(t, depth - 1, false); };
    switch (Uniform(0, 15)) {
      case 0: return Add(sub(), sub());
      case 1: return Sub(sub(), sub());
      case 2: return Mul(sub(), sub());
      case 3: return Div(sub(), SafeFloatDivisor(exact()));
      case 4: return Min(sub(), sub());
      case 5: return Max(sub(), sub());
      case 6: return Select(Gen(DataType::Bool(), depth - 1, false), sub(), sub());
      case 7: return IfThenElseExpr(Gen(DataType::Bool(), depth - 1, false), sub(), sub());
      case 8: {
        DataType from = AnyType();
        return Cast(t, Gen(from, depth - 1, math && from.is_float()));
      }
      case 9: {
        // Correctly rounded or exact everywhere (sqrt is IEEE; the others are exact).
        static const char* kOps[] = {"tirx.floor", "tirx.ceil", "tirx.trunc", "tirx.round", "tirx.fabs"};
        int k = Uniform(0, 5);
        if (k == 5) return Call1(t, "tirx.sqrt", Call1(t, "tirx.fabs", sub()));
        return Call1(t, kOps[k], k == 4 ? sub() : exact());
      }
      case 10: {
        PrimExpr a = exact(), b = SafeFloatDivisor(exact());
        return Coin(0.5) ? PrimExpr(FloorDiv(a, b)) : PrimExpr(FloorMod(a, b));
      }
      default:
        if (!math) return Add(exact(), exact());
        return MathCall(t, depth);
    }
  }

  // A transcendental intrinsic on an argument inside its domain.
  PrimExpr MathCall(DataType t, int depth) {
    ++math_count_;
    program_.uses_math = true;
    PrimExpr x = Gen(t, depth - 1, true);
    PrimExpr one = FloatImm(t, 1.0);
    switch (Uniform(0, 8)) {
      case 0: return Call1(t, "tirx.exp", x);
      case 1: return Call1(t, "tirx.log", Add(Call1(t, "tirx.fabs", x), one));
      case 2: return Call1(t, "tirx.tanh", x);
      case 3: return Call1(t, "tirx.sigmoid", x);
      case 4: return Call1(t, "tirx.sin", x);
      case 5: return Call1(t, "tirx.cos", x);
      case 6: return Call1(t, "tirx.erf", x);
      case 7: return Call1(t, "tirx.atan", x);
      default: {
        // pow(|x| + 1, y) with a small exponent.
        PrimExpr y = FloatImm(t, Uniform(-6, 6) * 0.5);
        return Call2(t, "tirx.pow", Add(Call1(t, "tirx.fabs", x), one), y);
      }
    }
  }

  PrimExpr GenBool(int depth) {
    auto sub = [&] { return Gen(DataType::Bool(), depth - 1, false); };
    switch (Uniform(0, 7)) {
      case 0:
      case 1:
      case 2: {
        DataType t = NumericType();
        PrimExpr a = Gen(t, depth - 1, false), b = Gen(t, depth - 1, false);
        switch (Uniform(0, 5)) {
          case 0: return EQ(a, b);
          case 1: return NE(a, b);
          case 2: return LT(a, b);
          case 3: return LE(a, b);
          case 4: return GT(a, b);
          default: return GE(a, b);
        }
      }
      case 3: return And(sub(), sub());
      case 4: return Or(sub(), sub());
      case 5: return Not(sub());
      case 6: return Select(sub(), sub(), sub());
      default: return Cast(DataType::Bool(), Gen(NumericType(), depth - 1, false));
    }
  }

  PrimExpr IfThenElseExpr(const PrimExpr& c, const PrimExpr& a, const PrimExpr& b) {
    return Call(a.dtype(), Op("tirx.if_then_else"), {c, a, b});
  }

  // use(e) where `use` mentions e several times. An e holding a Let is bound to a variable first,
  // since the same Let node twice would define its variable twice (TIR is SSA); so is any
  // non-trivial e outside vectorized loops (which a Let would keep from vectorizing), so that
  // nested guards do not grow programs exponentially.
  template <typename F>
  PrimExpr Share(const PrimExpr& e, F use) {
    const PrimExpr& inner = e.as<CastNode>() ? e.as<CastNode>()->value : e;
    bool trivial = inner.as<VarNode>() || inner.as<IntImmNode>() || inner.as<FloatImmNode>() || inner.as<BufferLoadNode>();
    bool vector = inner_kind_ == ForKind::kVectorized && inner_in_scope_;
    if (!ContainsLet(e) && (trivial || vector)) return use(e);
    Var v(absl::StrCat("v", names_++), e.dtype());
    return Let(v, e, use(v));
  }

  // d, or a constant where d would be 0 (or -1 for signed types: INT_MIN / -1 overflows).
  PrimExpr SafeDivisor(const PrimExpr& d) {
    DataType t = d.dtype();
    int64_t c = t.is_int() ? (Coin(0.5) ? Uniform(2, 9) : -Uniform(2, 9)) : Uniform(1, 9);
    return Share(d, [&](const PrimExpr& x) {
      PrimExpr bad = EQ(x, IntImm(t, 0));
      if (t.is_int()) bad = Or(bad, EQ(x, IntImm(t, -1)));
      return Select(bad, IntImm(t, c), x);
    });
  }

  // d, or 1.5 where |d| < 1/8 (keeps quotients finite and away from overflow).
  PrimExpr SafeFloatDivisor(const PrimExpr& d) {
    DataType t = d.dtype();
    return Share(d, [&](const PrimExpr& x) {
      return Select(LT(Call1(t, "tirx.fabs", x), FloatImm(t, 0.125)), FloatImm(t, 1.5), x);
    });
  }

  // Cast(to, e), with float -> integer casts guarded: out-of-range (and NaN) values become 0, since
  // converting them is undefined.
  PrimExpr CastGuarded(DataType to, const PrimExpr& e) {
    DataType from = e.dtype();
    if (!from.is_float() || !to.is_integer()) return Cast(to, e);
    auto [lo, hi] = CastableRange(from, to);
    return Share(e, [&](const PrimExpr& x) {
      PrimExpr ok = And(GE(x, FloatImm(from, lo)), LE(x, FloatImm(from, hi)));
      return Cast(to, Select(ok, x, FloatImm(from, 0.0)));
    });
  }

  PrimExpr Leaf(DataType t, bool math) {
    int r = Uniform(0, 9);
    if (r < 3) return Constant(t);
    if (r < 7 && !inputs_.empty()) {
      const Input& in = inputs_[Uniform(0, static_cast<int>(inputs_.size()) - 1)];
      if (inner_in_scope_ || in.layout == Layout::kRows) return CastGuarded(t, Load(in));
    }
    if (r < 8 && !scalars_.empty()) return CastGuarded(t, scalars_[Uniform(0, static_cast<int>(scalars_.size()) - 1)]);
    if (r < 9) {
      std::vector<const LetVar*> ok;
      for (const LetVar& l : lets_) {
        if (math || !l.math) ok.push_back(&l);
      }
      if (!ok.empty()) {
        const LetVar& l = *ok[Uniform(0, static_cast<int>(ok.size()) - 1)];
        if (l.math) ++math_count_;
        return CastGuarded(t, l.var);
      }
    }
    const Var& v = inner_in_scope_ && Coin(0.6) ? j_ : i_;
    return Cast(t, v);
  }

  PrimExpr Load(const Input& in) {
    PrimExpr last = n_.defined() ? PrimExpr(Sub(n_, I32(1))) : PrimExpr(I32(n1_ - 1));
    PrimExpr j = in.reversed ? PrimExpr(Sub(last, j_)) : PrimExpr(j_);
    switch (in.layout) {
      case Layout::k2D: return BufferLoad(in.buf, {i_, j});
      case Layout::kRows: return BufferLoad(in.buf, {i_});
      case Layout::kCols: return BufferLoad(in.buf, {j_});
      default: return BufferLoad(in.buf, {Add(Mul(i_, I32(n1_)), j_)});
    }
  }

  PrimExpr Constant(DataType t) {
    if (t.is_bool()) return IntImm(t, Uniform(0, 1));
    if (t.is_float()) {
      static const double kValues[] = {0.0, 1.0, -1.0, 0.5, -2.25, 3.0, 0.125, 100.0, -7.5, 1024.0};
      return FloatImm(t, Coin(0.7) ? kValues[Uniform(0, 9)] : Uniform(-64, 64) / 8.0);
    }
    int r = Uniform(0, 9);
    int64_t v;
    if (r < 6) {
      v = t.is_int() ? Uniform(-8, 8) : Uniform(0, 16);
    } else if (r < 9) {
      // Boundary values: the extremes and their neighbours.
      int64_t lo = IntMin(t), hi = IntMax(t);
      switch (Uniform(0, 3)) {
        case 0: v = lo; break;
        case 1: v = hi; break;
        case 2: v = lo + 1; break;
        default: v = hi - 1; break;
      }
    } else {
      std::uniform_int_distribution<int64_t> any(std::numeric_limits<int64_t>::min(),
                                                 std::numeric_limits<int64_t>::max());
      v = any(rng_);
      if (t.bits() < 64) {
        // Wrap into t's range (sign-extend for signed types).
        uint64_t mask = (uint64_t{1} << t.bits()) - 1;
        uint64_t u = static_cast<uint64_t>(v) & mask;
        if (t.is_int() && (u >> (t.bits() - 1))) u |= ~mask;
        v = static_cast<int64_t>(u);
      }
    }
    return IntImm(t, v);
  }

  std::mt19937_64 rng_;
  Program program_;
  Array<Var> params_;
  Map<Var, Buffer> buffer_map_;
  std::vector<Input> inputs_;
  std::vector<Var> scalars_;
  std::vector<LetVar> lets_;  // the let variables in scope, innermost last
  int names_ = 0;
  bool reduce_ = false;
  ForKind outer_kind_ = ForKind::kSerial, inner_kind_ = ForKind::kSerial;
  int64_t n0_ = 1, n1_ = 1;
  Var n_;  // defined: the inner extent is this shape variable (bound to n1 at run time)
  Var i_, j_;
  bool inner_in_scope_ = true;
  int math_count_ = 0;
};

}  // namespace

Program GenerateProgram(uint64_t seed) { return Generator(seed).Run(); }

}  // namespace kiln::difftest
