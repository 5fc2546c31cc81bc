// Structural equality and hashing over reflected fields. Both walk the same fields in the same
// order with the same definition rules, which is what keeps hash and equality consistent.
#include "compiler/ir/structural.h"

#include <cmath>
#include <cstring>
#include <set>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/base.h"

namespace kiln::ir {
namespace {

bool IsBinding(const Object* o) { return IsBindingKind(o->kind()); }

bool DoubleEq(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof(double)) == 0;  // distinguishes 0.0 and -0.0
}

std::string ValueString(const FieldInfo& f) {
  switch (f.kind) {
    case FieldKind::kBool: return *static_cast<bool*>(f.addr) ? "True" : "False";
    case FieldKind::kInt32: return absl::StrCat(*static_cast<int32_t*>(f.addr));
    case FieldKind::kInt64: return absl::StrCat(*static_cast<int64_t*>(f.addr));
    case FieldKind::kDouble: return absl::StrCat(*static_cast<double*>(f.addr));
    case FieldKind::kString: return absl::StrCat("\"", *static_cast<std::string*>(f.addr), "\"");
    case FieldKind::kDType: return static_cast<DataType*>(f.addr)->ToString();
    default: return "";
  }
}

bool ValueEqual(const FieldInfo& a, const FieldInfo& b) {
  switch (a.kind) {
    case FieldKind::kBool: return *static_cast<bool*>(a.addr) == *static_cast<bool*>(b.addr);
    case FieldKind::kInt32: return *static_cast<int32_t*>(a.addr) == *static_cast<int32_t*>(b.addr);
    case FieldKind::kInt64: return *static_cast<int64_t*>(a.addr) == *static_cast<int64_t*>(b.addr);
    case FieldKind::kDouble: return DoubleEq(*static_cast<double*>(a.addr), *static_cast<double*>(b.addr));
    case FieldKind::kString:
      return *static_cast<std::string*>(a.addr) == *static_cast<std::string*>(b.addr);
    case FieldKind::kDType: return *static_cast<DataType*>(a.addr) == *static_cast<DataType*>(b.addr);
    default: return true;
  }
}

class Equal {
 public:
  Equal(bool map_free_vars, std::string* mismatch) : map_free_vars_(map_free_vars), mismatch_(mismatch) {}

  // After the top-level Run: a pairing made at a use that no definition confirmed is a free
  // variable that differs.
  bool Finish() {
    if (pending_.empty()) return true;
    return Fail(absl::StrCat("free ", pending_.begin()->second, " differs"));
  }

  bool Run(const ObjectRef& a, const ObjectRef& b, bool def) {
    const Object* x = a.get();
    const Object* y = b.get();
    if (x == nullptr || y == nullptr) return x == y ? true : Fail(x ? "defined vs null" : "null vs defined");
    if (x->kind() != y->kind()) return Fail(absl::StrCat(x->type_key(), " vs ", y->type_key()));
    if (IsBinding(x)) return Binding(x, y, def);
    // Only shared subtrees can be met twice; memoizing them keeps DAGs linear.
    bool shared = !def && x->use_count() > 1 && y->use_count() > 1;
    if (shared && proven_.count({x, y})) return true;
    if (!Fields(x, y, def)) return false;
    if (shared) proven_.insert({x, y});
    return true;
  }

 private:
  bool Binding(const Object* x, const Object* y, bool def) {
    auto it = l2r_.find(x);
    if (it != l2r_.end()) {
      if (it->second != y) return Fail("variable bound to a different counterpart");
      // A use met before its definition (a PrimFunc's attrs name its params): the definition
      // confirms the pairing.
      if (def && pending_.erase(x)) return Fields(x, y, /*def=*/true);
      return true;
    }
    if (r2l_.count(y)) return Fail("variable bound to a different counterpart");
    if (!def && !map_free_vars_) {
      if (x == y) return true;
      // Paired for now; it must be defined later in the tree (Finish() checks), or it is free.
      l2r_[x] = y;
      r2l_[y] = x;
      pending_[x] = x->type_key();
      return true;
    }
    l2r_[x] = y;
    r2l_[y] = x;
    // The binding's own annotation (type, buffer shape) may define further vars (symbolic dims).
    return Fields(x, y, /*def=*/true);
  }

  bool Fields(const Object* x, const Object* y, bool def) {
    if (const auto* ax = x->kind() == NodeKind::kArray ? static_cast<const ArrayNode*>(x) : nullptr) {
      const auto* ay = static_cast<const ArrayNode*>(y);
      if (ax->data.size() != ay->data.size()) {
        return Fail(absl::StrCat("array size ", ax->data.size(), " vs ", ay->data.size()));
      }
      for (size_t i = 0; i < ax->data.size(); ++i) {
        path_.push_back(absl::StrCat("[", i, "]"));
        if (!Run(ax->data[i], ay->data[i], def)) return false;
        path_.pop_back();
      }
      return true;
    }
    if (const auto* mx = x->kind() == NodeKind::kMap ? static_cast<const MapNode*>(x) : nullptr) {
      const auto* my = static_cast<const MapNode*>(y);
      if (mx->data.size() != my->data.size()) {
        return Fail(absl::StrCat("map size ", mx->data.size(), " vs ", my->data.size()));
      }
      for (size_t i = 0; i < mx->data.size(); ++i) {
        path_.push_back(absl::StrCat("{", i, "}"));
        if (!Run(mx->data[i].first, my->data[i].first, def)) return false;
        if (!Run(mx->data[i].second, my->data[i].second, def)) return false;
        path_.pop_back();
      }
      return true;
    }
    if (const auto* sx = x->kind() == NodeKind::kString ? static_cast<const StringNode*>(x) : nullptr) {
      const auto* sy = static_cast<const StringNode*>(y);
      return sx->value == sy->value ? true : Fail(absl::StrCat("\"", sx->value, "\" vs \"", sy->value, "\""));
    }
    std::vector<FieldInfo> fx = ListFields(x);
    std::vector<FieldInfo> fy = ListFields(y);
    for (size_t i = 0; i < fx.size(); ++i) {
      const FieldInfo& f = fx[i];
      if (f.flags & kFieldIgnoreEq) continue;
      path_.push_back(absl::StrCat(".", f.name));
      if (f.kind == FieldKind::kRef) {
        if (!Run(*static_cast<ObjectRef*>(f.addr), *static_cast<ObjectRef*>(fy[i].addr),
                 def || (f.flags & kFieldDef))) {
          return false;
        }
      } else if (!ValueEqual(f, fy[i])) {
        return Fail(absl::StrCat(x->type_key(), ".", f.name, " ", ValueString(f), " vs ", ValueString(fy[i])));
      }
      path_.pop_back();
    }
    return true;
  }

