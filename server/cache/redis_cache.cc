#include "server/cache/redis_cache.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/cache/sha256.h"
#include "server/cache/sigpipe_block.h"

namespace kiln::server {
namespace {

constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'R', 'C', '0', '1'};
// Bounds the keys one entry spans (and one MGET names), whatever a header written by another
// replica claims.
constexpr uint64_t kMinChunkBytes = 1024;

struct FreeReply {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using Reply = std::unique_ptr<redisReply, FreeReply>;
using Command = std::vector<absl::string_view>;

void PutU64(char* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(v >> (8 * i));
}
uint64_t GetU64(const char* in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t{static_cast<unsigned char>(in[i])} << (8 * i);
  return v;
}

absl::Status ParseAddress(absl::string_view address, std::string* host, int* port) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("redis cache: address \"", address, "\": ", why));
  };
  size_t colon = address.rfind(':');
  if (colon == absl::string_view::npos) return bad("expected HOST:PORT");
  absl::string_view h = address.substr(0, colon);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') {
    h = h.substr(1, h.size() - 2);
  } else if (h.find(':') != absl::string_view::npos) {
    return bad("an IPv6 host needs brackets, as in [::1]:6379");
  }
  if (h.empty()) return bad("empty host");
  if (!absl::SimpleAtoi(address.substr(colon + 1), port) || *port < 1 || *port > 65535) {
    return bad("the port must be a number from 1 to 65535");
  }
  *host = std::string(h);
  return absl::OkStatus();
}

// What a header says about its entry, once checked against the key it was read for.
struct Header {
  uint64_t size = 0;
  uint64_t chunk_bytes = 0;
  uint64_t chunks = 0;  // 0: the value is inline, after the header
  absl::string_view checksum;
};

std::string MakeHeader(const CacheKey& key, absl::string_view value, uint64_t chunk_bytes, uint64_t chunks) {
  std::string h(kRedisEntryHeaderBytes, '\0');
  memcpy(h.data(), kMagic, sizeof kMagic);
  PutU64(h.data() + 8, value.size());
  PutU64(h.data() + 16, chunk_bytes);
  PutU64(h.data() + 24, chunks);
  memcpy(h.data() + 32, key.bytes().data(), kSha256Bytes);
  memcpy(h.data() + 64, Sha256Digest(value).data(), kSha256Bytes);
  if (chunks == 0) h.append(value.data(), value.size());
  return h;
}

// False when `raw` is not a well-formed header of `key`'s entry. Sizes are checked against each
// other here (the chunk count must be the one the size and chunk size imply), before anything is
// fetched or allocated; the chunks and the checksum are checked once read. With `prefix_only`, `raw`
// is the first kRedisEntryHeaderBytes only (an inline value's length is not checked).
bool ParseHeader(absl::string_view raw, const CacheKey& key, Header* h, bool prefix_only = false) {
  if (raw.size() < kRedisEntryHeaderBytes || memcmp(raw.data(), kMagic, sizeof kMagic) != 0 ||
      raw.substr(32, kSha256Bytes) != key.bytes()) {
    return false;
  }
  h->size = GetU64(raw.data() + 8);
  h->chunk_bytes = GetU64(raw.data() + 16);
  h->chunks = GetU64(raw.data() + 24);
  h->checksum = raw.substr(64, kSha256Bytes);
  if (h->chunk_bytes < kMinChunkBytes) return false;
  if (h->chunks == 0) return prefix_only || raw.size() - kRedisEntryHeaderBytes == h->size;
  return raw.size() == kRedisEntryHeaderBytes && h->size > 0 && h->chunks == (h->size - 1) / h->chunk_bytes + 1;
}

absl::Status ReplyError(const redisReply* r) {
  return absl::InternalError(absl::StrCat("redis cache: ", absl::string_view(r->str, r->len)));
}

}  // namespace

