#include "compiler/ir/testing/samples.h"

namespace kiln::ir::testing {
namespace {

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }
Var IVar(const std::string& n) { return Var(n, DataType::Int(32)); }

Buffer Buf(const std::string& name) { return Buffer::Make(name, {I32(16), I32(8)}, DataType::Float(32)); }
Stmt Store(const Buffer& b) { return BufferStore(b, FloatImm(DataType::Float(32), 1.0), {I32(0), I32(1)}); }

}  // namespace

ObjectRef MakeSample(NodeKind kind) {
  Var x = IVar("x"), y = IVar("y");
  Buffer b = Buf("B");
  TensorType t4({IntImm(DataType::Int(64), 4)}, DataType::Float(32));
  Var rv("rv", Type(t4));
  switch (kind) {
    case NodeKind::kArray: return Array<PrimExpr>{I32(1), I32(2)};
    case NodeKind::kMap: return Map<String, ObjectRef>{{String("k"), I32(1)}};
    case NodeKind::kString: return String("hello");
    case NodeKind::kRange: return Range(I32(0), I32(8));
    case NodeKind::kOp: return Op("tirx.exp");
    case NodeKind::kGlobalVar: return GlobalVar("main");
    case NodeKind::kIRModule: return MakeModule();
    case NodeKind::kGlobalInfo: return GlobalInfo("vdevice", {{String("target"), String("cuda")}});
    case NodeKind::kPrimType: return PrimType(DataType::Float(16));
    case NodeKind::kPointerType: return PointerType(PrimType(DataType::Float(32)), "shared");
    case NodeKind::kTupleType: return TupleType({PrimType(DataType::Int(8)), PrimType(DataType::Bool())});
    case NodeKind::kFuncType: return FuncType({Type(t4)}, Type(t4), true);
    case NodeKind::kTensorType: return t4;
    case NodeKind::kShapeType: return ShapeType(Array<PrimExpr>{IntImm(DataType::Int(64), 2)});
    case NodeKind::kAnyType: return AnyType::Make();
    case NodeKind::kTensorMapType: return TensorMapType::Make();
    case NodeKind::kPackedFuncType: return PackedFuncType::Make();
    case NodeKind::kDTensorType: return DTensorType(t4, *MakeDeviceMesh({2}, Range(I32(0), I32(2))), "S[0]");
    case NodeKind::kVar: return x;
    case NodeKind::kSizeVar: return SizeVar("n", DataType::Int(64));
    case NodeKind::kIntImm: return I32(7);
    case NodeKind::kFloatImm: return FloatImm(DataType::Float(32), 0.5);
    case NodeKind::kStringImm: return ir::StringImm("msg");
    case NodeKind::kCast: return Cast(DataType::Float(32), x);
    case NodeKind::kAdd: return Add(x, y);
    case NodeKind::kSub: return Sub(x, y);
    case NodeKind::kMul: return Mul(x, y);
    case NodeKind::kDiv: return Div(x, y);
    case NodeKind::kMod: return Mod(x, y);
    case NodeKind::kFloorDiv: return FloorDiv(x, y);
    case NodeKind::kFloorMod: return FloorMod(x, y);
    case NodeKind::kMin: return Min(x, y);
    case NodeKind::kMax: return Max(x, y);
    case NodeKind::kEQ: return EQ(x, y);
    case NodeKind::kNE: return NE(x, y);
    case NodeKind::kLT: return LT(x, y);
    case NodeKind::kLE: return LE(x, y);
    case NodeKind::kGT: return GT(x, y);
    case NodeKind::kGE: return GE(x, y);
    case NodeKind::kAnd: return And(LT(x, y), GT(x, I32(0)));
    case NodeKind::kOr: return Or(LT(x, y), GT(x, I32(0)));
    case NodeKind::kNot: return Not(LT(x, y));
    case NodeKind::kSelect: return Select(LT(x, y), x, y);
    case NodeKind::kBufferLoad: return BufferLoad(b, {x, y});
    case NodeKind::kRamp: return Ramp(x, I32(1), 4);
    case NodeKind::kBroadcast: return Broadcast(x, 4);
    case NodeKind::kShuffle: return Shuffle({Ramp(x, I32(1), 4)}, {I32(3), I32(2), I32(1), I32(0)});
    case NodeKind::kLet: return Let(x, I32(3), Add(x, x));
    case NodeKind::kCall: return Call(DataType::Float(32), Op("tirx.exp"), {FloatImm(DataType::Float(32), 1.0)});
    case NodeKind::kBuffer: return b;
    case NodeKind::kBufferRegion: return BufferRegion::FullRegion(b);
    case NodeKind::kMatchBufferRegion: return MatchBufferRegion(Buf("M"), BufferRegion::FullRegion(b));
    case NodeKind::kIterVar: return IterVar(Range(I32(0), I32(16)), IVar("vi"), IterVarType::kDataPar);
    case NodeKind::kCommReducer: {
      auto n = make_object<CommReducerNode>();
      Var l("l", DataType::Float(32)), r("r", DataType::Float(32));
      n->lhs = {l};
      n->rhs = {r};
      n->result = {Add(l, r)};
      n->identity_element = {FloatImm(DataType::Float(32), 0.0)};
      return CommReducer(ObjectPtr<Object>(std::move(n)));
    }
    case NodeKind::kIndexMap: {
      auto n = make_object<IndexMapNode>();
      Var i("i", DataType::Int(32)), j("j", DataType::Int(32));
      n->initial_indices = {i, j};
      n->final_indices = {j, FloorDiv(i, I32(4)), FloorMod(i, I32(4))};
      return IndexMap(ObjectPtr<Object>(std::move(n)));
    }
    case NodeKind::kIter: return Iter(I32(8), I32(4), "laneid");
    case NodeKind::kTileLayout:
      return TileLayout({Iter(I32(8), I32(4), "m"), Iter(I32(4), I32(1), "m")}, {Iter(I32(2), I32(1), "warpid")},
                        {{String("m"), I32(3)}});
    case NodeKind::kComposeLayout: {
      auto n = make_object<ComposeLayoutNode>();
      n->per_element = 3;
      n->swizzle_len = 3;
      n->atom_len = 3;
      n->tile_layout = TileLayout::Default({I32(8), I32(64)});
      return ComposeLayout(ObjectPtr<Object>(std::move(n)));
    }
    case NodeKind::kLetStmt: return LetStmt(x, I32(1), Evaluate(x));
    case NodeKind::kAttrStmt: return AttrStmt(String("pragma"), "pragma_unroll", I32(1), Store(b));
    case NodeKind::kAssertStmt: return AssertStmt(GT(x, I32(0)), "ValueError", {String("x must be positive")});
    case NodeKind::kBufferStore: return Store(b);
    case NodeKind::kFor: return For(x, I32(0), I32(16), ForKind::kParallel, Evaluate(x));
    case NodeKind::kWhile: return While(LT(x, I32(4)), Break::Make());
    case NodeKind::kBreak: return Break::Make();
    case NodeKind::kContinue: return Continue::Make();
    case NodeKind::kIfThenElse: return IfThenElse(LT(x, y), Evaluate(x), Evaluate(y));
    case NodeKind::kSeqStmt: return SeqStmt({Evaluate(x), Evaluate(y)});
    case NodeKind::kEvaluate: return Evaluate(I32(0));
    case NodeKind::kAllocBuffer: return AllocBuffer(b, Store(b));
    case NodeKind::kDeclBuffer: return DeclBuffer(b, Store(b));
    case NodeKind::kSBlock: {
      auto n = make_object<SBlockNode>();
      Var vi = IVar("vi");
      n->iter_vars = {IterVar(Range(I32(0), I32(16)), vi, IterVarType::kDataPar)};
      n->name = "blk";
      n->writes = {BufferRegion(b, {Range(vi, I32(1)), Range(I32(0), I32(8))})};
      n->body = BufferStore(b, FloatImm(DataType::Float(32), 2.0), {vi, I32(0)});
      return SBlock(ObjectPtr<Object>(std::move(n)));
    }
    case NodeKind::kSBlockRealize: {
      SBlock blk = Downcast<SBlock>(MakeSample(NodeKind::kSBlock));
      return SBlockRealize({x}, IntImm(DataType::Bool(), 1), blk);
    }
    case NodeKind::kScopeIdDefStmt: {
      Var bx("bx", DataType::Int(32)), by("by", DataType::Int(32));
      return ScopeIdDefStmt({bx, by}, {I32(4), I32(2)}, ScopeBinding::kKernelCta, Evaluate(Add(bx, by)));
    }
    case NodeKind::kTilePrimitiveCall: {
      BufferRegion dst(b, {Range(I32(0), I32(16)), Range(I32(0), I32(8))});
      return TilePrimitiveCall("memset", {dst, FloatImm(DataType::Float(32), 1.25)}, {},
                               {{String("foo"), I32(42)}}, "v10", TileScope::kWarp);
    }
    case NodeKind::kPrimFunc: {
      Var h("B_handle", PointerType(PrimType(DataType::Float(32))));
      return PrimFunc({h}, Store(b), Type(), {{h, b}}, {{String("global_symbol"), String("f")}});
    }
    case NodeKind::kDataflowVar: return relax::DataflowVar("lv", Type(t4));
    case NodeKind::kConstant: return relax::Constant(DataType::Float(32), {2}, std::string(8, '\x01'));
    case NodeKind::kTuple: return relax::Tuple({rv, rv});
    case NodeKind::kTupleGetItem: return relax::TupleGetItem(relax::Tuple({rv}), 0);
    case NodeKind::kShapeExpr: return relax::ShapeExpr({IntImm(DataType::Int(64), 4)});
    case NodeKind::kPrimValue: return relax::PrimValue(IntImm(DataType::Int(64), 3));
    case NodeKind::kRelaxStringImm: return relax::StringImm("s");
    case NodeKind::kDataTypeImm: return relax::DataTypeImm(DataType::Float(16));
    case NodeKind::kRelaxCall: return relax::Call(Op("relax.add"), {rv, rv});
    case NodeKind::kIf:
      return relax::If(relax::PrimValue(IntImm(DataType::Bool(), 1)), relax::SeqExpr({}, rv), relax::SeqExpr({}, rv));
    case NodeKind::kSeqExpr: return relax::SeqExpr({}, rv);
    case NodeKind::kBindingBlock: return relax::BindingBlock({relax::VarBinding(Var("a", Type(t4)), rv)});
    case NodeKind::kDataflowBlock:
      return relax::DataflowBlock({relax::VarBinding(relax::DataflowVar("a", Type(t4)), rv)});
    case NodeKind::kVarBinding: return relax::VarBinding(Var("a", Type(t4)), rv);
    case NodeKind::kMatchCast: return relax::MatchCast(Var("m", Type(t4)), rv, Type(t4));
    case NodeKind::kFunction: return relax::Function({rv}, relax::SeqExpr({}, rv), Type(t4));
    case NodeKind::kExternFunc: return relax::ExternFunc("my_packed");
    default: return ObjectRef();
  }
}

