// Work models per op against FLOPs and bytes computed by hand from shapes.
#include <gtest/gtest.h>

#include "profiling/analysis/work/OpWork.h"

namespace fuselab {
namespace {

OpWorkResult work(const std::string& op, const std::string& dims, const std::string& types) {
  return opWork(op, parseOpInputs(R"({"Input Dims": )" + dims + R"(, "Input type": )" + types + "}"));
}

constexpr double kBf16 = 2, kF32 = 4;

TEST(OpWork, MmIsTwoMnkAndEachMatrixOnce) {
  // The MLP fixture's up projection: [8192, 768] x [768, 3072] in bf16.
  auto r = work("aten::mm", "[[8192, 768], [768, 3072]]", R"(["c10::BFloat16", "c10::BFloat16"])");
  ASSERT_TRUE(r.work) << r.note;
  EXPECT_DOUBLE_EQ(r.work->flops, 2.0 * 8192 * 768 * 3072);
  EXPECT_DOUBLE_EQ(r.work->bytes, (8192.0 * 768 + 768.0 * 3072 + 8192.0 * 3072) * kBf16);
  EXPECT_EQ(r.work->precision, Precision::BF16);
}

TEST(OpWork, AddmmAddsTheBias) {
  // linear_eager fixture: addmm(bias [64], x [1024, 32], w^T [32, 64]).
  auto r = work("aten::addmm", "[[64], [1024, 32], [32, 64], [], []]",
                R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"])");
  ASSERT_TRUE(r.work) << r.note;
  EXPECT_DOUBLE_EQ(r.work->flops, 2.0 * 1024 * 32 * 64 + 1024.0 * 64);
  EXPECT_DOUBLE_EQ(r.work->bytes, (64.0 + 1024 * 32 + 32 * 64 + 1024 * 64) * kBf16);
}

TEST(OpWork, LinearWithAndWithoutBias) {
  auto with = work("aten::linear", "[[1024, 32], [64, 32], [64]]",
                   R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])");
  ASSERT_TRUE(with.work) << with.note;
  EXPECT_DOUBLE_EQ(with.work->flops, 2.0 * 1024 * 32 * 64 + 1024.0 * 64);
  EXPECT_DOUBLE_EQ(with.work->bytes, (1024.0 * 32 + 64 * 32 + 64 + 1024 * 64) * kBf16);
  auto without = work("aten::linear", "[[64, 128, 768], [3072, 768], []]", R"(["float", "float", ""])");
  ASSERT_TRUE(without.work) << without.note;
  const double m = 64.0 * 128;
  EXPECT_DOUBLE_EQ(without.work->flops, 2.0 * m * 768 * 3072);
  EXPECT_DOUBLE_EQ(without.work->bytes, (m * 768 + 3072.0 * 768 + m * 3072) * kF32);
  EXPECT_EQ(without.work->precision, Precision::FP32);
}

TEST(OpWork, MatmulFoldsBatchDimsAndReadsTheWeightOnce) {
  auto r = work("aten::matmul", "[[64, 128, 3072], [3072, 768]]", R"(["c10::BFloat16", "c10::BFloat16"])");
  ASSERT_TRUE(r.work) << r.note;
  const double m = 64.0 * 128;
  EXPECT_DOUBLE_EQ(r.work->flops, 2.0 * m * 3072 * 768);
  EXPECT_DOUBLE_EQ(r.work->bytes, (m * 3072 + 3072.0 * 768 + m * 768) * kBf16);
}

TEST(OpWork, BmmAndBaddbmm) {
  auto b = work("aten::bmm", "[[8, 64, 32], [8, 32, 16]]", R"(["c10::Half", "c10::Half"])");
  ASSERT_TRUE(b.work) << b.note;
  EXPECT_DOUBLE_EQ(b.work->flops, 2.0 * 8 * 64 * 16 * 32);
  EXPECT_DOUBLE_EQ(b.work->bytes, 8.0 * (64 * 32 + 32 * 16 + 64 * 16) * 2);
  EXPECT_EQ(b.work->precision, Precision::FP16);
  auto bb = work("aten::baddbmm", "[[8, 64, 16], [8, 64, 32], [8, 32, 16], [], []]",
                 R"(["float", "float", "float", "Scalar", "Scalar"])");
  ASSERT_TRUE(bb.work) << bb.note;
  EXPECT_DOUBLE_EQ(bb.work->flops, 2.0 * 8 * 64 * 16 * 32 + 8.0 * 64 * 16);
  EXPECT_DOUBLE_EQ(bb.work->bytes, 8.0 * (64 * 16 + 64 * 32 + 32 * 16 + 64 * 16) * kF32);
}

TEST(OpWork, AttentionCountsQkAndPvPerQueryHead) {
  // SDPA layout [B, H, L, E]; the flash kernel's own op takes [B, L, H, E].
  auto sdpa = work("aten::_scaled_dot_product_flash_attention", "[[2, 8, 1024, 64], [2, 8, 1024, 64], [2, 8, 1024, 64]]",
                   R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])");
  ASSERT_TRUE(sdpa.work) << sdpa.note;
  EXPECT_DOUBLE_EQ(sdpa.work->flops, 4.0 * 2 * 8 * 1024 * 1024 * 64);
  EXPECT_DOUBLE_EQ(sdpa.work->bytes, 4.0 * 2 * 8 * 1024 * 64 * kBf16);
  auto flash = work("aten::_flash_attention_forward", "[[2, 1024, 8, 64], [2, 1024, 8, 64], [2, 1024, 8, 64]]",
                    R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])");
  ASSERT_TRUE(flash.work) << flash.note;
  EXPECT_DOUBLE_EQ(flash.work->flops, sdpa.work->flops);
  EXPECT_DOUBLE_EQ(flash.work->bytes, sdpa.work->bytes);
}

