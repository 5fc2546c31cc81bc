// Fuzz target: the IR deserializers (binary and JSON). Whatever the input, they must return a value
// or an error -- never crash, hang or leak -- and what they accept must hash and re-serialize.
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/ir/serialize.h"
#include "compiler/ir/structural.h"
#include "compiler/ir/testing/samples.h"
#include "tests/fuzz/fuzz_driver.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kiln::ir;  // NOLINT
  absl::string_view input(reinterpret_cast<const char*>(data), size);
  for (bool json : {false, true}) {
    absl::StatusOr<ObjectRef> r = json ? DeserializeFromJson(input) : Deserialize(input);
    if (!r.ok()) continue;
    (void)StructuralHash(*r);
    absl::StatusOr<std::string> again = Serialize(*r);
    if (!again.ok() || !Deserialize(*again).ok()) __builtin_trap();  // accepted IR must round-trip
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
