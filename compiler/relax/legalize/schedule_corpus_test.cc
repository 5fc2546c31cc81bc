// ScheduleDefaultCPU on every PrimFunc that LegalizeOps makes of the shared Relax corpus
// (../shared/corpus/relax): each function whose parameters are all float32 buffers is run on
// random inputs (symbolic dims set to 5) unscheduled on the reference interpreter and scheduled on
// LLVM with a thread pool, and every buffer must come out the same (within float tolerance: the
// backends' math functions may differ in the last bit).
#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "compiler/relax/legalize/kernel_testing.h"
#include "compiler/relax/legalize/legalize.h"
#include "compiler/relax/legalize/schedule.h"
#include "compiler/relax/legalize/testing.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"
#include "tests/util/shared_dir.h"

namespace kiln::relax::legalize {
namespace {

using namespace ::kiln::ir;  // NOLINT

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Random float32 arguments for `f`, or nothing when a parameter is not a float32 buffer.
std::optional<std::vector<runtime::Tensor>> Arguments(const PrimFunc& f) {
  std::vector<runtime::Tensor> args;
  std::map<const VarNode*, int64_t> dims;
  for (const Var& p : f->params) {
    if (!f->buffer_map.count(p)) return std::nullopt;
    Buffer b = f->buffer_map.Get(p);
    if (b->dtype != DataType::Float(32)) return std::nullopt;
    std::vector<int64_t> shape;
    for (const PrimExpr& d : b->shape) {
      if (const auto* c = d.as<IntImmNode>()) {
        shape.push_back(c->value);
      } else if (d.as<VarNode>() != nullptr) {
        shape.push_back(5);
      } else {
        return std::nullopt;
      }
    }
    args.push_back(testing::Random(shape, "float32", static_cast<uint32_t>(args.size() + 1)));
  }
  return args;
}

TEST(ScheduleCorpusTest, ScheduledLegalizedFunctionsComputeTheSame) {
  absl::StatusOr<std::string> shared = ::kiln::testing::SharedDir();
  ASSERT_TRUE(shared.ok()) << shared.status();
  std::string dir = *shared + "/corpus/relax";
  std::vector<std::string> files;
  DIR* d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr) << dir;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() > 3 && name.substr(name.size() - 3) == ".py" && name.find(".ref.py") == std::string::npos) {
      files.push_back(name);
    }
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  int compared = 0, scheduled_loops = 0;
  for (const std::string& name : files) {
    SCOPED_TRACE(name);
    absl::StatusOr<ObjectRef> parsed = script::ParseScript(ReadFile(dir + "/" + name), name);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    absl::StatusOr<IRModule> legal = LegalizeOps(script::AsModule(*parsed));
    if (!legal.ok()) continue;  // corpus_test owns legalization errors
    absl::StatusOr<IRModule> sched = ScheduleDefaultCPU(*legal);
    ASSERT_TRUE(sched.ok()) << sched.status();
    for (const auto& [gv, func] : legal->Functions()) {
      const auto* pf = func.as<PrimFuncNode>();
      if (pf == nullptr) continue;
      SCOPED_TRACE(gv->name);
      PrimFunc before = Downcast<PrimFunc>(func), after = Downcast<PrimFunc>(sched->Lookup(gv->name));
      std::optional<std::vector<runtime::Tensor>> args = Arguments(before);
      if (!args) continue;
      std::vector<runtime::Tensor> want = kernel_testing::Run(before, driver::RunTarget::kInterp, *args);
      std::vector<runtime::Tensor> got = kernel_testing::Run(after, driver::RunTarget::kLLVM, *args);
      for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(testing::Compare(got[i], want[i], 1e-5, 1e-5), "") << i;
      ++compared;
      if (!after.same_as(before) && after->body.get() != before->body.get()) ++scheduled_loops;
    }
  }
  // The corpus has dozens of such functions; most get new loops.
  EXPECT_GT(compared, 20);
  EXPECT_GT(scheduled_loops, 10);
}

}  // namespace
}  // namespace kiln::relax::legalize
