#include "server/cache/key.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "compiler/driver/relax_build.h"
#include "compiler/ir/serialize.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "proto/ir.pb.h"
#include "server/cache/sha256.h"

namespace kiln::server {
namespace {

// Bumped when the framing below changes, so old keys can never match new material.
constexpr absl::string_view kKeySchema = "kiln-cache-key/1";
constexpr size_t kIRMagicBytes = 8;

// Length-prefixed (u64 little-endian) so that ("ab", "c") and ("a", "bc") hash differently.
void Frame(Sha256& h, absl::string_view part) {
  uint64_t n = part.size();
  char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<char>(n >> (8 * i));
  h.Update(absl::string_view(len, 8));
  h.Update(part);
}

void FrameMap(Sha256& h, absl::string_view tag, const std::map<std::string, std::string>& m) {
  Frame(h, absl::StrCat(tag, ":", m.size()));
  for (const auto& [k, v] : m) {  // std::map: sorted, whatever order the client sent
    Frame(h, k);
    Frame(h, v);
  }
}

}  // namespace

absl::StatusOr<std::string> CanonicalModuleBytes(const ir::IRModule& module, bool keep_spans) {
  absl::StatusOr<std::string> bytes = ir::Serialize(module);
  if (!bytes.ok()) return bytes.status();
  kiln::v1::IRGraph graph;
  if (bytes->size() < kIRMagicBytes ||
      !graph.ParseFromArray(bytes->data() + kIRMagicBytes, static_cast<int>(bytes->size() - kIRMagicBytes))) {
    return absl::InternalError("cache key: the module's serialization does not parse back");
  }
  graph.clear_producer();
  if (!keep_spans) {
    graph.clear_sources();
    for (kiln::v1::IRNode& node : *graph.mutable_nodes()) {
      for (kiln::v1::IRField& field : *node.mutable_fields()) {
        if (field.value_case() == kiln::v1::IRField::kSpan) field.mutable_span()->Clear();
      }
    }
  }
  std::string out = bytes->substr(0, kIRMagicBytes);
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    if (!graph.SerializeToCodedStream(&coded)) return absl::InternalError("cache key: reserialization failed");
  }
  return out;
}

CacheKey CacheKeyFor(absl::string_view canonical, absl::string_view normalized_target, const KeyMaterial& material) {
  Sha256 h;
  Frame(h, kKeySchema);
  Frame(h, material.compiler_version);
  Frame(h, normalized_target);
  FrameMap(h, "options", material.options);
  Frame(h, absl::StrCat("entries:", material.entries.size()));
  for (const std::string& e : material.entries) Frame(h, e);
  FrameMap(h, "extra_vars", material.extra_vars);
  if (material.checked) Frame(h, "checked");
  Frame(h, canonical);
  return *CacheKey::FromDigest(h.Finish());  // a SHA-256 digest always has the right length
}

absl::StatusOr<CacheKey> ComputeCacheKey(const ir::IRModule& module, const KeyMaterial& material) {
  absl::StatusOr<std::string> target = driver::NormalizeTarget(material.target);
  if (!target.ok()) return target.status();
  absl::StatusOr<std::string> canonical = CanonicalModuleBytes(module, material.checked);
  if (!canonical.ok()) return canonical.status();
  return CacheKeyFor(*canonical, *target, material);
}

}  // namespace kiln::server
