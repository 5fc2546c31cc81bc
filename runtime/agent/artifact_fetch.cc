#include "runtime/agent/artifact_fetch.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace kiln::agent {

absl::StatusOr<std::string> FetchArtifact(kiln::v1::CompileService::StubInterface& stub, const std::string& digest,
                                          const ArtifactFetchOptions& options) {
  auto to_status = [&](const grpc::Status& s) {
    if (options.to_status) return options.to_status(s);
    return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
  };
  std::string data;
  int64_t total = -1;  // unknown until the first chunk
  int failures = 0;    // calls in a row that brought no bytes
  for (;;) {
    grpc::ClientContext ctx;
    options.prepare(&ctx);
    kiln::v1::FetchArtifactRequest request;
    request.set_digest(digest);
    request.set_offset(data.size());
    request.set_chunk_bytes(options.chunk_bytes);
    std::unique_ptr<grpc::ClientReaderInterface<kiln::v1::ArtifactChunk>> reader = stub.FetchArtifact(&ctx, request);
    const size_t before = data.size();
    kiln::v1::ArtifactChunk chunk;
    absl::Status bad;
    while (bad.ok() && reader->Read(&chunk)) {
      if (total < 0) {
        if (chunk.total_size() > options.max_bytes) {
          bad = absl::InvalidArgumentError(absl::StrCat("artifact ", digest, " is ", chunk.total_size(),
                                                        " bytes, over the limit of ", options.max_bytes));
          break;
        }
        total = static_cast<int64_t>(chunk.total_size());
        data.reserve(total);
      }
      if (chunk.offset() != data.size()) {
        bad = absl::DataLossError(absl::StrCat("FetchArtifact ", digest, ": chunk at offset ", chunk.offset(),
                                               ", expected ", data.size()));
      } else if (static_cast<int64_t>(chunk.total_size()) != total) {
        bad = absl::DataLossError(
            absl::StrCat("FetchArtifact ", digest, ": total_size changed from ", total, " to ", chunk.total_size()));
      } else if (static_cast<int64_t>(data.size() + chunk.data().size()) > total) {
        bad = absl::DataLossError(absl::StrCat("FetchArtifact ", digest, ": more bytes than total_size ", total));
      } else {
        data.append(chunk.data());
      }
    }
    if (!bad.ok()) {
      ctx.TryCancel();
      reader->Finish();
      return bad;
    }
    grpc::Status st = reader->Finish();
    if (total >= 0 && static_cast<int64_t>(data.size()) == total) return data;  // even if it broke after the end
    if (st.ok() && total < 0) return absl::DataLossError(absl::StrCat("FetchArtifact ", digest, ": no chunks"));
    if (!st.ok() && st.error_code() != grpc::StatusCode::UNAVAILABLE) return to_status(st);
    // Broken (UNAVAILABLE) or ended early: resume from what arrived.
    failures = data.size() > before ? 0 : failures + 1;
    if (failures >= std::max(options.max_attempts, 1)) {
      if (!st.ok()) return to_status(st);
      return absl::DataLossError(
          absl::StrCat("FetchArtifact ", digest, ": the stream ended at ", data.size(), " of ", total, " bytes"));
    }
    if (options.backoff) absl::SleepFor(options.backoff(std::max(failures, 1), st));
  }
}

}  // namespace kiln::agent
