#include "server/cache/disk_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "server/cache/sha256.h"

namespace kiln::server {
namespace {

constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'C', 'E', '0', '1'};
constexpr absl::Duration kStaleTemporary = absl::Hours(1);

absl::Status Errno(absl::string_view what, const std::string& path) {
  return absl::InternalError(absl::StrCat("disk cache: ", what, " ", path, ": ", strerror(errno)));
}

absl::Status MakeDirs(const std::string& path) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/') continue;
    std::string prefix = path.substr(0, i);
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) return Errno("cannot create", prefix);
  }
  return absl::OkStatus();
}

absl::Status WriteAll(int fd, absl::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Errno("cannot write", path);
    data.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

// False on a short file; errno set on an I/O error.
bool ReadAll(int fd, char* out, size_t size, off_t offset) {
  while (size > 0) {
    ssize_t n = pread(fd, out, size, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    out += n;
    size -= static_cast<size_t>(n);
    offset += n;
  }
  return true;
}

void PutU64(char* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(v >> (8 * i));
}
uint64_t GetU64(const char* in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t{static_cast<unsigned char>(in[i])} << (8 * i);
  return v;
}

// Access time as a file's mtime: now, at nanosecond resolution.
void Touch(int fd) {
  timespec now = absl::ToTimespec(absl::Now());
  timespec times[2] = {now, now};
  futimens(fd, times);  // best effort: a failed touch only makes eviction order less exact
}

std::vector<std::string> ListDir(const std::string& path) {
  std::vector<std::string> names;
  DIR* d = opendir(path.c_str());
  if (d == nullptr) return names;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] != '.') names.push_back(e->d_name);
  }
  closedir(d);
  return names;
}

}  // namespace

absl::StatusOr<std::unique_ptr<DiskCache>> DiskCache::Open(const std::string& dir, uint64_t capacity_bytes) {
  if (dir.empty()) return absl::InvalidArgumentError("disk cache: empty directory");
  std::unique_ptr<DiskCache> cache(new DiskCache(dir, capacity_bytes));
  for (const char* sub : {"/entries", "/tmp"}) {
    absl::Status st = MakeDirs(dir + sub);
    if (!st.ok()) return st;
  }
  std::string tmp = dir + "/tmp";
  absl::Time cutoff = absl::Now() - kStaleTemporary;
  for (const std::string& name : ListDir(tmp)) {
    std::string path = tmp + "/" + name;
    struct stat st;
    // ctime: a live writer's file was changed moments ago, whatever mtime it set.
    if (stat(path.c_str(), &st) == 0 && absl::TimeFromTimespec(st.st_ctim) < cutoff) unlink(path.c_str());
  }
  absl::MutexLock lock(&cache->mu_);
  absl::Status st = cache->Scan(/*evict=*/cache->capacity_bytes_ > 0);
  if (!st.ok()) return st;
  cache->stats_.evictions = 0;  // trimming a directory opened with a smaller capacity is not news
  return cache;
}

std::string DiskCache::PathFor(const CacheKey& key) const {
  std::string hex = key.Hex();
  return absl::StrCat(dir_, "/entries/", hex.substr(0, 2), "/", hex);
}

absl::StatusOr<Artifact> DiskCache::Get(const CacheKey& key) {
  std::string path = PathFor(key);
  auto miss = [&](bool corrupt) {
    absl::MutexLock lock(&mu_);
    ++stats_.misses;
    if (corrupt) ++stats_.corrupt;
    return Artifact();
  };
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return miss(false);
    return Errno("cannot open", path);
  }
  absl::Cleanup closer = [fd] { close(fd); };
  struct stat st;
  if (fstat(fd, &st) != 0) return Errno("cannot stat", path);

  char header[kDiskEntryHeaderBytes];
  bool ok = static_cast<uint64_t>(st.st_size) >= kDiskEntryHeaderBytes && ReadAll(fd, header, sizeof header, 0) &&
            memcmp(header, kMagic, sizeof kMagic) == 0 &&
            absl::string_view(header + 16, kSha256Bytes) == key.bytes() &&
            GetU64(header + 8) == static_cast<uint64_t>(st.st_size) - kDiskEntryHeaderBytes;
  auto value = std::make_shared<std::string>();
  if (ok) {
    value->resize(GetU64(header + 8));
    ok = ReadAll(fd, value->data(), value->size(), kDiskEntryHeaderBytes) &&
         Sha256Digest(*value) == absl::string_view(header + 48, kSha256Bytes);
  }
  if (!ok) {
    DropCorrupt(path, st);
    return miss(true);
  }
  Touch(fd);
  absl::MutexLock lock(&mu_);
  ++stats_.hits;
  return Artifact(std::move(value));
}

