// nn.attention / nn.attention_bias legalizations against a numpy reference on the interpreter and
// LLVM: different query and key lengths, grouped-query heads, both causal masks, scale and bias.
#include <string>

#include "compiler/relax/legalize/testing.h"
#include "gtest/gtest.h"

namespace kiln::relax::legalize {
namespace {

constexpr char kNumpyAttention[] = R"PY(
def attn(q, k, v, scale=None, mask=None, bias=None):
    b, s, h, d = q.shape
    skv, g = k.shape[1], h // k.shape[2]
    kk, vv = np.repeat(k, g, axis=2), np.repeat(v, g, axis=2)
    p = np.einsum('bihd,bjhd->bhij', q, kk) * (scale if scale is not None else 1 / np.sqrt(d))
    if bias is not None:
        p = p + bias
    if mask:
        off = 0 if mask == 'TopLeft' else abs(s - skv)
        p = np.where(np.tril(np.ones((s, skv)), k=off).astype(bool), p, -np.inf)
    p = np.exp(p - p.max(-1, keepdims=True))
    p = p / p.sum(-1, keepdims=True)
    return np.einsum('bhij,bjhd->bihd', p, vv).astype(q.dtype)
)PY";

std::string Tensor(const std::string& shape) { return "R.Tensor(" + shape + ", dtype=\"float32\")"; }

std::string Module(const std::vector<std::pair<std::string, std::string>>& params, const std::string& out,
                   const std::string& call) {
  std::string sig;
  for (const auto& [name, shape] : params) sig += (sig.empty() ? "" : ", ") + name + ": " + Tensor(shape);
  return "@I.ir_module\nclass Module:\n    @R.function\n    def main(" + sig + ") -> " + Tensor(out) +
         ":\n        with R.dataflow():\n            gv: " + Tensor(out) + " = " + call +
         "\n            R.output(gv)\n        return gv\n";
}

TEST(AttentionTest, DifferentSequenceLengths) {
  EXPECT_EQ(testing::CheckAgainstNumpy(
                Module({{"q", "(2, 5, 4, 8)"}, {"k", "(2, 7, 4, 8)"}, {"v", "(2, 7, 4, 6)"}}, "(2, 5, 4, 6)",
                       "R.nn.attention(q, k, v)"),
                {{{2, 5, 4, 8}}, {{2, 7, 4, 8}}, {{2, 7, 4, 6}}}, std::string(kNumpyAttention) + "out = attn(q, k, v)",
                1e-4, 1e-5),
            "");
}

TEST(AttentionTest, GroupedQueryHeadsBottomRightMaskAndScale) {
  EXPECT_EQ(testing::CheckAgainstNumpy(
                Module({{"q", "(1, 3, 4, 8)"}, {"k", "(1, 6, 2, 8)"}, {"v", "(1, 6, 2, 8)"}}, "(1, 3, 4, 8)",
                       "R.nn.attention(q, k, v, scale=0.25, causal_mask=\"BottomRight\")"),
                {{{1, 3, 4, 8}}, {{1, 6, 2, 8}}, {{1, 6, 2, 8}}},
                std::string(kNumpyAttention) + "out = attn(q, k, v, 0.25, 'BottomRight')", 1e-4, 1e-5),
            "");
}

TEST(AttentionTest, TopLeftMaskWithBroadcastBias) {
  EXPECT_EQ(testing::CheckAgainstNumpy(
                Module({{"q", "(1, 4, 2, 4)"}, {"k", "(1, 4, 2, 4)"}, {"v", "(1, 4, 2, 4)"}, {"bias", "(1, 1, 4, 4)"}},
                       "(1, 4, 2, 4)", "R.nn.attention(q, k, v, bias, causal_mask=\"TopLeft\")"),
                {{{1, 4, 2, 4}}, {{1, 4, 2, 4}}, {{1, 4, 2, 4}}, {{1, 1, 4, 4}}},
                std::string(kNumpyAttention) + "out = attn(q, k, v, None, 'TopLeft', bias)", 1e-4, 1e-5),
            "");
}

}  // namespace
}  // namespace kiln::relax::legalize