IRModule MakeModule(const std::string& tag) {
  auto T = [&](const std::string& s) { return s + tag; };
  DataType f32 = DataType::Float(32);
  PrimExpr n16 = IntImm(DataType::Int(64), 16);
  Buffer A = Buffer::Make(T("A"), {n16, n16}, f32), B = Buffer::Make(T("B"), {n16, n16}, f32),
         C = Buffer::Make(T("C"), {n16, n16}, f32);
  Var ha(T("A_h"), PointerType(PrimType(f32))), hb(T("B_h"), PointerType(PrimType(f32))),
      hc(T("C_h"), PointerType(PrimType(f32)));
  Var i(T("i"), DataType::Int(64)), j(T("j"), DataType::Int(64)), k(T("k"), DataType::Int(64));
  Var vi(T("vi"), DataType::Int(64)), vj(T("vj"), DataType::Int(64)), vk(T("vk"), DataType::Int(64));
  auto blk = make_object<SBlockNode>();
  blk->name = "C";
  blk->iter_vars = {IterVar(Range(IntImm(DataType::Int(64), 0), n16), vi, IterVarType::kDataPar),
                    IterVar(Range(IntImm(DataType::Int(64), 0), n16), vj, IterVarType::kDataPar),
                    IterVar(Range(IntImm(DataType::Int(64), 0), n16), vk, IterVarType::kCommReduce)};
  blk->reads = {BufferRegion(A, {Range(vi, IntImm(DataType::Int(64), 1)), Range(vk, IntImm(DataType::Int(64), 1))}),
                BufferRegion(B, {Range(vk, IntImm(DataType::Int(64), 1)), Range(vj, IntImm(DataType::Int(64), 1))})};
  blk->writes = {BufferRegion(C, {Range(vi, IntImm(DataType::Int(64), 1)), Range(vj, IntImm(DataType::Int(64), 1))})};
  blk->init = BufferStore(C, FloatImm(f32, 0.0), {vi, vj});
  blk->body = BufferStore(C, Add(BufferLoad(C, {vi, vj}), Mul(BufferLoad(A, {vi, vk}), BufferLoad(B, {vk, vj}))),
                          {vi, vj});
  Stmt realize = SBlockRealize({i, j, k}, IntImm(DataType::Bool(), 1), SBlock(ObjectPtr<Object>(std::move(blk))));
  Stmt loops = For(i, IntImm(DataType::Int(64), 0), n16, ForKind::kSerial,
                   For(j, IntImm(DataType::Int(64), 0), n16, ForKind::kSerial,
                       For(k, IntImm(DataType::Int(64), 0), n16, ForKind::kSerial, realize)));
  PrimFunc mm({ha, hb, hc}, loops, Type(), {{ha, A}, {hb, B}, {hc, C}},
              {{String("global_symbol"), String("matmul")}, {String("tirx.noalias"), IntImm(DataType::Bool(), 1)}});

  TensorType tt({n16, n16}, f32);
  Var x(T("x"), Type(tt)), w(T("w"), Type(tt));
  relax::DataflowVar lv(T("lv"), Type(tt));
  Var gv(T("gv"), Type(tt));
  GlobalVar mm_gv("matmul");
  relax::Call call(Op("relax.call_tir"), {mm_gv, relax::Tuple({x, w})}, {}, {Type(tt)});
  relax::DataflowBlock df({relax::VarBinding(lv, call), relax::VarBinding(gv, relax::Call(Op("relax.add"), {lv, x}))});
  relax::Function main({x, w}, relax::SeqExpr({df}, gv), Type(tt), true,
                       {{String("global_symbol"), String("main")}});
  IRModule mod = IRModule::Make();
  mod.Add(mm_gv, mm);
  mod.Add(GlobalVar("main"), main);
  return mod;
}

}  // namespace kiln::ir::testing
