// Work models of a training step's ops against FLOPs and bytes computed by
// hand for one shape each (shapes and args as torch.profiler records them in
// tests/data/training-h200/).
#include <gtest/gtest.h>

#include "profiling/analysis/work/OpWork.h"

namespace fuselab {
namespace {

OpWorkResult work(const std::string& op, const std::string& dims, const std::string& types,
                  const std::string& concrete = "") {
  std::string args = R"({"Input Dims": )" + dims + R"(, "Input type": )" + types;
  if (!concrete.empty()) args += R"(, "Concrete Inputs": )" + concrete;
  return opWork(op, parseOpInputs(args + "}"));
}

constexpr double kBf16 = 2, kF32 = 4;

TEST(OpWorkTraining, ConcreteInputsAndTensorListsAreRead) {
  OpInputs in = parseOpInputs(R"({"Input Dims": [[[2, 3], [4]], [], []], "Input type": ["TensorList", "Scalar",
      "ScalarList"], "Concrete Inputs": ["", "-1", "[0, 2]"]})");
  ASSERT_EQ(in.inputs.size(), 3u);
  EXPECT_TRUE(in.inputs[0].tensor_list);
  EXPECT_TRUE(in.inputs[0].list_recorded);
  ASSERT_EQ(in.inputs[0].list_dims.size(), 2u);
  EXPECT_EQ(in.inputs[0].list_dims[1], std::vector<int64_t>{4});
  EXPECT_EQ(in.concreteInt(1), -1);
  EXPECT_EQ(in.concreteInts(2), (std::vector<int64_t>{0, 2}));
  EXPECT_FALSE(in.concreteInt(2));
  // A list of over 30 tensors: torch.profiler leaves its dims out.
  OpInputs dropped = parseOpInputs(R"({"Input Dims": [[], []], "Input type": ["TensorList", "Scalar"]})");
  EXPECT_TRUE(dropped.inputs[0].tensor_list);
  EXPECT_FALSE(dropped.inputs[0].list_recorded);
}

TEST(OpWorkTraining, AttentionBackwardIsFiveProductsAndCausalKeepsTheLowerTriangle) {
  // _cudnn_attention_backward(grad_out, q, k, v, out, lse [B, H, L, 1], ..., is_causal at 14).
  const std::string dims =
      "[[8, 12, 512, 64], [8, 12, 512, 64], [8, 12, 512, 64], [8, 12, 512, 64], [8, 12, 512, 64], [8, 12, 512, 1], "
      "[], [], [], [], [], [], [], [], [], []]";
  const std::string types = R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16",
      "float", "long int", "long int", "", "", "", "Scalar", "Scalar", "Scalar", "Scalar", ""])";
  auto causal = work("aten::_cudnn_attention_backward", dims, types,
                     R"(["", "", "", "", "", "", "", "", "", "", "", "512", "512", "0.", "True", ""])");
  ASSERT_TRUE(causal.work) << causal.note;
  const double b = 8, h = 12, l = 512, e = 64;
  const double pairs = l * (l + 1) / 2;
  EXPECT_DOUBLE_EQ(causal.work->flops, 2 * b * h * pairs * (3 * e + 2 * e));
  // Read grad_out, q, k, v, out and lse; write dq, dk, dv.
  EXPECT_DOUBLE_EQ(causal.work->bytes, (5 * b * h * l * e + 3 * b * h * l * e) * kBf16 + b * h * l * kF32);
  auto full = work("aten::_cudnn_attention_backward", dims, types,
                   R"(["", "", "", "", "", "", "", "", "", "", "", "512", "512", "0.", "False", ""])");
  ASSERT_TRUE(full.work) << full.note;
  EXPECT_DOUBLE_EQ(full.work->flops, 2 * b * h * l * l * 5 * e);
  EXPECT_DOUBLE_EQ(full.work->flops / 2.5, 2 * b * h * l * l * 2 * e);  // 2.5x the forward
  // The helpers' passes: dot(dO, O) zeroing the fp32 dq accumulator, dq's conversion from it.
  ASSERT_EQ(causal.parts.size(), 3u);
  EXPECT_EQ(causal.parts[0].kernel_name, "dot_do_o");
  EXPECT_DOUBLE_EQ(causal.parts[0].work.bytes, 2 * b * h * l * e * kBf16 + b * h * l * kF32 + b * h * l * e * kF32);
  EXPECT_EQ(causal.parts[1].kernel_name, "convert_dq");
  EXPECT_DOUBLE_EQ(causal.parts[1].work.bytes, b * h * l * e * (kF32 + kBf16));
  EXPECT_DOUBLE_EQ(causal.parts[2].work.flops, causal.work->flops);
  // Efficient attention's own op: [B, L, H, E], causal as mask type 1 (input 14).
  auto eff = work("aten::_efficient_attention_backward",
                  "[[4, 2048, 16, 64], [4, 2048, 16, 64], [4, 2048, 16, 64], [4, 2048, 16, 64], [], "
                  "[4, 2048, 16, 64], [], [], [], [], [4, 16, 2048], [], [], [], [], []]",
                  R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "", "c10::BFloat16", "",
                      "", "Scalar", "Scalar", "float", "Scalar", "long int", "long int", "Scalar", "Scalar"])",
                  R"(["", "", "", "", "", "", "", "", "16", "16", "", "0.", "", "", "1", "False"])");
  ASSERT_TRUE(eff.work) << eff.note;
  EXPECT_DOUBLE_EQ(eff.work->flops, 2 * 4.0 * 16 * (2048.0 * 2049 / 2) * 5 * 64);
}