  bool Fail(const std::string& why) {
    if (mismatch_ != nullptr && mismatch_->empty()) {
      std::string p;
      for (const std::string& s : path_) p += s;
      *mismatch_ = absl::StrCat(p.empty() ? "<root>" : p, ": ", why);
    }
    return false;
  }

  bool map_free_vars_;
  std::string* mismatch_;
  std::unordered_map<const Object*, const Object*> l2r_, r2l_;
  std::unordered_map<const Object*, std::string> pending_;  // paired at a use, not yet defined
  std::set<std::pair<const Object*, const Object*>> proven_;
  std::vector<std::string> path_;
};

// 64-bit mixing (splitmix64 finalizer); the constants only need to be fixed forever.
uint64_t Mix(uint64_t h, uint64_t v) {
  uint64_t x = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

uint64_t HashBytes(const void* data, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}
uint64_t HashStr(const std::string& s) { return HashBytes(s.data(), s.size()); }

class Hasher {
 public:
  explicit Hasher(bool map_free_vars) : map_free_vars_(map_free_vars) {}

  uint64_t Run(const ObjectRef& r, bool def) {
    const Object* x = r.get();
    if (x == nullptr) return 0x6e756c6cULL;
    if (IsBinding(x)) {
      auto it = bound_.find(x);
      if (it != bound_.end()) return Mix(0xb0b0ULL, it->second);
      // Bound here, or free: either way its first appearance fixes its index. (Free vars compare
      // by identity, so equal IRs meet them in the same order.)
      (void)map_free_vars_;
      uint64_t index = bound_.size();
      bound_[x] = index;
      return Mix(Fields(x, true), index);
    }
    bool shared = !def && x->use_count() > 1;
    if (shared) {
      auto it = memo_.find(x);
      if (it != memo_.end()) return it->second;
    }
    uint64_t h = Fields(x, def);
    if (shared) memo_[x] = h;
    return h;
  }

 private:
  uint64_t Fields(const Object* x, bool def) {
    uint64_t h = HashStr(x->type_key());
    if (const auto* a = x->kind() == NodeKind::kArray ? static_cast<const ArrayNode*>(x) : nullptr) {
      h = Mix(h, a->data.size());
      for (const ObjectRef& e : a->data) h = Mix(h, Run(e, def));
      return h;
    }
    if (const auto* m = x->kind() == NodeKind::kMap ? static_cast<const MapNode*>(x) : nullptr) {
      h = Mix(h, m->data.size());
      for (const auto& kv : m->data) {
        h = Mix(h, Run(kv.first, def));
        h = Mix(h, Run(kv.second, def));
      }
      return h;
    }
    if (const auto* s = x->kind() == NodeKind::kString ? static_cast<const StringNode*>(x) : nullptr) return Mix(h, HashStr(s->value));
    for (const FieldInfo& f : ListFields(x)) {
      if (f.flags & kFieldIgnoreEq) continue;
      uint64_t v = 0;
      switch (f.kind) {
        case FieldKind::kBool: v = *static_cast<bool*>(f.addr); break;
        case FieldKind::kInt32: v = static_cast<uint64_t>(*static_cast<int32_t*>(f.addr)); break;
        case FieldKind::kInt64: v = static_cast<uint64_t>(*static_cast<int64_t*>(f.addr)); break;
        case FieldKind::kDouble: {
          double d = *static_cast<double*>(f.addr);
          if (std::isnan(d)) d = std::nan("");
          std::memcpy(&v, &d, sizeof(v));
          break;
        }
        case FieldKind::kString: v = HashStr(*static_cast<std::string*>(f.addr)); break;
        case FieldKind::kDType: v = static_cast<DataType*>(f.addr)->Packed(); break;
        case FieldKind::kSpan: continue;
        case FieldKind::kRef:
          v = Run(*static_cast<ObjectRef*>(f.addr), def || (f.flags & kFieldDef));
          break;
      }
      h = Mix(h, v);
    }
    return h;
  }

  bool map_free_vars_;
  std::unordered_map<const Object*, uint64_t> bound_;
  std::unordered_map<const Object*, uint64_t> memo_;
};

}  // namespace

bool StructuralEqual(const ObjectRef& lhs, const ObjectRef& rhs, bool map_free_vars, std::string* mismatch) {
  Equal eq(map_free_vars, mismatch);
  return eq.Run(lhs, rhs, /*def=*/false) && eq.Finish();
}

uint64_t StructuralHash(const ObjectRef& node, bool map_free_vars) {
  return Hasher(map_free_vars).Run(node, /*def=*/false);
}

}  // namespace kiln::ir