TEST(OpWork, ElementwiseOnePerOutputElementInputsAndOutputOnce) {
  const double n = 64.0 * 128 * 3072;
  auto gelu = work("aten::gelu", "[[64, 128, 3072], []]", R"(["c10::BFloat16", ""])");
  ASSERT_TRUE(gelu.work) << gelu.note;
  EXPECT_DOUBLE_EQ(gelu.work->flops, n);
  EXPECT_DOUBLE_EQ(gelu.work->bytes, 2 * n * kBf16);
  auto mul = work("aten::mul", "[[64, 128, 3072], [64, 128, 3072]]", R"(["c10::BFloat16", "c10::BFloat16"])");
  ASSERT_TRUE(mul.work) << mul.note;
  EXPECT_DOUBLE_EQ(mul.work->flops, n);
  EXPECT_DOUBLE_EQ(mul.work->bytes, 3 * n * kBf16);
  // A broadcast bias: read once at its own size, output at the broadcast size.
  auto add = work("aten::add_", "[[4096, 1024], [1024], []]", R"(["float", "float", "Scalar"])");
  ASSERT_TRUE(add.work) << add.note;
  EXPECT_DOUBLE_EQ(add.work->flops, 4096.0 * 1024);
  EXPECT_DOUBLE_EQ(add.work->bytes, (2 * 4096.0 * 1024 + 1024) * kF32);
  auto silu = work("aten::silu", "[[10, 10]]", R"(["c10::Half"])");
  ASSERT_TRUE(silu.work) << silu.note;
  EXPECT_DOUBLE_EQ(silu.work->bytes, 200.0 * 2);
}

TEST(OpWork, RowWiseOps) {
  auto ln = work("aten::layer_norm", "[[8192, 768], [], [768], [768], [], []]",
                 R"(["c10::BFloat16", "ScalarList", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"])");
  ASSERT_TRUE(ln.work) << ln.note;
  EXPECT_DOUBLE_EQ(ln.work->flops, 8.0 * 8192 * 768);
  EXPECT_DOUBLE_EQ(ln.work->bytes, (2 * 8192.0 * 768 + 2 * 768) * kBf16);
  auto sm = work("aten::_softmax", "[[32, 1000], [], []]", R"(["float", "Scalar", "Scalar"])");
  ASSERT_TRUE(sm.work) << sm.note;
  EXPECT_DOUBLE_EQ(sm.work->flops, 5.0 * 32000);
  EXPECT_DOUBLE_EQ(sm.work->bytes, 2 * 32000.0 * kF32);
}