TEST(OpWorkTraining, NormAndActivationBackwards) {
  // native_layer_norm_backward(grad_out, input, shape, mean, rstd, weight, bias, mask), fp32.
  auto ln = work("aten::native_layer_norm_backward",
                 "[[8, 512, 768], [8, 512, 768], [], [8, 512, 1], [8, 512, 1], [768], [768], []]",
                 R"(["float", "float", "ScalarList", "float", "float", "float", "float", "ScalarList"])",
                 R"(["", "", "[768]", "", "", "", "", "[True, True, True]"])");
  ASSERT_TRUE(ln.work) << ln.note;
  const double n = 8.0 * 512 * 768, rows = 8.0 * 512;
  EXPECT_DOUBLE_EQ(ln.work->flops, 12 * n);
  // Reads grad_out, input, mean, rstd, weight (not the bias); writes dx, dweight, dbias.
  EXPECT_DOUBLE_EQ(ln.work->bytes, (2 * n + 2 * rows + 768 + n + 2 * 768) * kF32);
  // ATen's two kernels each read the gradient, the input and the statistics.
  ASSERT_EQ(ln.parts.size(), 2u);
  EXPECT_EQ(ln.parts[0].kernel_name, "GammaBeta");
  EXPECT_DOUBLE_EQ(ln.parts[0].work.bytes, (2 * n + 2 * rows + 2 * 768) * kF32);
  EXPECT_DOUBLE_EQ(ln.parts[1].work.bytes, (2 * n + 2 * rows + 768 + n) * kF32);
  // _fused_rms_norm_backward(grad_out, input, shape, rstd, weight, mask): one weight gradient.
  auto rms = work("aten::_fused_rms_norm_backward", "[[4096, 768], [4096, 768], [], [4096, 1], [768], []]",
                  R"(["c10::BFloat16", "c10::BFloat16", "ScalarList", "float", "c10::BFloat16", "ScalarList"])");
  ASSERT_TRUE(rms.work) << rms.note;
  EXPECT_DOUBLE_EQ(rms.work->flops, 8 * 4096.0 * 768);
  EXPECT_DOUBLE_EQ(rms.work->bytes, (2 * 4096.0 * 768 + 768) * kBf16 + 4096.0 * kF32 + (4096.0 * 768 + 768) * kBf16);
  auto gelu = work("aten::gelu_backward", "[[8, 512, 3072], [8, 512, 3072], []]",
                   R"(["c10::BFloat16", "c10::BFloat16", ""])");
  ASSERT_TRUE(gelu.work) << gelu.note;
  EXPECT_DOUBLE_EQ(gelu.work->flops, 2 * 8.0 * 512 * 3072);
  EXPECT_DOUBLE_EQ(gelu.work->bytes, 3 * 8.0 * 512 * 3072 * kBf16);
  auto sm = work("aten::_log_softmax_backward_data", "[[4096, 8192], [4096, 8192], [], []]",
                 R"(["c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"])");
  ASSERT_TRUE(sm.work) << sm.note;
  EXPECT_DOUBLE_EQ(sm.work->flops, 4 * 4096.0 * 8192);
  EXPECT_DOUBLE_EQ(sm.work->bytes, 3 * 4096.0 * 8192 * kBf16);
}