// One pooled connection for the length of one operation; returned to the pool (or freed, if it
// failed) on destruction.
class RedisCache::Connection {
 public:
  Connection(RedisCache* cache, redisContext* c, bool reused) : cache_(cache), c_(c), reused_(reused) {}
  ~Connection() { cache_->Release(c_, failed()); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Sends `commands` pipelined (one batch, one round trip) and reads every reply (Redis error replies included,
  // for the caller to judge), so the connection stays in step. An I/O error fails the connection.
  absl::StatusOr<std::vector<Reply>> Run(const std::vector<Command>& commands) {
    std::vector<const char*> argv;
    std::vector<size_t> argvlen;
    for (const Command& cmd : commands) {
      argv.clear();
      argvlen.clear();
      for (absl::string_view arg : cmd) {
        argv.push_back(arg.data());
        argvlen.push_back(arg.size());
      }
      if (redisAppendCommandArgv(c_, static_cast<int>(argv.size()), argv.data(), argvlen.data()) != REDIS_OK) {
        return IoError();
      }
    }
    SigpipeBlock no_sigpipe;  // hiredis write()s; a vanished Redis must not kill kilnd
    std::vector<Reply> replies;
    for (size_t i = 0; i < commands.size(); ++i) {
      void* r = nullptr;
      if (redisGetReply(c_, &r) != REDIS_OK) return IoError();
      replies.emplace_back(static_cast<redisReply*>(r));
    }
    return replies;
  }

  // A connection left in an unknown protocol state (a WATCH that may still be active) is not
  // reused.
  void Discard() { discard_ = true; }
  bool failed() const { return discard_ || c_->err != 0; }
  bool reused() const { return reused_; }

 private:
  absl::Status IoError() {
    return absl::UnavailableError(absl::StrCat("redis cache: ", cache_->host_, ":", cache_->port_, ": ", c_->errstr));
  }

  RedisCache* const cache_;
  redisContext* const c_;
  const bool reused_;
  bool discard_ = false;
};

absl::StatusOr<std::unique_ptr<RedisCache>> RedisCache::Open(const RedisCacheOptions& options) {
  std::string host;
  int port = 0;
  absl::Status st = ParseAddress(options.address, &host, &port);
  if (!st.ok()) return st;
  auto bad = [](absl::string_view why) { return absl::InvalidArgumentError(absl::StrCat("redis cache: ", why)); };
  if (options.chunk_bytes < kMinChunkBytes) return bad(absl::StrCat("chunk_bytes must be at least ", kMinChunkBytes));
  if (options.max_connections < 1) return bad("max_connections must be at least 1");
  if (options.connect_timeout <= absl::ZeroDuration() || options.command_timeout <= absl::ZeroDuration()) {
    return bad("timeouts must be positive");
  }
  if (options.reconnect_backoff < absl::ZeroDuration()) return bad("reconnect_backoff must not be negative");
  if (options.ttl < absl::ZeroDuration() ||
      (options.ttl > absl::ZeroDuration() && options.ttl < absl::Milliseconds(1))) {
    return bad("ttl must be zero (none) or at least 1 ms");
  }
  return std::unique_ptr<RedisCache>(new RedisCache(options, std::move(host), port));
}

RedisCache::RedisCache(RedisCacheOptions options, std::string host, int port)
    : options_(std::move(options)), host_(std::move(host)), port_(port) {}

RedisCache::~RedisCache() {
  absl::MutexLock lock(&mu_);
  for (redisContext* c : idle_) redisFree(c);
}

std::string RedisCache::HeaderKey(const CacheKey& key) const { return absl::StrCat(options_.key_prefix, key.Hex()); }

std::string RedisCache::ChunkKey(const CacheKey& key, uint64_t i) const {
  return absl::StrCat(options_.key_prefix, key.Hex(), ":", i);
}

absl::StatusOr<std::unique_ptr<RedisCache::Connection>> RedisCache::Acquire(bool fresh) {
  redisContext* stale = nullptr;
  bool down = false;
  {
    absl::MutexLock lock(&mu_);
    while (idle_.empty() && open_connections_ >= options_.max_connections) freed_.Wait(&mu_);
    if (!idle_.empty()) {
      redisContext* c = idle_.back();
      idle_.pop_back();
      if (!fresh) return std::make_unique<Connection>(this, c, /*reused=*/true);
      stale = c;  // replaced below by a new connection
      --open_connections_;
    }
    down = absl::Now() < down_until_;
    if (down) {
      freed_.Signal();  // the slot of `stale`, if any, is free
    } else {
      ++open_connections_;
    }
  }
  redisFree(stale);  // null-safe
  if (down) {
    return absl::UnavailableError(
        absl::StrCat("redis cache: ", host_, ":", port_, " was unreachable moments ago; not retrying yet"));
  }
  redisContext* c = redisConnectWithTimeout(host_.c_str(), port_, absl::ToTimeval(options_.connect_timeout));
  if (c == nullptr || c->err != 0) {
    absl::Status st = absl::UnavailableError(absl::StrCat("redis cache: cannot connect to ", host_, ":", port_, ": ",
                                                          c != nullptr ? c->errstr : "out of memory"));
    redisFree(c);
    absl::MutexLock lock(&mu_);
    --open_connections_;
    down_until_ = absl::Now() + options_.reconnect_backoff;
    freed_.Signal();
    return st;
  }
  redisSetTimeout(c, absl::ToTimeval(options_.command_timeout));
  redisEnableKeepAlive(c);  // notices a peer that vanished while the connection sat idle
  return std::make_unique<Connection>(this, c, /*reused=*/false);
}

void RedisCache::Release(redisContext* c, bool failed) {
  {
    absl::MutexLock lock(&mu_);
    freed_.Signal();
    if (!failed) {
      idle_.push_back(c);
      return;
    }
    --open_connections_;
  }
  redisFree(c);
}

template <typename T, typename Op>
T RedisCache::WithConnection(Op op) {
  // A pooled connection may have died with its server (a Redis restart); that shows only when it
  // is used, so a failure on one is retried once on a new connection.
  bool retry = false;
  T result = [&]() -> T {
    absl::StatusOr<std::unique_ptr<Connection>> conn = Acquire(/*fresh=*/false);
    if (!conn.ok()) return conn.status();
    T r = op(**conn);
    retry = !r.ok() && (*conn)->reused() && (*conn)->failed();
    return r;
  }();  // the failed connection is released here, before a new one is made
  if (!retry) return result;
  absl::StatusOr<std::unique_ptr<Connection>> conn = Acquire(/*fresh=*/true);
  if (!conn.ok()) return conn.status();
  return op(**conn);
}

absl::Status RedisCache::Ping() {
  return WithConnection<absl::Status>([&](Connection& conn) -> absl::Status {
    absl::StatusOr<std::vector<Reply>> r = conn.Run({{"PING"}});
    if (!r.ok()) return r.status();
    if ((*r)[0]->type == REDIS_REPLY_ERROR) return ReplyError((*r)[0].get());
    return absl::OkStatus();
  });
}

absl::StatusOr<Artifact> RedisCache::Miss(bool corrupt) {
  absl::MutexLock lock(&mu_);
  ++stats_.misses;
  if (corrupt) ++stats_.corrupt;
  return Artifact();
}

absl::StatusOr<Artifact> RedisCache::Get(const CacheKey& key) {
  return WithConnection<absl::StatusOr<Artifact>>([&](Connection& conn) -> absl::StatusOr<Artifact> {
    const std::string header_key = HeaderKey(key);
    absl::StatusOr<std::vector<Reply>> got = conn.Run({{"GET", header_key}});
    if (!got.ok()) return got.status();
    const redisReply* r = (*got)[0].get();
    if (r->type == REDIS_REPLY_NIL) return Miss(false);
    if (r->type != REDIS_REPLY_STRING) return ReplyError(r);
    const std::string raw(r->str, r->len);
    Header h;
    if (!ParseHeader(raw, key, &h)) {
      DropCorrupt(conn, key, raw, 0);
      return Miss(true);
    }
    if (h.size > options_.max_value_bytes) return Miss(false);

    auto value = std::make_shared<std::string>();
    if (h.chunks == 0) {
      value->assign(raw, kRedisEntryHeaderBytes, std::string::npos);
    } else {
      // MGET is one command, so the header and the chunks it returns are one snapshot.
      std::vector<std::string> keys;
      keys.reserve(h.chunks + 1);
      keys.push_back(header_key);
      for (uint64_t i = 0; i < h.chunks; ++i) keys.push_back(ChunkKey(key, i));
      Command mget = {"MGET"};
      for (const std::string& k : keys) mget.push_back(k);
      absl::StatusOr<std::vector<Reply>> all = conn.Run({mget});
      if (!all.ok()) return all.status();
      const redisReply* a = (*all)[0].get();
      if (a->type == REDIS_REPLY_ERROR) return ReplyError(a);
      if (a->type != REDIS_REPLY_ARRAY || a->elements != keys.size()) {
        return absl::InternalError("redis cache: MGET answered with the wrong shape");
      }
      const redisReply* again = a->element[0];
      if (again->type != REDIS_REPLY_STRING || absl::string_view(again->str, again->len) != raw) {
        return Miss(false);  // replaced or removed since the first GET: not damage
      }
      value->reserve(h.size);
      for (uint64_t i = 0; i < h.chunks; ++i) {
        const redisReply* chunk = a->element[i + 1];
        const uint64_t want = i + 1 < h.chunks ? h.chunk_bytes : h.size - i * h.chunk_bytes;
        if (chunk->type != REDIS_REPLY_STRING || chunk->len != want) {
          DropCorrupt(conn, key, raw, h.chunks);
          return Miss(true);
        }
        value->append(chunk->str, chunk->len);
      }
    }
    if (Sha256Digest(*value) != h.checksum) {
      DropCorrupt(conn, key, raw, h.chunks);
      return Miss(true);
    }
    absl::MutexLock lock(&mu_);
    ++stats_.hits;
    return Artifact(std::move(value));
  });
}

void RedisCache::DropCorrupt(Connection& conn, const CacheKey& key, const std::string& seen, uint64_t chunks) {
  // WATCH: if a writer replaces the entry between our check and the DEL, EXEC does nothing.
  const std::string header_key = HeaderKey(key);
  absl::StatusOr<std::vector<Reply>> now = conn.Run({{"WATCH", header_key}, {"GET", header_key}});
  if (!now.ok()) return;  // best effort: the connection is dropped, the entry stays a miss
  const redisReply* r = (*now)[1].get();
  if (r->type != REDIS_REPLY_STRING || absl::string_view(r->str, r->len) != seen) {
    if (!conn.Run({{"UNWATCH"}}).ok()) conn.Discard();
    return;
  }
  std::vector<std::string> keys = {header_key};
  for (uint64_t i = 0; i < chunks; ++i) keys.push_back(ChunkKey(key, i));
  Command del = {"DEL"};
  for (const std::string& k : keys) del.push_back(k);
  if (!conn.Run({{"MULTI"}, del, {"EXEC"}}).ok()) conn.Discard();
}

absl::Status RedisCache::Put(const CacheKey& key, const Artifact& value) {
  if (value == nullptr) return absl::InvalidArgumentError("redis cache: null value");
  if (value->size() > options_.max_value_bytes) return absl::OkStatus();
  const uint64_t chunk_bytes = options_.chunk_bytes;
  const uint64_t chunks = value->size() <= chunk_bytes ? 0 : (value->size() - 1) / chunk_bytes + 1;
  const std::string header = MakeHeader(key, *value, chunk_bytes, chunks);
  const std::string header_key = HeaderKey(key);
  const std::string ttl_ms = absl::StrCat(absl::ToInt64Milliseconds(options_.ttl));

  absl::Status st = WithConnection<absl::Status>([&](Connection& conn) -> absl::Status {
    // An entry being replaced by a shorter one would leave chunks behind: delete them too (in the
    // same transaction). Another writer racing us can still leave some; the TTL or Redis's
    // eviction reclaims them.
    const std::string header_end = absl::StrCat(kRedisEntryHeaderBytes - 1);
    absl::StatusOr<std::vector<Reply>> old = conn.Run({{"GETRANGE", header_key, "0", header_end}});
    if (!old.ok()) return old.status();
    uint64_t stale_end = 0;
    Header old_header;
    const redisReply* r = (*old)[0].get();
    if (r->type == REDIS_REPLY_STRING &&
        ParseHeader(absl::string_view(r->str, r->len), key, &old_header, /*prefix_only=*/true)) {
      stale_end = old_header.chunks;
    }

    std::vector<std::string> chunk_keys;
    for (uint64_t i = 0; i < std::max(chunks, stale_end); ++i) chunk_keys.push_back(ChunkKey(key, i));
    auto set = [&](absl::string_view k, absl::string_view v) {
      Command c = {"SET", k, v};
      if (options_.ttl > absl::ZeroDuration()) {
        c.push_back("PX");
        c.push_back(ttl_ms);
      }
      return c;
    };
    std::vector<Command> tx = {{"MULTI"}};
    if (stale_end > chunks) {
      Command del = {"DEL"};
      for (uint64_t i = chunks; i < stale_end; ++i) del.push_back(chunk_keys[i]);
      tx.push_back(std::move(del));
    }
    for (uint64_t i = 0; i < chunks; ++i) {
      tx.push_back(set(chunk_keys[i], absl::string_view(*value).substr(i * chunk_bytes, chunk_bytes)));
    }
    tx.push_back(set(header_key, header));  // last: readers look for the header first
    tx.push_back({"EXEC"});
    absl::StatusOr<std::vector<Reply>> done = conn.Run(tx);
    if (!done.ok()) return done.status();
    // A command Redis refused while queueing (e.g. OOM under maxmemory noeviction) shows here,
    // and makes EXEC fail with EXECABORT; one that failed inside EXEC shows in EXEC's array.
    for (const Reply& reply : *done) {
      if (reply->type == REDIS_REPLY_ERROR) return ReplyError(reply.get());
    }
    const redisReply* exec = done->back().get();
    if (exec->type != REDIS_REPLY_ARRAY) return absl::InternalError("redis cache: the write transaction was aborted");
    for (size_t i = 0; i < exec->elements; ++i) {
      if (exec->element[i]->type == REDIS_REPLY_ERROR) return ReplyError(exec->element[i]);
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  absl::MutexLock lock(&mu_);
  ++stats_.entries;
  stats_.bytes += value->size();
  return absl::OkStatus();
}

CacheStats RedisCache::Stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

}  // namespace kiln::server