TEST(OpWork, CopiesAndFillsMoveBytesOnly) {
  // copy_(self bf16, src float): src read at 4 bytes, self written at 2.
  auto copy = work("aten::copy_", "[[1024, 1024], [1024, 1024], []]", R"(["c10::BFloat16", "float", "Scalar"])");
  ASSERT_TRUE(copy.work) << copy.note;
  EXPECT_DOUBLE_EQ(copy.work->flops, 0);
  EXPECT_DOUBLE_EQ(copy.work->bytes, 1024.0 * 1024 * (4 + 2));
  auto fill = work("aten::fill_", "[[4096], []]", R"(["float", "Scalar"])");
  ASSERT_TRUE(fill.work) << fill.note;
  EXPECT_DOUBLE_EQ(fill.work->bytes, 4096.0 * 4);
}

TEST(OpWork, FusedMlpDeclaresWeightsActivationsAndGemms) {
  // x [64, 768], wgu [2 x 3072, 768], down [768, 3072]: the fused MLP at 64 tokens.
  auto r = work("fuselab::fused_mlp", "[[1, 64, 768], [6144, 768], [768, 3072]]",
                R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])");
  ASSERT_TRUE(r.work) << r.note;
  const double t = 64, d = 768, h = 3072;
  EXPECT_DOUBLE_EQ(r.work->flops, 2 * t * 3 * d * h + 2 * t * h);
  EXPECT_DOUBLE_EQ(r.work->bytes, (3 * d * h + 2 * t * d) * kBf16);
  auto geglu = work("fuselab::geglu", "[[8192, 3072], [8192, 3072]]", R"(["c10::BFloat16", "c10::BFloat16"])");
  ASSERT_TRUE(geglu.work) << geglu.note;
  EXPECT_DOUBLE_EQ(geglu.work->flops, 2 * 8192.0 * 3072);
  EXPECT_DOUBLE_EQ(geglu.work->bytes, 3 * 8192.0 * 3072 * kBf16);
}

TEST(OpWork, UnknownSaysWhy) {
  auto none = work("aten::cumsum", "[[10]]", R"(["float"])");
  EXPECT_FALSE(none.work);
  EXPECT_NE(none.note.find("no work model"), std::string::npos) << none.note;
  auto no_dims = opWork("aten::mm", parseOpInputs("{}"));
  EXPECT_FALSE(no_dims.work);
  EXPECT_NE(no_dims.note.find("without input dims"), std::string::npos) << no_dims.note;
  auto no_types = opWork("aten::mm", parseOpInputs(R"({"Input Dims": [[2, 3], [3, 4]]})"));
  EXPECT_FALSE(no_types.work);
  EXPECT_NE(no_types.note.find("without input types"), std::string::npos) << no_types.note;
  auto bad = work("aten::mm", "[[2, 3], [4, 5]]", R"(["float", "float"])");
  EXPECT_FALSE(bad.work);
  EXPECT_NE(bad.note.find("inner dims differ"), std::string::npos) << bad.note;
  auto one_input = work("aten::mm", "[[2, 3]]", R"(["float"])");  // a trace the fuzzer wrote
  EXPECT_FALSE(one_input.work);
  EXPECT_NE(one_input.note.find("missing input 1"), std::string::npos) << one_input.note;
  auto odd_type = work("aten::mm", "[[2, 3], [3, 4]]", R"(["c10::Weird", "c10::Weird"])");
  EXPECT_FALSE(odd_type.work);
  EXPECT_TRUE(hasWorkModel("aten::mm"));
  EXPECT_TRUE(hasWorkModel("aten::mul_"));
  EXPECT_FALSE(hasWorkModel("aten::t"));
  EXPECT_FALSE(hasWorkModel("aten::empty"));
}

}  // namespace
}  // namespace fuselab