TEST(OpWorkTraining, DropoutWritesItsMaskAndComparisonsWriteBools) {
  const double n = 8.0 * 512 * 768;
  auto drop = work("aten::native_dropout", "[[8, 512, 768], [], []]", R"(["c10::BFloat16", "Scalar", "Scalar"])");
  ASSERT_TRUE(drop.work) << drop.note;
  EXPECT_DOUBLE_EQ(drop.work->bytes, 2 * n * kBf16 + n);
  auto back = work("aten::native_dropout_backward", "[[8, 512, 768], [8, 512, 768], []]",
                   R"(["c10::BFloat16", "bool", "Scalar"])");
  ASSERT_TRUE(back.work) << back.note;
  EXPECT_DOUBLE_EQ(back.work->bytes, 2 * n * kBf16 + n);
  EXPECT_EQ(back.work->precision, Precision::BF16);
  auto isinf = work("aten::isneginf", "[[4, 16, 2048, 2048]]", R"(["float"])");
  ASSERT_TRUE(isinf.work) << isinf.note;
  const double s = 4.0 * 16 * 2048 * 2048;
  EXPECT_DOUBLE_EQ(isinf.work->bytes, s * kF32 + s);
  // where(cond bool, x, y float): the output is a float, and so is the precision.
  auto where = work("aten::where", "[[4, 16, 2048, 1], [], [4, 16, 2048, 2048], [4, 16, 2048, 2048]]",
                    R"(["bool", "float", "float", "float"])");
  ASSERT_TRUE(where.work) << where.note;
  EXPECT_DOUBLE_EQ(where.work->bytes, 4.0 * 16 * 2048 + 3 * s * kF32);
  EXPECT_EQ(where.work->precision, Precision::FP32);
}

TEST(OpWorkTraining, ReductionsWriteTheReducedShape) {
  auto sum = work("aten::sum", "[[4096, 768], [], [], []]", R"(["c10::BFloat16", "ScalarList", "Scalar", ""])",
                  R"(["", "[0]", "True", ""])");
  ASSERT_TRUE(sum.work) << sum.note;
  EXPECT_DOUBLE_EQ(sum.work->flops, 4096.0 * 768);
  EXPECT_DOUBLE_EQ(sum.work->bytes, (4096.0 * 768 + 768) * kBf16);
  auto mean = work("aten::mean", "[[8, 1024, 1024], []]", R"(["float", ""])", R"(["", ""])");
  ASSERT_TRUE(mean.work) << mean.note;
  EXPECT_DOUBLE_EQ(mean.work->bytes, (8.0 * 1024 * 1024 + 1) * kF32);
  auto all = work("aten::all", "[[4, 16, 2048, 2048], [], []]", R"(["bool", "Scalar", "Scalar"])",
                  R"(["", "-1", "True"])");
  ASSERT_TRUE(all.work) << all.note;
  EXPECT_DOUBLE_EQ(all.work->bytes, 4.0 * 16 * 2048 * 2048 + 4.0 * 16 * 2048);
  auto outside = work("aten::sum", "[[4, 4], [], [], []]", R"(["float", "ScalarList", "Scalar", ""])",
                      R"(["", "[5]", "False", ""])");
  EXPECT_FALSE(outside.work);
  EXPECT_NE(outside.note.find("outside"), std::string::npos) << outside.note;
}

TEST(OpWorkTraining, LossEmbeddingAndIndexing) {
  auto nll = work("aten::nll_loss_forward", "[[4096, 8192], [4096], [], [], []]",
                  R"(["float", "long int", "", "Scalar", "Scalar"])", R"(["", "", "", "1", "-100"])");
  ASSERT_TRUE(nll.work) << nll.note;
  EXPECT_DOUBLE_EQ(nll.work->bytes, 4096.0 * 8 + 4096.0 * kF32 + kF32);
  auto emb = work("aten::embedding", "[[8192, 768], [8, 512], [], [], []]",
                  R"(["float", "long int", "Scalar", "Scalar", "Scalar"])");
  ASSERT_TRUE(emb.work) << emb.note;
  EXPECT_DOUBLE_EQ(emb.work->bytes, 4096.0 * 8 + 2 * 4096.0 * 768 * kF32);
  auto back = work("aten::embedding_dense_backward", "[[8, 512, 768], [8, 512], [], [], []]",
                   R"(["float", "long int", "Scalar", "Scalar", "Scalar"])", R"(["", "", "8192", "-1", "False"])");
  ASSERT_TRUE(back.work) << back.note;
  EXPECT_DOUBLE_EQ(back.work->bytes, (4096.0 * 768 + 8192.0 * 768) * kF32 + 4096.0 * 8);
  EXPECT_DOUBLE_EQ(back.work->flops, 4096.0 * 768);
  // An expanded index (stride 0) is read once per distinct element.
  OpInputs gather = parseOpInputs(R"({"Input Dims": [[8192, 768], [], [4096, 768], [], [4096, 768]],
      "Input type": ["float", "Scalar", "long int", "Scalar", "float"], "Input Strides": [[768, 1], [], [1, 0], [],
      [768, 1]], "Concrete Inputs": ["", "0", "", "False", ""]})");
  auto gathered = opWork("aten::gather", gather);
  ASSERT_TRUE(gathered.work) << gathered.note;
  EXPECT_DOUBLE_EQ(gathered.work->bytes, 4096.0 * 8 + 2 * 4096.0 * 768 * kF32);
  auto cat = work("aten::cat", "[[[8, 12, 512, 64], [8, 12, 512, 64], [8, 12, 512, 64]], []]",
                  R"(["c10::BFloat16", "Scalar"])");
  ASSERT_TRUE(cat.work) << cat.note;
  EXPECT_DOUBLE_EQ(cat.work->bytes, 2 * 3 * 8.0 * 12 * 512 * 64 * kBf16);
  auto untyped = work("aten::cat", "[[[2, 2], [2, 2]], []]", R"(["TensorList", "Scalar"])");
  EXPECT_FALSE(untyped.work);
}

