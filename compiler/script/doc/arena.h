// Memory for the nodes of one Doc tree that the reader builds. A 100-line function reads into a
// couple of thousand nodes of about half a kilobyte each; taking them one by one from malloc, and
// giving them back one by one when the tree dies, was a fifth of the reader's time. The reader
// makes each node with std::allocate_shared and an ArenaAllocator instead: allocating bumps a
// pointer, freeing a node gives nothing back, and the arena's blocks go back to malloc when its
// last node is freed. Internal to compiler/script/doc.
//
// The arena counts its references: one for each node it holds plus one for the reader while it
// reads, so nodes keep it alive wherever they go (a subtree kept after its Module is dropped stays
// valid). Only the reading thread allocates; nodes may be freed on any thread.
#ifndef KILN_COMPILER_SCRIPT_DOC_ARENA_H_
#define KILN_COMPILER_SCRIPT_DOC_ARENA_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace kiln::script::doc::internal {

class NodeArena {
 public:
  // A new arena holding one reference, the creator's (release it with Unref).
  static NodeArena* Create() { return new NodeArena(); }

  NodeArena(const NodeArena&) = delete;
  NodeArena& operator=(const NodeArena&) = delete;

  void Ref() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref() {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  // `bytes` aligned to `align` (at most alignof(std::max_align_t)); lives as long as the arena.
  void* Allocate(size_t bytes, size_t align) {
    size_t pad = (align - reinterpret_cast<uintptr_t>(ptr_) % align) % align;
    if (pad + bytes > left_) return AllocateFallback(bytes);
    char* p = ptr_ + pad;
    ptr_ = p + bytes;
    left_ -= pad + bytes;
    return p;
  }

 private:
  // Blocks stay under glibc's mmap threshold, so a freed block is reused by the next read.
  static constexpr size_t kBlockSize = 64 * 1024;

  NodeArena() = default;
  ~NodeArena() = default;

  void* AllocateFallback(size_t bytes) {
    if (bytes > kBlockSize / 4) return NewBlock(bytes);  // a block of its own; keep the current one
    ptr_ = NewBlock(kBlockSize);
    left_ = kBlockSize;
    return Allocate(bytes, alignof(std::max_align_t));
  }
  char* NewBlock(size_t bytes) {
    // new[], not make_unique: the block is left uninitialized; it is max_align_t-aligned.
    blocks_.emplace_back(new char[bytes]);
    return blocks_.back().get();
  }

  std::vector<std::unique_ptr<char[]>> blocks_;
  char* ptr_ = nullptr;
  size_t left_ = 0;
  std::atomic<int64_t> refs_{1};
};

// A std allocator over a NodeArena: each allocation holds a reference to the arena until it is
// deallocated. Copies share the arena.
template <typename T>
class ArenaAllocator {
 public:
  using value_type = T;

  explicit ArenaAllocator(NodeArena* arena) : arena_(arena) {}
  template <typename U>
  ArenaAllocator(const ArenaAllocator<U>& other) : arena_(other.arena()) {}  // NOLINT: rebinding

  T* allocate(size_t n) {
    void* p = arena_->Allocate(n * sizeof(T), alignof(T));
    arena_->Ref();
    return static_cast<T*>(p);
  }
  void deallocate(T*, size_t) { arena_->Unref(); }

  NodeArena* arena() const { return arena_; }

 private:
  NodeArena* arena_;
};

template <typename T, typename U>
bool operator==(const ArenaAllocator<T>& a, const ArenaAllocator<U>& b) {
  return a.arena() == b.arena();
}
template <typename T, typename U>
bool operator!=(const ArenaAllocator<T>& a, const ArenaAllocator<U>& b) {
  return !(a == b);
}

}  // namespace kiln::script::doc::internal

#endif  // KILN_COMPILER_SCRIPT_DOC_ARENA_H_
