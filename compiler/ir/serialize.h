// Serialization of IR (an IRModule or any node) to kiln's versioned format, proto/ir.proto.
//
// Binary form: the 8-byte magic "KILNIR\0" + format version byte, then the IRGraph message.
// JSON form (for humans, `kiln ir --to json`): protobuf's JSON mapping of the same IRGraph.
// Deserialize(Serialize(x)) is structurally equal to x, and re-serializing gives the same bytes.
//
// Deserialization treats its input as hostile: every malformed input (bad magic or version,
// truncated message, unknown type or field, wrong field kind, a reference to a later node, a node
// of the wrong type in a typed field, out-of-range enums or dtypes, nesting deeper than
// kMaxDepth, DAGs whose tree expansion explodes) is an INVALID_ARGUMENT naming the node and the
// problem, never a crash or a hang.
#ifndef KILN_COMPILER_IR_SERIALIZE_H_
#define KILN_COMPILER_IR_SERIALIZE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/object.h"

namespace kiln::ir {

inline constexpr uint32_t kIRFormatVersion = 1;
// Deepest node nesting accepted: the recursive walkers (equality, printer, passes) stay far from
// the stack limit of a worker thread.
inline constexpr int kMaxDepth = 1000;
// Largest tree a graph may expand to (shared nodes counted once per reference).
inline constexpr int64_t kMaxExpandedSize = int64_t{1} << 26;

absl::StatusOr<std::string> Serialize(const ObjectRef& node);
absl::StatusOr<ObjectRef> Deserialize(absl::string_view bytes);

absl::StatusOr<std::string> SerializeToJson(const ObjectRef& node);
absl::StatusOr<ObjectRef> DeserializeFromJson(absl::string_view json);

// True if `bytes` starts with the binary magic.
bool LooksLikeSerializedIR(absl::string_view bytes);

}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_SERIALIZE_H_