void DiskCache::DropCorrupt(const std::string& path, const struct stat& opened) {
  struct stat now;
  if (stat(path.c_str(), &now) == 0 && now.st_dev == opened.st_dev && now.st_ino == opened.st_ino) {
    unlink(path.c_str());  // a replacement renamed in just now would only cost a miss
  }
  // Rare: recount rather than guess what the damaged file had been counted as.
  absl::MutexLock lock(&mu_);
  Scan(/*evict=*/false).IgnoreError();  // a failed recount leaves the old estimate
}

absl::Status DiskCache::Put(const CacheKey& key, const Artifact& value) {
  if (value == nullptr) return absl::InvalidArgumentError("disk cache: null value");
  const uint64_t file_bytes = kDiskEntryHeaderBytes + value->size();
  if (file_bytes > capacity_bytes_) return absl::OkStatus();

  std::string path = PathFor(key);
  std::string shard = path.substr(0, path.rfind('/'));
  if (mkdir(shard.c_str(), 0755) != 0 && errno != EEXIST) return Errno("cannot create", shard);

  // mkstemp: a name unique among threads, instances and processes (created with O_EXCL).
  std::string tmp = absl::StrCat(dir_, "/tmp/", key.Hex(), ".XXXXXX");
  int fd = mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) return Errno("cannot create", tmp);
  fchmod(fd, 0644);  // mkstemp's 0600 would hide entries from other users' kilnd sharing the dir
  char header[kDiskEntryHeaderBytes];
  memcpy(header, kMagic, sizeof kMagic);
  PutU64(header + 8, value->size());
  memcpy(header + 16, key.bytes().data(), kSha256Bytes);
  memcpy(header + 48, Sha256Digest(*value).data(), kSha256Bytes);
  absl::Status st = WriteAll(fd, absl::string_view(header, sizeof header), tmp);
  if (st.ok()) st = WriteAll(fd, *value, tmp);
  if (st.ok() && fsync(fd) != 0) st = Errno("cannot fsync", tmp);
  if (st.ok()) Touch(fd);
  if (close(fd) != 0 && st.ok()) st = Errno("cannot close", tmp);
  struct stat old;
  bool replaced = st.ok() && stat(path.c_str(), &old) == 0;
  if (st.ok() && rename(tmp.c_str(), path.c_str()) != 0) st = Errno("cannot rename into", path);
  if (!st.ok()) {
    unlink(tmp.c_str());
    return st;
  }
  // The rename is durable only once the directory is.
  int dfd = open(shard.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }

  absl::MutexLock lock(&mu_);
  if (replaced) {
    stats_.bytes -= std::min<uint64_t>(stats_.bytes, old.st_size);
  } else {
    ++stats_.entries;
  }
  stats_.bytes += file_bytes;
  if (stats_.bytes > capacity_bytes_) return Scan(/*evict=*/true);
  return absl::OkStatus();
}

absl::Status DiskCache::Scan(bool evict) {
  struct File {
    absl::Time access;
    uint64_t size;
    std::string path;
  };
  std::vector<File> files;
  uint64_t total = 0;
  std::string entries = dir_ + "/entries";
  for (const std::string& shard : ListDir(entries)) {
    std::string shard_dir = entries + "/" + shard;
    for (const std::string& name : ListDir(shard_dir)) {
      std::string path = shard_dir + "/" + name;
      struct stat st;
      if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;  // removed meanwhile
      files.push_back({absl::TimeFromTimespec(st.st_mtim), static_cast<uint64_t>(st.st_size), path});
      total += st.st_size;
    }
  }
  if (evict && total > capacity_bytes_) {
    std::sort(files.begin(), files.end(), [](const File& a, const File& b) {
      return a.access != b.access ? a.access < b.access : a.path < b.path;
    });
    const uint64_t low_water = capacity_bytes_ / 10 * 9;
    size_t removed = 0;
    for (const File& f : files) {
      if (total <= low_water) break;
      // ENOENT: another process evicted it first; either way it no longer counts.
      if (unlink(f.path.c_str()) != 0 && errno != ENOENT) return Errno("cannot remove", f.path);
      total -= f.size;
      ++removed;
      ++stats_.evictions;
    }
    stats_.entries = files.size() - removed;
  } else {
    stats_.entries = files.size();
  }
  stats_.bytes = total;
  return absl::OkStatus();
}

CacheStats DiskCache::Stats() const {
  absl::MutexLock lock(&mu_);
  CacheStats s = stats_;
  s.capacity_bytes = capacity_bytes_;
  return s;
}

}  // namespace kiln::server