TEST(OpWorkTraining, OptimizersTouchEveryParameterAndState) {
  // _fused_adamw_ over two parameters (the dtype completed from the kernel's name).
  auto adamw = work("aten::_fused_adamw_", "[[[768, 768], [768]], [[768, 768], [768]], [], [], [], [], []]",
                    R"(["float", "TensorList", "TensorList", "TensorList", "TensorList", "TensorList", "Scalar"])");
  ASSERT_TRUE(adamw.work) << adamw.note;
  const double n = 768.0 * 768 + 768;
  EXPECT_DOUBLE_EQ(adamw.work->bytes, 7 * n * kF32);
  EXPECT_DOUBLE_EQ(adamw.work->flops, 15 * n);
  auto dropped = work("aten::_fused_adamw_", "[[], [], [], [], [], []]",
                      R"(["TensorList", "TensorList", "TensorList", "TensorList", "TensorList", "TensorList"])");
  EXPECT_FALSE(dropped.work);
  EXPECT_NE(dropped.note.find("over 30 tensors"), std::string::npos) << dropped.note;
  // _foreach_addcmul_(self, t1, t2, value): three lists read, one written, 2 FLOPs each.
  auto addcmul = work("aten::_foreach_addcmul_", "[[[10], [20]], [[10], [20]], [[10], [20]], []]",
                      R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar"])");
  ASSERT_TRUE(addcmul.work) << addcmul.note;
  EXPECT_DOUBLE_EQ(addcmul.work->bytes, 4 * 30.0 * kBf16);
  EXPECT_DOUBLE_EQ(addcmul.work->flops, 2 * 30.0);
}

TEST(OpWorkTraining, InductorKernelsFromTheirArguments) {
  // A template GEMM: bias [4096], A [8, 1024, 1024] (= [8192, 1024]), B [4096, 1024] (= [1024, 4096] as
  // its view), out [8192, 4096].
  auto tem = work("triton_tem_fused__to_copy_add_addmm_native_dropout_native_layer_norm_t_view_9",
                  "[[4096], [8, 1024, 1024], [4096, 1024], [8192, 4096], [], [], []]",
                  R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar",
                      "Scalar"])",
                  R"(["", "", "", "", "2048", "1", "1"])");
  ASSERT_TRUE(tem.work) << tem.note;
  EXPECT_DOUBLE_EQ(tem.work->flops, 2.0 * 8192 * 4096 * 1024 + 8192.0 * 4096);
  EXPECT_DOUBLE_EQ(tem.work->bytes, (4096 + 8192.0 * 1024 + 4096.0 * 1024 + 8192.0 * 4096) * kBf16);
  // Pointwise: add (1) + native_dropout (2) per element of xnumel; views count none.
  auto poi = work("triton_poi_fused_add_native_dropout_view_11",
                  "[[2], [8, 1024, 1024], [8, 1024, 1024], [8192, 1024], []]",
                  R"(["long int", "float", "bool", "c10::BFloat16", "Scalar"])", R"(["", "", "", "", "8388608"])");
  ASSERT_TRUE(poi.work) << poi.note;
  const double x = 8388608;
  EXPECT_DOUBLE_EQ(poi.work->flops, 3 * x);
  EXPECT_DOUBLE_EQ(poi.work->bytes, 2 * 8 + x * kF32 + x + x * kBf16);
  EXPECT_EQ(poi.work->precision, Precision::FP32);
  // A reduction iterates xnumel x r0_numel elements.
  auto red = work("triton_red_fused_gelu_gelu_backward_sum_view_7", "[[8, 1024, 4096], [1, 4096, 32], [], []]",
                  R"(["c10::BFloat16", "float", "Scalar", "Scalar"])", R"(["", "", "131072", "256"])");
  ASSERT_TRUE(red.work) << red.note;
  EXPECT_DOUBLE_EQ(red.work->flops, (1 + 2 + 1) * 131072.0 * 256);
  auto misfit = work("triton_tem_fused_mm_0", "[[3, 5], [7, 11], [13, 17]]", R"(["float", "float", "float"])");
  EXPECT_FALSE(misfit.work);
  EXPECT_NE(misfit.note.find("no two tensor arguments fit"), std::string::npos) << misfit.note;
}

}  // namespace
}  // namespace fuselab
