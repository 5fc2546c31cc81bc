// Fuzz target: the IR deserializers (binary and JSON). Whatever the input, they must return a value
// or an error -- never crash, hang or leak -- and what they accept must hash, re-serialize, and
// deserialize again to a structurally equal IR.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/ir/serialize.h"
#include "compiler/ir/structural.h"
#include "compiler/ir/testing/samples.h"
#include "compiler/ir/type_registry.h"
#include "tests/fuzz/fuzz_driver.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kiln::ir;  // NOLINT
  absl::string_view input(reinterpret_cast<const char*>(data), size);
  for (bool json : {false, true}) {
    absl::StatusOr<ObjectRef> r = json ? DeserializeFromJson(input) : Deserialize(input);
    if (!r.ok()) continue;
    (void)StructuralHash(*r);
    absl::StatusOr<std::string> again = Serialize(*r);
    if (!again.ok()) {
      std::fprintf(stderr, "ir_deserialize_fuzz: accepted IR does not serialize: %s\n",
                   std::string(again.status().message()).c_str());
      __builtin_trap();
    }
    absl::StatusOr<ObjectRef> back = Deserialize(*again);
    if (!back.ok()) {
      std::fprintf(stderr, "ir_deserialize_fuzz: re-serialized IR does not deserialize: %s\n",
                   std::string(back.status().message()).c_str());
      __builtin_trap();
    }
    // Each deserialization makes its own variables, so free ones (the input may be any node, e.g. a
    // lone expression) are mapped one to one rather than compared by identity.
    std::string path;
    if (!StructuralEqual(*r, *back, /*map_free_vars=*/true, &path)) {
      std::fprintf(stderr, "ir_deserialize_fuzz: the round trip changed the IR at %s\n", path.c_str());
      __builtin_trap();
    }
  }
  return 0;
}

std::vector<std::string> KilnFuzzSeeds() {
  using namespace kiln::ir;  // NOLINT
  std::vector<std::string> seeds;
  for (const auto& e : TypeRegistry::Global().entries()) {
    ObjectRef s = testing::MakeSample(e.kind);
    seeds.push_back(*Serialize(s));
  }
  seeds.push_back(*Serialize(testing::MakeModule()));
  seeds.push_back(*SerializeToJson(testing::MakeSample(NodeKind::kFor)));
  return seeds;
}
