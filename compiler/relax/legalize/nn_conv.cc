// Convolutions -> PrimFuncs scheduled for CPUs (see nn_conv.h for the schedule). Like the matmul,
// the kernel is a pre-scheduled loop nest without SBlocks: op_pattern kOpaque.
#include "compiler/relax/legalize/nn_conv.h"

#include <algorithm>
#include <functional>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/relax/legalize/conv_gpu.h"
#include "compiler/relax/legalize/kernel_call.h"
#include "compiler/relax/op/infer_util.h"

namespace kiln::relax::legalize {

using namespace ir;  // NOLINT: this file is about IR node types only

namespace {

constexpr int kLanes = 16;    // output columns of a register tile
constexpr int kHalfLanes = 8;
// Output channels of a register tile: 6x16 floats are 12 AVX2 registers of accumulators, leaving
// 2 for the input row and 1 for the broadcast weight; each (c, ky, kx) step is then 8 loads for 12
// fused multiply-adds (a 4x16 tile: 6 loads for 8). The last block of a channel count that is not
// a multiple of 6 is zero-padded in the packed weight and not written back.
constexpr int kBlock = 6;
// Input channels per pass over a register tile: a tile's packed weights (kBlock per channel and
// kernel tap) and its input rows (kh rows of kLanes + kw - 1 values per channel) for one pass stay
// within this many bytes of L1, so the next tiles of the row reuse the weights from L1 instead of
// L2. Passes after the first add into the output.
constexpr int64_t kChannelPassBytes = 20 * 1024;
// Convolutions of fewer multiply-adds than this run on the calling thread: waking the pool costs
// microseconds, as much as the whole convolution.
constexpr int64_t kParallelWork = int64_t{1} << 18;

// Where each named axis sits in a layout string; every name must occur once and only the
// expected ones may appear.
absl::StatusOr<std::map<char, int>> Axes(const std::string& layout, const std::string& expected, const char* what) {
  std::map<char, int> pos;
  for (size_t i = 0; i < layout.size(); ++i) {
    char c = layout[i];
    if (expected.find(c) == std::string::npos || pos.count(c)) {
      return absl::InvalidArgumentError(absl::StrCat("conv: ", what, " layout \"", layout,
                                                     "\" must name each of ", expected, " once"));
    }
    pos[c] = static_cast<int>(i);
  }
  if (pos.size() != expected.size()) {
    return absl::InvalidArgumentError(absl::StrCat("conv: ", what, " layout \"", layout, "\" must name each of ",
                                                   expected, " once"));
  }
  return pos;
}

// The indices of a tensor in `pos`'s layout from values per axis name (absent axes are skipped).
std::vector<PrimExpr> Index(const std::map<char, int>& pos, const std::map<char, PrimExpr>& at) {
  std::vector<PrimExpr> idx(pos.size());
  for (const auto& [axis, p] : pos) idx[p] = at.at(axis);
  return idx;
}

PrimExpr Dim(const TensorSpec& t, const std::map<char, int>& pos, char axis) {
  auto it = pos.find(axis);
  return it == pos.end() ? Int64(1) : AsIndex(t.shape[it->second]);
}

PrimExpr Div(const PrimExpr& a, int64_t k, bool* exact) {
  if (k == 1) return a;
  int64_t v = ConstOr(a, -1);
  if (v < 0 || v % k != 0) *exact = false;
  return FloorDivBy(a, k);
}

}  // namespace

absl::StatusOr<PrimFunc> ConvKernel(const ConvSpec& spec) {
  const bool two_d = spec.data_layout.find('H') != std::string::npos;
  const std::string sp = two_d ? "HW" : "W";
  const size_t nsp = sp.size();
  auto dpos = Axes(spec.data_layout, "NC" + sp, "data");
  if (!dpos.ok()) return dpos.status();
  auto kpos = Axes(spec.kernel_layout, "OI" + sp, "kernel");
  if (!kpos.ok()) return kpos.status();
  auto opos = Axes(spec.out_layout, "NC" + sp, "out");
  if (!opos.ok()) return opos.status();
  if (spec.data.shape.size() != dpos->size() || spec.weight.shape.size() != kpos->size()) {
    return absl::InvalidArgumentError(absl::StrCat("conv: data and weight must have rank ", dpos->size()));
  }
  auto attr = [&](const std::vector<int64_t>& v, size_t n, int64_t dflt, const char* what) -> absl::StatusOr<std::vector<int64_t>> {
    if (v.empty()) return std::vector<int64_t>(n, dflt);
    if (v.size() == 1) return std::vector<int64_t>(n, v[0]);
    if (v.size() == n) return v;
    if (n == 2 * nsp && v.size() == nsp) {  // symmetric padding
      std::vector<int64_t> r(v);
      r.insert(r.end(), v.begin(), v.end());
      return r;
    }
    return absl::InvalidArgumentError(absl::StrCat("conv: ", what, " needs ", n, " values, got ", v.size()));
  };
  auto strides = attr(spec.strides, nsp, 1, "strides");
  if (!strides.ok()) return strides.status();
  auto dilation = attr(spec.dilation, nsp, 1, "dilation");
  if (!dilation.ok()) return dilation.status();
  auto padding = attr(spec.padding, 2 * nsp, 0, "padding");
  if (!padding.ok()) return padding.status();
  auto out_pad = attr(spec.output_padding, nsp, 0, "output_padding");
  if (!out_pad.ok()) return out_pad.status();
  for (size_t i = 0; i < nsp; ++i) {
    if ((*strides)[i] < 1 || (*dilation)[i] < 1) {
      return absl::InvalidArgumentError("conv: strides and dilation must be positive");
    }
  }
  const int64_t groups = spec.groups;
  if (groups < 1) return absl::InvalidArgumentError("conv: groups must be positive");
  DataType out_dtype = spec.out_dtype.is_void() ? spec.data.dtype : spec.out_dtype;
  if (!out_dtype.is_numeric() || !out_dtype.is_scalar()) {
    return absl::InvalidArgumentError(absl::StrCat("conv: unsupported dtype ", out_dtype.ToString()));
  }

  // Sizes. The spatial axes are (H, W) with H = 1 for 1-D convolutions.
  PrimExpr batch = Dim(spec.data, *dpos, 'N'), chans = Dim(spec.data, *dpos, 'C');
  PrimExpr in_h = Dim(spec.data, *dpos, 'H'), in_w = Dim(spec.data, *dpos, 'W');
  PrimExpr kh = Dim(spec.weight, *kpos, 'H'), kw = Dim(spec.weight, *kpos, 'W');
  int64_t sh = two_d ? (*strides)[0] : 1, sw = strides->back();
  int64_t dh = two_d ? (*dilation)[0] : 1, dw = dilation->back();
  int64_t pt = two_d ? (*padding)[0] : 0, pl = (*padding)[nsp - 1];
  int64_t pb = two_d ? (*padding)[nsp] : 0, pr = padding->back();
  bool exact = true;
  PrimExpr cg = Div(chans, groups, &exact);  // input channels per group
  PrimExpr out_chans, og;                    // output channels, per group
  if (spec.transpose) {
    og = Dim(spec.weight, *kpos, 'O');
    out_chans = Times(og, Int64(groups));
  } else {
    out_chans = Dim(spec.weight, *kpos, 'O');
    og = Div(out_chans, groups, &exact);
  }
  if (!exact && groups > 1 && (ConstOr(chans, -1) >= 0 && ConstOr(out_chans, -1) >= 0)) {
    return absl::InvalidArgumentError(absl::StrCat("conv: groups (", groups, ") must divide the channel counts"));
  }
  if (groups > 1 && (ConstOr(chans, -1) < 0 || ConstOr(out_chans, -1) < 0)) {
    return absl::InvalidArgumentError("conv: grouped convolution needs constant channel counts");
  }

  // The convolution actually computed: stride (sh, sw) and dilation over the prepared input
  // [C, hp, wp]. For a transpose: the input dilated by the strides and padded by
  // d * (k - 1) - p (plus output_padding after), then a stride-1 convolution.
  int64_t csh = sh, csw = sw, ins_h = 1, ins_w = 1;
  PrimExpr pad_t = Int64(pt), pad_l = Int64(pl), pad_b = Int64(pb), pad_r = Int64(pr);
  if (spec.transpose) {
    int64_t oph = two_d ? (*out_pad)[0] : 0, opw = out_pad->back();
    ins_h = sh;
    ins_w = sw;
    csh = csw = 1;
    pad_t = Minus(Times(Int64(dh), Minus(kh, Int64(1))), Int64(pt));
    pad_l = Minus(Times(Int64(dw), Minus(kw, Int64(1))), Int64(pl));
    pad_b = Plus(Minus(Times(Int64(dh), Minus(kh, Int64(1))), Int64(pb)), Int64(oph));
    pad_r = Plus(Minus(Times(Int64(dw), Minus(kw, Int64(1))), Int64(pr)), Int64(opw));
  }
  auto span = [](const PrimExpr& n, int64_t ins) { return Plus(Times(Minus(n, Int64(1)), Int64(ins)), Int64(1)); };
  PrimExpr hp = Plus(Plus(span(in_h, ins_h), pad_t), pad_b), wp = Plus(Plus(span(in_w, ins_w), pad_l), pad_r);
  auto out_size = [](const PrimExpr& padded, const PrimExpr& k, int64_t d, int64_t s) {
    return Plus(FloorDivBy(Minus(Minus(padded, Times(Int64(d), Minus(k, Int64(1)))), Int64(1)), s), Int64(1));
  };
  PrimExpr oh = out_size(hp, kh, dh, csh), ow = out_size(wp, kw, dw, csw);
  if (ConstOr(oh, 1) < 1 || ConstOr(ow, 1) < 1) {
    return absl::InvalidArgumentError("conv: the kernel does not fit in the padded input");
  }

  Param pdata = MakeParam("data", spec.data.shape, spec.data.dtype);
  Param pweight = MakeParam("weight", spec.weight.shape, spec.weight.dtype);
  std::map<char, PrimExpr> out_dims = {{'N', batch}, {'C', out_chans}, {'H', oh}, {'W', ow}};
  std::vector<PrimExpr> out_shape = Index(*opos, out_dims);
  const char* out_name = spec.transpose ? (two_d ? "conv2d_transpose" : "conv1d_transpose") : (two_d ? "conv2d" : "conv1d");
  Param pout = MakeParam(out_name, out_shape, out_dtype);
  const Buffer &data = pdata.buffer, &weight = pweight.buffer, &out = pout.buffer;

  // Constant sizes: the multiply-adds, to decide whether the loops below are worth running in parallel.
  int64_t work = 1;
  for (const PrimExpr& e : {batch, out_chans, oh, ow, cg, kh, kw}) {
    int64_t v = ConstOr(e, -1);
    work = v < 0 ? kParallelWork : std::min(kParallelWork, work * std::min(v, kParallelWork));
  }
  const ForKind par = work < kParallelWork ? ForKind::kSerial : ForKind::kParallel;

  // ---- packed weight: wpk[g * blocks + ob, c, y, x, i] = weight of output channel g*og + ob*kBlock + i.
  PrimExpr blocks = CeilDivBy(og, kBlock);
  const int64_t og_const = ConstOr(og, -1);
  Buffer wpk = Buffer::Make("weight_packed", {Times(Int64(groups), blocks), cg, kh, kw, Int64(kBlock)}, out_dtype);
  // A channel block index -> (group, block within the group).
  auto split = [&](const PrimExpr& gb) -> std::pair<PrimExpr, PrimExpr> {
    if (IsConst(blocks, 1)) return {gb, Int64(0)};
    if (groups == 1) return {Int64(0), gb};
    return {FloorDiv(gb, blocks), FloorMod(gb, blocks)};
  };
  // Output channel i of a block outermost: its weights are read in order (one contiguous run of
  // cg * kh * kw values for a plain convolution) rather than 6 rows apart, and a zero-padded
  // channel past og is a test per channel, not per value (the packing took 0.10 ms of a 3.1 ms
  // 1x64x56x56 3x3 convolution on one thread with the channel innermost, 0.05 ms this way).
  Stmt pack_w = Loop("gb", Times(Int64(groups), blocks), par, [&](const PrimExpr& gb) {
    std::pair<PrimExpr, PrimExpr> go = split(gb);
    PrimExpr g = go.first, ob = go.second;
    return Loop("i", Int64(kBlock), ForKind::kSerial, [&](const PrimExpr& i) {
      PrimExpr o = Plus(Times(ob, Int64(kBlock)), i);
      auto each = [&](const std::function<Stmt(const PrimExpr&, const PrimExpr&, const PrimExpr&)>& f) {
        return Loop("c", cg, ForKind::kSerial, [&](const PrimExpr& c) {
          return Loop("y", kh, ForKind::kSerial, [&](const PrimExpr& y) {
            return Loop("x", kw, ForKind::kSerial, [&](const PrimExpr& x) { return f(c, y, x); });
          });
        });
      };
      Stmt copy = each([&](const PrimExpr& c, const PrimExpr& y, const PrimExpr& x) {
        std::map<char, PrimExpr> at;
        if (spec.transpose) {
          // weight[in channel g*cg + c, o, k - 1 - y, k - 1 - x]
          at = {{'I', Plus(Times(g, cg), c)}, {'O', o}, {'H', Minus(Minus(kh, Int64(1)), y)},
                {'W', Minus(Minus(kw, Int64(1)), x)}};
        } else {
          at = {{'O', Plus(Times(g, og), o)}, {'I', c}, {'H', y}, {'W', x}};
        }
        if (!two_d) at.erase('H');
        return Store(wpk, CastTo(out_dtype, Load(weight, Index(*kpos, at))), {gb, c, y, x, i});
      });
      if (og_const > 0 && og_const % kBlock == 0) return copy;
      Stmt zero = each([&](const PrimExpr& c, const PrimExpr& y, const PrimExpr& x) {
        return Store(wpk, Const(out_dtype, 0), {gb, c, y, x, i});
      });
      return Stmt(ir::IfThenElse(LT(o, og), copy, zero));
    });
  });

  // ---- per image: the prepared input xp[y, c, x]. Each row has room for (kHalfLanes - 1) * stride
  // more (zero) columns, so that the last tile of a row can be a whole 8-lane vector tile whose lanes
  // past the row's end are computed and dropped. Rows outermost: the input rows of a task's output
  // rows, every channel of them, are one contiguous block, which the prefetchers follow and a few
  // pages map; channel-major [c, y, x] spread them over the whole buffer (a 4 KB page per channel
  // per row, more than the first-level TLB holds), and the 1x64x56x56 3x3 convolution ran 9% slower
  // on 1 thread and 5% on 2 (medians of paired rounds). Each thread prepares whole rows, as its
  // tasks read them.
  PrimExpr wpx = Plus(wp, Int64((kHalfLanes - 1) * csw));
  Buffer xp = Buffer::Make("data_pad", {hp, chans, wpx}, out_dtype);
  auto data_at = [&](const PrimExpr& n, const PrimExpr& c, const PrimExpr& y, const PrimExpr& x) {
    std::map<char, PrimExpr> at = {{'N', n}, {'C', c}, {'H', y}, {'W', x}};
    if (!two_d) at.erase('H');
    return CastTo(out_dtype, Load(data, Index(*dpos, at)));
  };
  auto prepare = [&](const PrimExpr& n) -> Stmt {
    bool plain = ins_h == 1 && ins_w == 1 && ConstOr(pad_t, 0) >= 0 && ConstOr(pad_l, 0) >= 0 &&
                 ConstOr(pad_b, 0) >= 0 && ConstOr(pad_r, 0) >= 0;
    return Loop("y", hp, par, [&](const PrimExpr& y) {
      return Loop("c", chans, ForKind::kSerial, [&](const PrimExpr& c) -> Stmt {
        if (plain) {
          // Rows inside the data: zero borders around a (vectorized) copy; other rows: zeros.
          PrimExpr iy = Minus(y, pad_t);
          Stmt left = Loop("x", pad_l, ForKind::kSerial,
                           [&](const PrimExpr& x) { return Store(xp, Const(out_dtype, 0), {y, c, x}); });
          Stmt mid = VectorLoop("x", in_w, kLanes, [&](const PrimExpr& x) {
            return Store(xp, data_at(n, c, iy, x), {y, c, Plus(x, pad_l)});
          });
          Stmt right = LoopFrom("x", Plus(pad_l, in_w), Minus(wpx, Plus(pad_l, in_w)), ForKind::kSerial,
                                [&](const PrimExpr& x) { return Store(xp, Const(out_dtype, 0), {y, c, x}); });
          Stmt zeros = VectorLoop("x", wpx, kLanes, [&](const PrimExpr& x) { return Store(xp, Const(out_dtype, 0), {y, c, x}); });
          PrimExpr inside = And(GE(y, pad_t), LT(y, Plus(pad_t, in_h)));
          return ir::IfThenElse(inside, Seq({left, mid, right}), zeros);
        }
        // General: each element from its (dilated, possibly negatively padded) source or zero.
        return Loop("x", wpx, ForKind::kSerial, [&](const PrimExpr& x) {
          PrimExpr iy = Minus(y, pad_t), ix = Minus(x, pad_l);
          PrimExpr ok = And(And(GE(iy, Int64(0)), LT(iy, Plus(Times(Minus(in_h, Int64(1)), Int64(ins_h)), Int64(1)))),
                            And(GE(ix, Int64(0)), LT(ix, Plus(Times(Minus(in_w, Int64(1)), Int64(ins_w)), Int64(1)))));
          if (ins_h > 1) ok = And(ok, EQ(FloorMod(iy, Int64(ins_h)), Int64(0)));
          if (ins_w > 1) ok = And(ok, EQ(FloorMod(ix, Int64(ins_w)), Int64(0)));
          PrimExpr v = data_at(n, c, FloorDivBy(iy, ins_h), FloorDivBy(ix, ins_w));
          return Store(xp, IfThenElse(ok, v, Const(out_dtype, 0)), {y, c, x});
        });
      });
    });
  };

  // ---- the register tiles of one (channel block, output row) task.
  // Channel passes: equal blocks of input channels (one pass when cg is symbolic).
  int64_t pass_channels = ConstOr(cg, -1), passes = 1;
  if (pass_channels > 0) {
    int64_t per_channel = (ConstOr(kh, 3) * ConstOr(kw, 3) * kBlock + ConstOr(kh, 3) * (kLanes + ConstOr(kw, 3) - 1)) *
                          std::max(1, out_dtype.bytes());
    int64_t fit = std::max<int64_t>(1, kChannelPassBytes / per_channel);
    passes = (pass_channels + fit - 1) / fit;
    pass_channels = (pass_channels + passes - 1) / passes;
  }
  // A constant channel count that is not a multiple of kBlock: its last block gets a tile of just
  // the channels left (no multiply-adds on the zero padding); for a symbolic count, the last block's
  // 6-row tile writes back only the channels that exist.
  const int last_rows = og_const > 0 ? static_cast<int>(og_const % kBlock) : 0;
  // The register tile of `rows` output channels (kBlock, or last_rows in the last block) by `lanes`
  // output columns from x0 in `out_rows` (1 or 2) output rows from y, over the input channels of
  // `pass`. Accumulator (r, i) is row r's output channel i.
  auto tile = [&](const PrimExpr& n, const PrimExpr& gb, const PrimExpr& y, int out_rows, const PrimExpr& x0,
                  int lanes, const PrimExpr& pass, int rows, const PrimExpr& width) -> Stmt {
    std::pair<PrimExpr, PrimExpr> go = split(gb);
    PrimExpr g = go.first, ob = go.second;
    Buffer acc = Buffer::Make("acc", {Int64(out_rows * rows), Int64(lanes)}, out_dtype, "local");
    const ForKind lane_kind = ForKind::kVectorized;
    // The output columns that exist: all `lanes` unless this is a row's last, partial tile.
    const bool all_lanes = IsConst(width, lanes);
    // per_row(r) for the tile's output rows r (an unrolled loop when there are two), and the output
    // row that r is.
    auto over_rows = [&](const std::function<Stmt(const PrimExpr&)>& per_row) {
      if (out_rows == 1) return per_row(Int64(0));
      return Loop("r", Int64(out_rows), ForKind::kUnrolled, per_row);
    };
    auto out_row = [&](const PrimExpr& r) { return out_rows == 1 ? y : Plus(y, r); };
    // f(r, i, v) over the accumulators. Rows innermost but for the lanes: both rows' multiply-adds
    // by weight i follow its broadcast, which then needs one register, not one per channel.
    using TileBody = std::function<Stmt(PrimExpr, PrimExpr, PrimExpr)>;
    auto each = [&](const TileBody& f) {
      return Loop("i", Int64(rows), ForKind::kUnrolled, [&](const PrimExpr& i) {
        return over_rows([&](const PrimExpr& r) {
          return Loop("v", Int64(lanes), lane_kind, [&](const PrimExpr& v) { return f(r, i, v); });
        });
      });
    };
    auto acc_at = [&](const PrimExpr& r, const PrimExpr& i, const PrimExpr& v) -> std::vector<PrimExpr> {
      return {out_rows == 1 ? i : Plus(Times(r, Int64(rows)), i), v};
    };
    // Channels of this tile that exist: all of them unless the channel count is symbolic.
    PrimExpr valid = MinOf(Int64(rows), Minus(og, Times(ob, Int64(kBlock))));
    bool whole = og_const > 0;
    auto out_at = [&](const PrimExpr& r, const PrimExpr& i, const PrimExpr& v) {
      PrimExpr oc = Plus(Times(g, og), Plus(Times(ob, Int64(kBlock)), i));
      std::map<char, PrimExpr> at = {{'N', n}, {'C', oc}, {'H', out_row(r)}, {'W', Plus(x0, v)}};
      if (!two_d) at.erase('H');
      return Index(*opos, at);
    };
    auto valid_rows = [&](const TileBody& f) {
      return over_rows([&](const PrimExpr& r) {
        return Loop("i", whole ? Int64(rows) : valid, whole ? ForKind::kUnrolled : ForKind::kSerial,
                    [&](const PrimExpr& i) {
                      return Loop("v", all_lanes ? Int64(lanes) : width, all_lanes ? lane_kind : ForKind::kSerial,
                                  [&](const PrimExpr& v) { return f(r, i, v); });
                    });
      });
    };
    Stmt init = each([&](PrimExpr r, PrimExpr i, PrimExpr v) { return Store(acc, Const(out_dtype, 0), acc_at(r, i, v)); });
    if (passes > 1) {
      Stmt reload = valid_rows(
          [&](PrimExpr r, PrimExpr i, PrimExpr v) { return Store(acc, Load(out, out_at(r, i, v)), acc_at(r, i, v)); });
      init = ir::IfThenElse(EQ(pass, Int64(0)), init, reload);
    }
    ForKind kx_kind = ConstOr(kw, 99) <= 8 ? ForKind::kUnrolled : ForKind::kSerial;
    PrimExpr c0 = Times(pass, Int64(pass_channels));
    PrimExpr pass_cg = passes == 1 ? cg
                       : ConstOr(cg, 0) % pass_channels == 0 ? Int64(pass_channels)
                                                             : MinOf(Int64(pass_channels), Minus(cg, c0));
    Stmt update = Loop("c", pass_cg, ForKind::kSerial, [&](const PrimExpr& cc) {
      PrimExpr c = Plus(c0, cc);
      PrimExpr ch = Plus(Times(g, cg), c);
      return Loop("ky", kh, ForKind::kSerial, [&](const PrimExpr& ky) {
        return Loop("kx", kw, kx_kind, [&](const PrimExpr& kx) {
          return each([&](PrimExpr r, PrimExpr i, PrimExpr v) {
            PrimExpr row = Plus(Times(out_row(r), Int64(csh)), Times(ky, Int64(dh)));
            PrimExpr col = Plus(Times(Plus(x0, v), Int64(csw)), Times(kx, Int64(dw)));
            PrimExpr val = FusedMulAdd(Load(wpk, {gb, c, ky, kx, i}), Load(xp, {row, ch, col}), Load(acc, acc_at(r, i, v)));
            return Store(acc, val, acc_at(r, i, v));
          });
        });
      });
    });
    Stmt write = valid_rows(
        [&](PrimExpr r, PrimExpr i, PrimExpr v) { return Store(out, Load(acc, acc_at(r, i, v)), out_at(r, i, v)); });
    return Allocate(acc, Seq({init, update, write}));
  };

  // The order of the (channel block, output row) tasks, which the thread pool splits into one
  // contiguous range per thread. Each thread should read only its share of the larger operand and
  // share the smaller one, which then stays in every core's cache. Row-major (every block of a row,
  // then the next row) when the packed weights are no larger than the prepared input: a thread
  // then reads the input rows of its output rows only (for 64 channels of 56x56 and 3x3, 2 threads
  // ran 1.45x faster than 1 block-major and 1.9x row-major: block-major made each thread stream
  // the whole 1 MB input once per block). Block-major otherwise (deep layers of small images),
  // where a thread reads the weights of its blocks only. Symbolic sizes take row-major.
  PrimExpr gblocks = Times(Int64(groups), blocks);
  const int64_t weight_elems = ConstOr(Times(Times(Times(gblocks, cg), Times(kh, kw)), Int64(kBlock)), -1);
  const int64_t input_elems = ConstOr(Times(Times(chans, hp), wpx), -1);
  const bool rows_first = weight_elems < 0 || input_elems < 0 || weight_elems <= input_elems;
  // Row pairs: when a row's width leaves one 8-lane tile (56 = 3 x 16 + 8), a task takes two output
  // rows and computes that tile for both at once. For one row its kBlock x 8 accumulators are too
  // few to hide the FMA latency and it needs 7 loads per 6 multiply-adds; two rows share the
  // broadcast weights, as the 16-lane tiles share them between their two vectors (llvm-mca,
  // znver3: 0.67 -> 0.50 cycles per multiply-add, the 16-lane tiles' figure; the 8-lane tile is
  // 1/7 of a 56-wide row's work).
  const int64_t oh_const = ConstOr(oh, -1), ow_const = ConstOr(ow, -1);
  const bool pairs = oh_const > 0 && oh_const % 2 == 0 && ow_const > 0 && (ow_const % kLanes) / kHalfLanes == 1;
  const PrimExpr task_rows = pairs ? Int64(oh_const / 2) : oh;
  auto compute = [&](const PrimExpr& n) -> Stmt {
    PrimExpr tasks = Times(gblocks, task_rows);
    return Loop("t", tasks, par, [&](const PrimExpr& t) {
      PrimExpr gb, y;
      if (IsConst(task_rows, 1)) {
        gb = t, y = Int64(0);
      } else if (IsConst(gblocks, 1)) {
        gb = Int64(0), y = t;
      } else if (rows_first) {
        gb = FloorMod(t, gblocks), y = FloorDiv(t, gblocks);
      } else {
        gb = FloorDiv(t, task_rows), y = FloorMod(t, task_rows);
      }
      if (pairs) y = Times(y, Int64(2));
      // f(row) for the task's output rows, one at a time.
      auto each_row = [&](const std::function<Stmt(const PrimExpr&)>& f) {
        return pairs ? Loop("yr", Int64(2), ForKind::kSerial, [&](const PrimExpr& r) { return f(Plus(y, r)); }) : f(y);
      };
      PrimExpr full = FloorDivBy(ow, kLanes);
      PrimExpr done = Times(full, Int64(kLanes));
      PrimExpr halves = FloorDivBy(Minus(ow, done), kHalfLanes);
      PrimExpr done2 = Plus(done, Times(halves, Int64(kHalfLanes)));
      auto row = [&](int rows) {
        return [&, rows](const PrimExpr& pass) {
          Stmt main = each_row([&](const PrimExpr& yr) {
            return Loop("xo", full, ForKind::kSerial, [&](const PrimExpr& xo) {
              return tile(n, gb, yr, 1, Times(xo, Int64(kLanes)), kLanes, pass, rows, Int64(kLanes));
            });
          });
          Stmt half = Loop("xh", halves, ForKind::kSerial, [&](const PrimExpr& xh) {
            return tile(n, gb, y, pairs ? 2 : 1, Plus(done, Times(xh, Int64(kHalfLanes))), kHalfLanes, pass, rows,
                        Int64(kHalfLanes));
          });
          // The last 1..7 columns: an 8-lane tile that writes back only those.
          PrimExpr left = Minus(ow, done2);
          Stmt rest;
          if (ConstOr(left, -1) != 0) {
            rest = each_row([&](const PrimExpr& yr) { return tile(n, gb, yr, 1, done2, kHalfLanes, pass, rows, left); });
            if (ConstOr(left, -1) < 0) rest = ir::IfThenElse(GT(left, Int64(0)), rest);
          }
          return Seq({main, half, rest});
        };
      };
      auto passes_of = [&](int rows) {
        return passes > 1 ? Loop("pass", Int64(passes), ForKind::kSerial, row(rows)) : row(rows)(Int64(0));
      };
      if (last_rows == 0) return passes_of(kBlock);
      if (IsConst(blocks, 1)) return passes_of(last_rows);
      PrimExpr ob = split(gb).second;
      return Stmt(ir::IfThenElse(EQ(ob, Minus(blocks, Int64(1))), passes_of(last_rows), passes_of(kBlock)));
    });
  };

  Stmt per_image = Loop("n", batch, ForKind::kSerial, [&](const PrimExpr& n) { return Seq({prepare(n), compute(n)}); });
  Stmt body = Allocate(wpk, Allocate(xp, Seq({pack_w, per_image})));
  return MakeKernel({pdata, pweight, pout}, body, OpPatternKind::kOpaque, true);
}

namespace {

// relax.nn.conv1d / conv2d / conv2d_transpose with TVM's attributes.
LegalizeFn ConvLegalizer(const std::string& name, bool transpose, const char* data_layout, const char* kernel_layout) {
  return [=](const ir::relax::Call& call, LegalizeContext* ctx) -> absl::StatusOr<Expr> {
    ConvSpec spec;
    spec.data_layout = StringAttr(call, "data_layout", data_layout);
    spec.kernel_layout = StringAttr(call, "kernel_layout", kernel_layout);
    spec.out_layout = StringAttr(call, "out_layout", spec.data_layout);
    spec.strides = IntArrayAttr(call, "strides").value_or(std::vector<int64_t>{});
    spec.padding = IntArrayAttr(call, "padding").value_or(std::vector<int64_t>{});
    spec.dilation = IntArrayAttr(call, "dilation").value_or(std::vector<int64_t>{});
    spec.output_padding = IntArrayAttr(call, "output_padding").value_or(std::vector<int64_t>{});
    spec.groups = IntAttr(call, "groups").value_or(1);
    spec.out_dtype = DTypeAttr(call, "out_dtype");
    spec.transpose = transpose;
    if (ctx->for_gpu()) return LegalizeConvGPU(spec, call, ctx);
    absl::StatusOr<std::vector<TensorSpec>> in = KernelInputs(call, {0, 1});
    if (!in.ok()) return in.status();
    spec.data = (*in)[0];
    spec.weight = (*in)[1];
    return EmitKernel(name, ConvKernel(spec), call, {0, 1}, ctx);
  };
}

}  // namespace

void RegisterConvOps(LegalizeTable* table) {
  (*table)["relax.nn.conv1d"] = ConvLegalizer("conv1d", false, "NCW", "OIW");
  (*table)["relax.nn.conv2d"] = ConvLegalizer("conv2d", false, "NCHW", "OIHW");
  (*table)["relax.nn.conv2d_transpose"] = ConvLegalizer("conv2d_transpose", true, "NCHW", "IOHW");
}

}  // namespace kiln::relax::legalize
