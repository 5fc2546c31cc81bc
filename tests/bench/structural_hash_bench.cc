// Structural hash / equality / serialization of a ~10,000-node PrimFunc, beside a peer measured
// in the same run: hashing the same function's serialized bytes with FNV-1a (a linear scan of as
// many bytes as the IR occupies on the wire), and memcpy of those bytes.
//
//   bazel run -c opt //tests/bench:structural_hash_bench
#include <cstring>
#include <string>

#include "benchmark/benchmark.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/serialize.h"
#include "compiler/ir/structural.h"

namespace kiln::ir {
namespace {

// for i in range(n): B[i] = A[i] * 3 + i // 2 - ... : a long flat SeqStmt of stores.
PrimFunc MakeBigFunc(int num_stores) {
  DataType f32 = DataType::Float(32), i32 = DataType::Int(32);
  Buffer A = Buffer::Make("A", {IntImm(i32, num_stores)}, f32), B = Buffer::Make("B", {IntImm(i32, num_stores)}, f32);
  Var ha("A_h", PointerType(PrimType(f32))), hb("B_h", PointerType(PrimType(f32)));
  std::vector<Stmt> stmts;
  for (int k = 0; k < num_stores; ++k) {
    PrimExpr idx = IntImm(i32, k);
    PrimExpr v = Add(Mul(BufferLoad(A, {idx}), FloatImm(f32, 3.0)), Cast(f32, FloorDiv(idx, IntImm(i32, 2))));
    stmts.push_back(BufferStore(B, v, {idx}));
  }
  return PrimFunc({ha, hb}, SeqStmt(Array<Stmt>(stmts)), Type(), {{ha, A}, {hb, B}});
}

int64_t CountNodes(const ObjectRef& r) {
  int64_t n = 0;
  std::vector<const Object*> stack = {r.get()};
  while (!stack.empty()) {
    const Object* o = stack.back();
    stack.pop_back();
    if (o == nullptr) continue;
    ++n;
    if (const auto* a = dynamic_cast<const ArrayNode*>(o)) {
      for (const ObjectRef& x : a->data) stack.push_back(x.get());
      continue;
    }
    if (dynamic_cast<const MapNode*>(o) || dynamic_cast<const StringNode*>(o)) continue;
    for (const FieldInfo& f : ListFields(o)) {
      if (f.kind == FieldKind::kRef) stack.push_back(static_cast<ObjectRef*>(f.addr)->get());
    }
  }
  return n;
}

// ~10,000 nodes: about 25 per store.
const PrimFunc& Func() {
  static const PrimFunc* f = new PrimFunc(MakeBigFunc(400));
  return *f;
}

void BM_StructuralHash(benchmark::State& state) {
  const PrimFunc& f = Func();
  for (auto _ : state) benchmark::DoNotOptimize(StructuralHash(f));
  state.counters["nodes"] = static_cast<double>(CountNodes(f));
}
BENCHMARK(BM_StructuralHash)->Unit(benchmark::kMicrosecond);

void BM_StructuralEqual(benchmark::State& state) {
  PrimFunc a = MakeBigFunc(400), b = MakeBigFunc(400);
  for (auto _ : state) benchmark::DoNotOptimize(StructuralEqual(a, b));
}
BENCHMARK(BM_StructuralEqual)->Unit(benchmark::kMicrosecond);

void BM_Serialize(benchmark::State& state) {
  const PrimFunc& f = Func();
  size_t bytes = 0;
  for (auto _ : state) bytes = Serialize(f)->size();
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Serialize)->Unit(benchmark::kMicrosecond);

void BM_Deserialize(benchmark::State& state) {
  std::string bytes = *Serialize(Func());
  for (auto _ : state) benchmark::DoNotOptimize(Deserialize(bytes).ok());
}
BENCHMARK(BM_Deserialize)->Unit(benchmark::kMicrosecond);

// Peers: a linear byte hash and memcpy over the serialized function.
void BM_Peer_FnvOverSerializedBytes(benchmark::State& state) {
  std::string bytes = *Serialize(Func());
  for (auto _ : state) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ULL;
    benchmark::DoNotOptimize(h);
  }
  state.SetBytesProcessed(state.iterations() * bytes.size());
}
BENCHMARK(BM_Peer_FnvOverSerializedBytes)->Unit(benchmark::kMicrosecond);

void BM_Peer_MemcpySerializedBytes(benchmark::State& state) {
  std::string bytes = *Serialize(Func());
  std::string dst(bytes.size(), '\0');
  for (auto _ : state) {
    std::memcpy(dst.data(), bytes.data(), bytes.size());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * bytes.size());
}
BENCHMARK(BM_Peer_MemcpySerializedBytes)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace kiln::ir

BENCHMARK_MAIN();
