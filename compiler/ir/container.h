// Reference-counted containers that can sit in node fields: String, Array<T>, Map<K, V>.
// They are nodes themselves, so reflection, equality and serialization treat them uniformly.
// Map keeps insertion order: printing and serialization are deterministic.
#ifndef KILN_COMPILER_IR_CONTAINER_H_
#define KILN_COMPILER_IR_CONTAINER_H_

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/object.h"

namespace kiln::ir {

class StringNode : public Object {
 public:
  std::string value;
  void VisitFields(FieldVisitor* v) override;
  KILN_DECLARE_NODE(StringNode, "ffi.String", kString)
};

class String : public ObjectRef {
  KILN_DEFINE_REF(String, ObjectRef, StringNode)
  String(std::string s);          // NOLINT
  String(const char* s);          // NOLINT
  const std::string& str() const { return get()->value; }
  operator const std::string&() const { return get()->value; }  // NOLINT
  bool operator==(const std::string& s) const { return defined() && get()->value == s; }
};

class ArrayNode : public Object {
 public:
  std::vector<ObjectRef> data;
  void VisitFields(FieldVisitor* v) override;
  KILN_DECLARE_NODE(ArrayNode, "ffi.Array", kArray)
};

// Array<T> is never null once constructed by its constructors; a default-constructed one is an
// empty array (allocated lazily) so that fields need no null checks.
template <typename T>
class Array : public ObjectRef {
 public:
  using ContainerType = ArrayNode;
  using value_type = T;
  Array() = default;
  explicit Array(ObjectPtr<Object> p) : ObjectRef(std::move(p)) {}
  Array(std::initializer_list<T> init) { for (const T& x : init) push_back(x); }
  Array(const std::vector<T>& v) { for (const T& x : v) push_back(x); }  // NOLINT
  template <typename It>
  Array(It b, It e) { for (; b != e; ++b) push_back(*b); }

  size_t size() const { return data_ ? node()->data.size() : 0; }
  bool empty() const { return size() == 0; }
  T operator[](size_t i) const { return T(node()->data[i].ptr()); }
  T back() const { return (*this)[size() - 1]; }

  void push_back(const T& x) { Mutable()->data.push_back(x); }
  void Set(size_t i, const T& x) { Mutable()->data[i] = x; }
  void pop_back() { Mutable()->data.pop_back(); }
  void clear() { if (data_) Mutable()->data.clear(); }

  class iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = T;
    explicit iterator(const ObjectRef* p) : p_(p) {}
    T operator*() const { return T(p_->ptr()); }
    iterator& operator++() { ++p_; return *this; }
    iterator operator+(difference_type n) const { return iterator(p_ + n); }
    difference_type operator-(const iterator& o) const { return p_ - o.p_; }
    bool operator==(const iterator& o) const { return p_ == o.p_; }
    bool operator!=(const iterator& o) const { return p_ != o.p_; }
   private:
    const ObjectRef* p_;
  };
  iterator begin() const { return iterator(data_ ? node()->data.data() : nullptr); }
  iterator end() const { return iterator(data_ ? node()->data.data() + node()->data.size() : nullptr); }

  std::vector<T> ToVector() const { return std::vector<T>(begin(), end()); }
  const ArrayNode* node() const { return static_cast<const ArrayNode*>(data_.get()); }

  ArrayNode* Mutable() {
    if (!data_) {
      data_ = ObjectPtr<Object>(std::move(make_object<ArrayNode>()));
    } else if (!data_->unique()) {
      auto n = make_object<ArrayNode>();
      n->data = node()->data;
      data_ = ObjectPtr<Object>(std::move(n));
    }
    return static_cast<ArrayNode*>(data_.get());
  }
};

class MapNode : public Object {
 public:
  std::vector<std::pair<ObjectRef, ObjectRef>> data;  // insertion order
  void VisitFields(FieldVisitor* v) override;
  KILN_DECLARE_NODE(MapNode, "ffi.Map", kMap)
};

// A small ordered map. String keys compare by value; other keys by identity.
template <typename K, typename V>
class Map : public ObjectRef {
 public:
  using ContainerType = MapNode;
  Map() = default;
  explicit Map(ObjectPtr<Object> p) : ObjectRef(std::move(p)) {}
  Map(std::initializer_list<std::pair<K, V>> init) { for (auto& kv : init) Set(kv.first, kv.second); }

  size_t size() const { return data_ ? node()->data.size() : 0; }
  bool empty() const { return size() == 0; }

  // Index of key, or -1.
  int64_t Find(const K& key) const {
    if (!data_) return -1;
    const auto& d = node()->data;
    for (size_t i = 0; i < d.size(); ++i) {
      if (KeyEqual(d[i].first, key)) return static_cast<int64_t>(i);
    }
    return -1;
  }
  bool count(const K& key) const { return Find(key) >= 0; }
  V Get(const K& key, V dflt = V()) const {
    int64_t i = Find(key);
    return i < 0 ? dflt : V(node()->data[i].second.ptr());
  }
  void Set(const K& key, const V& value) {
    int64_t i = Find(key);
    MapNode* n = Mutable();
    if (i < 0) n->data.emplace_back(key, value); else n->data[i].second = value;
  }
  void erase(const K& key) {
    int64_t i = Find(key);
    if (i >= 0) { MapNode* n = Mutable(); n->data.erase(n->data.begin() + i); }
  }
  K key_at(size_t i) const { return K(node()->data[i].first.ptr()); }
  V value_at(size_t i) const { return V(node()->data[i].second.ptr()); }
  std::vector<std::pair<K, V>> items() const {
    std::vector<std::pair<K, V>> out;
    for (size_t i = 0; i < size(); ++i) out.emplace_back(key_at(i), value_at(i));
    return out;
  }
  const MapNode* node() const { return static_cast<const MapNode*>(data_.get()); }

  MapNode* Mutable() {
    if (!data_) {
      data_ = ObjectPtr<Object>(std::move(make_object<MapNode>()));
    } else if (!data_->unique()) {
      auto n = make_object<MapNode>();
      n->data = node()->data;
      data_ = ObjectPtr<Object>(std::move(n));
    }
    return static_cast<MapNode*>(data_.get());
  }

  static bool KeyEqual(const ObjectRef& a, const ObjectRef& b) {
    if (a.same_as(b)) return true;
    const auto* sa = a.as<StringNode>();
    const auto* sb = b.as<StringNode>();
    return sa && sb && sa->value == sb->value;
  }
};

}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_CONTAINER_H_
