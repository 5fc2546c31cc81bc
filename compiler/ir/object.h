// The object system under every IR node: intrusive, thread-safe reference counting, a stable
// per-type key used by reflection and serialization, and typed references (ObjectRef subclasses).
//
// Nodes are immutable once shared: passes build new nodes, or CopyOnWrite() a uniquely held one.
// That is what lets one IRModule be read by many daemon threads at once without locks.
#ifndef KILN_COMPILER_IR_OBJECT_H_
#define KILN_COMPILER_IR_OBJECT_H_

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace kiln::ir {

class FieldVisitor;
class Object;
template <typename T> class ObjectPtr;
template <typename T, typename... Args> ObjectPtr<T> make_object(Args&&... args);

// Every concrete node type. The functors dispatch on it with a switch; reflection keys it to a type
// name. Keep in sync with the TypeRegistry list in type_registry.cc (structural_test checks that every
// kind is registered).
enum class NodeKind : uint16_t {
  kInvalid = 0,
  // containers
  kArray, kMap, kString,
  // shared IR
  kRange, kOp, kGlobalVar, kIRModule, kGlobalInfo,
  // types
  kPrimType, kPointerType, kTupleType, kFuncType, kTensorType, kShapeType, kAnyType, kPackedFuncType,
  kTensorMapType,
  kDTensorType,
  // TIR expressions
  kVar, kSizeVar, kIntImm, kFloatImm, kStringImm, kCast,
  kAdd, kSub, kMul, kDiv, kMod, kFloorDiv, kFloorMod, kMin, kMax,
  kEQ, kNE, kLT, kLE, kGT, kGE, kAnd, kOr, kNot,
  kSelect, kBufferLoad, kRamp, kBroadcast, kShuffle, kLet, kCall,
  // TIR statements and friends
  kBuffer, kBufferRegion, kMatchBufferRegion, kIterVar, kCommReducer, kIndexMap,
  kIter, kTileLayout, kComposeLayout,
  kLetStmt, kAttrStmt, kAssertStmt, kBufferStore, kFor, kWhile, kBreak, kContinue, kIfThenElse,
  kSeqStmt, kEvaluate, kAllocBuffer, kDeclBuffer, kSBlock, kSBlockRealize, kScopeIdDefStmt, kTilePrimitiveCall,
  kPrimFunc,
  // Relax
  kDataflowVar, kConstant, kTuple, kTupleGetItem, kShapeExpr, kPrimValue, kRelaxStringImm,
  kDataTypeImm, kRelaxCall, kIf, kSeqExpr, kBindingBlock, kDataflowBlock, kVarBinding, kMatchCast,
  kFunction, kExternFunc,
  kNumKinds
};

// Nodes with identity (variables and buffers): structural equality maps them at their binding site
// instead of comparing them by value.
inline bool IsBindingKind(NodeKind k) {
  return k == NodeKind::kVar || k == NodeKind::kSizeVar || k == NodeKind::kBuffer || k == NodeKind::kDataflowVar;
}

// Base of all IR nodes. Not copyable: identity matters (a Var is its object).
class Object {
 public:
  Object() = default;
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
  virtual ~Object() = default;

  NodeKind kind() const { return kind_; }
  // The reflection key, e.g. "tirx.For". Stable: it is written into serialized modules.
  virtual const char* type_key() const = 0;
  // Declares the node's fields once; equality, hashing, serialization and JSON derive from it.
  virtual void VisitFields(FieldVisitor* v) = 0;

  bool unique() const { return ref_count_.load(std::memory_order_acquire) == 1; }
  int32_t use_count() const { return ref_count_.load(std::memory_order_relaxed); }

  template <typename T>
  bool IsInstance() const { return dynamic_cast<const T*>(this) != nullptr; }

 private:
  template <typename T> friend class ObjectPtr;
  template <typename T, typename... Args> friend ObjectPtr<T> make_object(Args&&...);
  friend class TypeRegistry;

  void IncRef() const { ref_count_.fetch_add(1, std::memory_order_relaxed); }
  void DecRef() const {
    if (ref_count_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  mutable std::atomic<int32_t> ref_count_{0};
  NodeKind kind_ = NodeKind::kInvalid;
};

// An owning pointer with an intrusive count.
template <typename T>
class ObjectPtr {
 public:
  ObjectPtr() = default;
  ObjectPtr(std::nullptr_t) {}  // NOLINT
  explicit ObjectPtr(T* p) : p_(p) { if (p_) p_->IncRef(); }
  ObjectPtr(const ObjectPtr& o) : ObjectPtr(o.p_) {}
  ObjectPtr(ObjectPtr&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  ObjectPtr(const ObjectPtr<U>& o) : ObjectPtr(o.get()) {}  // NOLINT
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  ObjectPtr(ObjectPtr<U>&& o) noexcept : p_(o.release()) {}  // NOLINT
  ~ObjectPtr() { if (p_) p_->DecRef(); }
  ObjectPtr& operator=(ObjectPtr o) noexcept { std::swap(p_, o.p_); return *this; }

  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  template <typename U> friend class ObjectPtr;
  // Private on purpose: ObjectPtr<Object>(p.release()) would count the reference twice and leak.
  // Convert with ObjectPtr<Object>(std::move(p)) instead.
  T* release() { T* p = p_; p_ = nullptr; return p; }

  T* p_ = nullptr;
};

template <typename T, typename... Args>
ObjectPtr<T> make_object(Args&&... args) {
  T* p = new T(std::forward<Args>(args)...);
  p->kind_ = T::kKind;
  return ObjectPtr<T>(p);
}

// A nullable, shared, read-only handle to a node. Typed subclasses add operator-> for their node.
class ObjectRef {
 public:
  using ContainerType = Object;
  ObjectRef() = default;
  explicit ObjectRef(ObjectPtr<Object> p) : data_(std::move(p)) {}

  const Object* get() const { return data_.get(); }
  const Object* operator->() const { return data_.get(); }
  bool defined() const { return data_.get() != nullptr; }
  explicit operator bool() const { return defined(); }
  bool same_as(const ObjectRef& o) const { return data_.get() == o.data_.get(); }
  bool operator==(const ObjectRef& o) const { return same_as(o); }
  bool operator!=(const ObjectRef& o) const { return !same_as(o); }
  int32_t use_count() const { return data_ ? data_->use_count() : 0; }

  template <typename T>
  const T* as() const { return dynamic_cast<const T*>(data_.get()); }

  // Mutable access for builders and deserializers that own the only reference.
  Object* get_mutable() const { return data_.get(); }
  const ObjectPtr<Object>& ptr() const { return data_; }

 protected:
  ObjectPtr<Object> data_;
};

struct ObjectPtrHash {
  size_t operator()(const ObjectRef& r) const { return std::hash<const void*>()(r.get()); }
};
struct ObjectPtrEqual {
  bool operator()(const ObjectRef& a, const ObjectRef& b) const { return a.same_as(b); }
};

// Checked downcast between reference types. Returns a null ref if the node is of another type.
template <typename To>
To TryDowncast(const ObjectRef& r) {
  if (!r.defined() || r.as<typename To::ContainerType>() == nullptr) return To();
  return To(r.ptr());
}
template <typename To>
To Downcast(const ObjectRef& r) { return TryDowncast<To>(r); }

}  // namespace kiln::ir

// Declares the usual members of a typed reference `Ref` to node `Node` deriving from `Parent`.
#define KILN_DEFINE_REF(Ref, Parent, Node)                                                  \
 public:                                                                                    \
  using ContainerType = Node;                                                               \
  Ref() = default;                                                                          \
  explicit Ref(::kiln::ir::ObjectPtr<::kiln::ir::Object> p) : Parent(std::move(p)) {}      \
  const Node* operator->() const { return static_cast<const Node*>(data_.get()); }          \
  const Node* get() const { return static_cast<const Node*>(data_.get()); }                 \
  /* Copy-on-write: returns a node this ref alone owns, cloning it when shared. */         \
  /* A template so that abstract node types never instantiate it. */                        \
  template <typename N = Node>                                                              \
  N* CopyOnWrite() {                                                                        \
    if (!data_->unique()) data_ = ::kiln::ir::ObjectPtr<::kiln::ir::Object>(std::move(               \
        ::kiln::ir::CloneNode<N>(*static_cast<const N*>(data_.get()))));           \
    return static_cast<N*>(data_.get());                                                    \
  }

// Declares the node boilerplate: type key and kind.
#define KILN_DECLARE_NODE(Node, Key, Kind)                        \
 public:                                                          \
  static constexpr const char* kTypeKey = Key;                    \
  static constexpr ::kiln::ir::NodeKind kKind = ::kiln::ir::NodeKind::Kind; \
  const char* type_key() const override { return kTypeKey; }

namespace kiln::ir {
// Member-wise copy of a node (fields are refs and values, so this is a shallow clone).
template <typename Node>
ObjectPtr<Node> CloneNode(const Node& n);
}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_OBJECT_H_
