// Every Relax program of the shared corpus (../shared/corpus/relax) that calls high-level
// operators legalizes to call_tir only, and the legalized program, run PrimFunc by PrimFunc on the
// interpreter and on LLVM, gives what the program's ref.py computes with numpy.
//
// The compute-heavy operators (matmul, convolutions, pooling, attention) are legalized by their
// own family files; while a build lacks them, a program using one must fail to legalize with an
// error naming that operator (never pass silently).
#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/relax/legalize/legalize.h"
#include "compiler/relax/legalize/testing.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"
#include "runtime/npy.h"
#include "tests/util/shared_dir.h"

namespace kiln::relax::legalize {
namespace {

using namespace ::kiln::ir;  // NOLINT

const char* const kKernelOps[] = {"R.matmul", "R.nn.conv1d", "R.nn.conv2d", "R.nn.conv2d_transpose",
                                  "R.nn.max_pool2d", "R.nn.avg_pool2d", "R.nn.adaptive_avg_pool2d",
                                  "R.nn.attention"};

// Ops that are not high-level: a program calling only these is not a legalization test.
bool IsHighLevel(const std::string& op) {
  for (const char* keep : {"relax.call_tir", "relax.call_tir_inplace", "relax.call_dps_packed",
                           "relax.call_packed", "relax.call_pure_packed", "relax.shape_of", "relax.null_value"}) {
    if (op == keep) return false;
  }
  return true;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Writes in<i>_<j>.npy and out<i>.npy for the program's ref.py (make_inputs(default_rng(0)) and
// expected(inputs)), and "rtol atol #inputs #outputs fields-per-input..." to meta (a tuple input
// is saved field by field).
std::string RunRef(const std::string& ref_path, const std::string& dir) {
  std::string script = absl::StrCat(
      "import importlib.util, sys\nimport numpy as np\n",
      "spec = importlib.util.spec_from_file_location('ref', '", ref_path, "')\n",
      "ref = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(ref)\n",
      "inputs = ref.make_inputs(np.random.default_rng(0))\n",
      "outs = ref.expected(inputs)\n",
      "sizes = []\n",
      "for i, x in enumerate(inputs):\n",
      "    xs = x if isinstance(x, tuple) else (x,)\n",
      "    sizes.append(len(xs))\n",
      "    for j, y in enumerate(xs): np.save('", dir, "/in%d_%d.npy' % (i, j), np.array(y, order='C'))\n",
      "for i, x in enumerate(outs): np.save('", dir, "/out%d.npy' % i, np.array(x, order='C'))\n",
      "open('", dir, "/meta', 'w').write('%r %r %d %d %s' % (float(ref.RTOL), float(ref.ATOL), len(inputs), len(outs),\n",
      "    ' '.join(map(str, sizes))))\n");
  std::ofstream(dir + "/ref_driver.py") << script;
  std::string cmd = absl::StrCat("/usr/bin/python3 ", dir, "/ref_driver.py 2>&1");
  FILE* p = popen(cmd.c_str(), "r");
  std::string output;
  char buf[512];
  while (size_t n = fread(buf, 1, sizeof(buf), p)) output.append(buf, n);
  return pclose(p) == 0 ? "" : "ref.py failed: " + output;
}

TEST(LegalizeCorpusTest, HighLevelProgramsLegalizeAndMatchNumpy) {
  absl::StatusOr<std::string> shared = ::kiln::testing::SharedDir();
  ASSERT_TRUE(shared.ok()) << shared.status();
  std::string dir = *shared + "/corpus/relax";
  std::vector<std::string> files;
  DIR* d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr) << dir;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() > 3 && name.substr(name.size() - 3) == ".py" && name.find(".ref.py") == std::string::npos) {
      files.push_back(name.substr(0, name.size() - 3));
    }
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  int checked = 0;
  const char* tmp = std::getenv("TEST_TMPDIR");
  for (const std::string& name : files) {
    SCOPED_TRACE(name);
    absl::StatusOr<ObjectRef> parsed = script::ParseScript(ReadFile(dir + "/" + name + ".py"), name + ".py");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    IRModule module = script::AsModule(*parsed);
    std::vector<std::string> ops = legalize::testing::RemainingOps(module);
    if (std::none_of(ops.begin(), ops.end(), IsHighLevel)) continue;
    ++checked;
    absl::StatusOr<IRModule> legal = LegalizeOps(module);
    if (!legal.ok()) {
      std::string msg(legal.status().message());
      bool kernel_op = std::any_of(std::begin(kKernelOps), std::end(kKernelOps), [&](const char* op) {
        return msg.find(absl::StrCat(op, " (")) != std::string::npos && msg.find("has no legalization") != std::string::npos;
      });
      EXPECT_TRUE(kernel_op) << legal.status();
      continue;
    }
    std::vector<std::string> left = legalize::testing::RemainingOps(*legal);
    left.erase(std::remove_if(left.begin(), left.end(), [](const std::string& op) { return !IsHighLevel(op); }),
               left.end());
    EXPECT_TRUE(left.empty()) << absl::StrJoin(left, ", ");

    std::string work = absl::StrCat(tmp ? tmp : "/tmp", "/", name);
    std::system(absl::StrCat("mkdir -p ", work).c_str());
    std::string err = RunRef(dir + "/" + name + ".ref.py", work);
    ASSERT_EQ(err, "");
    double rtol = 0, atol = 0;
    int num_in = 0, num_out = 0;
    std::ifstream meta(work + "/meta");
    meta >> rtol >> atol >> num_in >> num_out;
    std::vector<std::vector<runtime::Tensor>> inputs;
    std::vector<runtime::Tensor> expected;
    for (int i = 0; i < num_in; ++i) {
      int fields = 0;
      meta >> fields;
      inputs.emplace_back();
      for (int j = 0; j < fields; ++j) {
        absl::StatusOr<runtime::Tensor> t = runtime::ReadNpy(absl::StrCat(work, "/in", i, "_", j, ".npy"));
        ASSERT_TRUE(t.ok()) << t.status();
        inputs.back().push_back(*t);
      }
    }
    for (int i = 0; i < num_out; ++i) expected.push_back(*runtime::ReadNpy(absl::StrCat(work, "/out", i, ".npy")));
    for (driver::RunTarget target : {driver::RunTarget::kInterp, driver::RunTarget::kLLVM}) {
      SCOPED_TRACE(driver::RunTargetName(target));
      absl::StatusOr<std::vector<runtime::Tensor>> got = legalize::testing::RunRelax(*legal, "main", inputs, target);
      ASSERT_TRUE(got.ok()) << got.status();
      ASSERT_EQ(got->size(), expected.size());
      for (size_t i = 0; i < got->size(); ++i) {
        EXPECT_EQ(legalize::testing::Compare((*got)[i], expected[i], rtol, atol), "") << "result " << i;
      }
    }
  }
  EXPECT_GE(checked, 16);
}

}  // namespace
}  // namespace kiln::relax::legalize
