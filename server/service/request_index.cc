#include "server/service/request_index.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "compiler/version.h"
#include "server/cache/sha256.h"

namespace kiln::server {

CacheKey RequestIndex::Digest(const v1::CompileRequest& req) {
  v1::CompileRequest copy = req;
  copy.clear_max_inline_bytes();
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);  // map fields in key order
    copy.SerializeToCodedStream(&coded);
  }
  Sha256 h;
  h.Update(kKilnVersion);
  h.Update(std::string(1, '\0'));
  h.Update(bytes);
  return *CacheKey::FromDigest(h.Finish());
}

std::optional<RequestIndex::Entry> RequestIndex::Find(const CacheKey& digest) const {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(digest);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

void RequestIndex::Insert(const CacheKey& digest, Entry entry) {
  absl::MutexLock lock(&mu_);
  if (!entries_.insert_or_assign(digest, std::move(entry)).second) return;  // replaced: already ordered
  order_.push_back(digest);
  while (order_.size() > capacity_) {
    entries_.erase(order_.front());
    order_.pop_front();
  }
}

size_t RequestIndex::size() const {
  absl::MutexLock lock(&mu_);
  return entries_.size();
}

}  // namespace kiln::server
