#include "compiler/tir/analysis/scope_ids.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>

#include "absl/strings/str_cat.h"

namespace kiln::tir {
namespace {

using ir::ScopeBinding;

// Wider scopes rank lower; "kernel" is the root above every scope.
int ScopeRank(const std::string& name) {
  static const std::map<std::string, int>* const kRanks =
      new std::map<std::string, int>{{"kernel", -1}, {"cluster", 2}, {"cta", 3}, {"warpgroup", 4}, {"warp", 5}, {"thread", 6}};
  auto it = kRanks->find(name);
  return it == kRanks->end() ? 100 : it->second;
}

// A binding with its fused extent, nullopt while unknown (deferred or symbolic).
struct Known {
  ScopeBinding scope;
  std::optional<int64_t> extent;
};

std::optional<int64_t> FusedExtent(const ir::ScopeIdDefStmtNode* def) {
  if (def->extents.empty()) return std::nullopt;
  int64_t product = 1;
  for (const ir::PrimExpr& e : def->extents) {
    const auto* imm = e.as<ir::IntImmNode>();
    if (!imm) return std::nullopt;
    product *= imm->value;
  }
  return product;
}

std::string Describe(ScopeBinding b) {
  auto [parent, cur] = ir::ScopeBindingScopes(b);
  return absl::StrCat(parent, "->", cur, " (T.", ir::ScopeIdFunctionName(b), ")");
}

class Closure {
 public:
  std::vector<std::string> errors;

  void Insert(ScopeBinding scope, std::optional<int64_t> extent) {
    auto it = ids_.find(scope);
    if (it == ids_.end()) {
      ids_[scope] = extent;
      if (extent) queue_.push_back(scope);
      return;
    }
    if (!it->second && extent) {
      it->second = extent;
      queue_.push_back(scope);
    } else if (it->second && extent && *it->second != *extent) {
      Error(absl::StrCat("inconsistent extents for scope binding ", Describe(scope), ": ", *it->second, " vs ", *extent));
    }
  }

  void Run() {
    while (!queue_.empty() && errors.empty()) {
      ScopeBinding head = queue_.front();
      queue_.pop_front();
      std::vector<std::pair<ScopeBinding, int64_t>> snapshot;
      for (const auto& [scope, extent] : ids_) {
        if (extent) snapshot.emplace_back(scope, *extent);
      }
      int64_t head_extent = *ids_[head];
      for (const auto& [scope, extent] : snapshot) {
        Compose(head, head_extent, scope, extent);
        Compose(scope, extent, head, head_extent);
        Complement(head, head_extent, scope, extent);
        Complement(scope, extent, head, head_extent);
      }
    }
  }

  bool Has(ScopeBinding b) const { return ids_.count(b) > 0; }
  std::optional<int64_t> Extent(ScopeBinding b) const {
    auto it = ids_.find(b);
    return it == ids_.end() ? std::nullopt : it->second;
  }

 private:
  void Error(std::string message) {
    if (errors.empty()) errors.push_back(std::move(message));
  }

  // parent->mid and mid->child give parent->child, the product of the extents.
  void Compose(ScopeBinding l, int64_t le, ScopeBinding r, int64_t re) {
    if (l == ScopeBinding::kClusterCtaPair || r == ScopeBinding::kClusterCtaPair) return;
    auto [lp, lc] = ir::ScopeBindingScopes(l);
    auto [rp, rc] = ir::ScopeBindingScopes(r);
    ScopeBinding out;
    if (std::string(lc) == rp && ir::ScopeBindingFromScopes(lp, rc, &out)) Insert(out, le * re);
  }

  // parent->child over parent->mid gives mid->child; parent->child over mid->child gives
  // parent->mid: the quotient of the extents, which must divide.
  void Complement(ScopeBinding l, int64_t le, ScopeBinding r, int64_t re) {
    if (l == ScopeBinding::kClusterCtaPair || r == ScopeBinding::kClusterCtaPair || re == 0) return;
    auto [lp, lc] = ir::ScopeBindingScopes(l);
    auto [rp, rc] = ir::ScopeBindingScopes(r);
    ScopeBinding out;
    bool found = (std::string(lp) == rp && ScopeRank(rc) < ScopeRank(lc) && ir::ScopeBindingFromScopes(rc, lc, &out)) ||
                 (std::string(lc) == rc && ScopeRank(lp) < ScopeRank(rp) && ir::ScopeBindingFromScopes(lp, rp, &out));
    if (!found) return;
    if (le % re != 0) {
      Error(absl::StrCat("scope binding ", Describe(out), " has non-divisible extents: ", Describe(l), " = ", le,
                         " is not divisible by ", Describe(r), " = ", re));
      return;
    }
    Insert(out, le / re);
  }

  std::map<ScopeBinding, std::optional<int64_t>> ids_;
  std::deque<ScopeBinding> queue_;
};

}  // namespace

namespace {

std::vector<std::string> CheckLaunch(const std::vector<const ir::ScopeIdDefStmtNode*>& defs) {
  Closure c;
  for (const ir::ScopeIdDefStmtNode* def : defs) c.Insert(def->scope, FusedExtent(def));
  if (c.Has(ScopeBinding::kClusterCtaPair) && !c.Has(ScopeBinding::kClusterCta)) {
    c.errors.push_back("T.cta_id_in_pair() requires T.cta_id_in_cluster(...) in the same kernel");
  }
  c.Run();
  if (!c.errors.empty()) return c.errors;
  if (std::optional<int64_t> threads = c.Extent(ScopeBinding::kCtaThread)) {
    if (*threads <= 0) return {absl::StrCat("the kernel has a non-positive thread count ", *threads)};
    bool warps = c.Has(ScopeBinding::kCtaWarp) || c.Has(ScopeBinding::kWarpThread) ||
                 c.Has(ScopeBinding::kCtaWarpgroup) || c.Has(ScopeBinding::kWarpgroupWarp);
    if (warps && *threads % 32 != 0) {
      return {absl::StrCat("the kernel uses warp-granular scope ids but has ", *threads, " threads, not a multiple of 32")};
    }
  }
  return {};
}

}  // namespace

std::vector<std::string> CheckScopeIdClosure(const std::vector<const ir::ScopeIdDefStmtNode*>& defs) {
  // A binding declared again starts the next launch of the region (TVM's parser accepts the
  // repeated `T.cta_id(...)` / `T.thread_id(...)` of sequential launches); each is checked alone.
  std::vector<const ir::ScopeIdDefStmtNode*> launch;
  std::vector<std::string> errors;
  auto check = [&] {
    for (std::string& e : CheckLaunch(launch)) errors.push_back(std::move(e));
    launch.clear();
  };
  for (const ir::ScopeIdDefStmtNode* def : defs) {
    bool again = std::any_of(launch.begin(), launch.end(), [&](const ir::ScopeIdDefStmtNode* d) { return d->scope == def->scope; });
    if (again) check();
    launch.push_back(def);
  }
  check();
  return errors;
}

}  // namespace kiln::tir
