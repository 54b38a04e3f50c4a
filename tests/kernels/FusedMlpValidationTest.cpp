// fused_mlp's parameter checks and messages; none of this needs a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <string>

#include "kernels/FusedMlp.h"
#include "kernels/FusedMlpWorkload.h"

namespace fuselab {
namespace {

using ::testing::HasSubstr;

WorkloadParams fusedParams() {
  WorkloadParams p;
  p.workload = "fused_mlp";
  p.batch = 4;
  p.seq = 16;
  p.dim = 768;
  p.hidden = 3072;
  p.dtype = DType::BF16;
  p.device = Device::Cuda;
  return p;
}

std::string validationMessage(const WorkloadParams& p) {
  try {
    validateFusedMlpParams(p);
  } catch (const WorkloadError& e) {
    return e.what();
  }
  return "";
}

TEST(FusedMlpValidation, AcceptsTheTutorialShapesAndOddMultiplesOfEight) {
  EXPECT_EQ(validationMessage(fusedParams()), "");
  WorkloadParams p = fusedParams();
  p.dim = 776;
  p.hidden = 3080;
  p.batch = 1;
  p.seq = 1;
  p.variant = "small";
  EXPECT_EQ(validationMessage(p), "");
}

TEST(FusedMlpValidation, RejectsDimAndHiddenThatAreNotMultiplesOfEight) {
  WorkloadParams p = fusedParams();
  p.dim = 770;
  EXPECT_THAT(validationMessage(p), HasSubstr("dim = 770"));
  EXPECT_THAT(validationMessage(p), HasSubstr("multiple of 8"));
  p = fusedParams();
  p.hidden = 3074;
  EXPECT_THAT(validationMessage(p), HasSubstr("hidden = 3074"));
  p.hidden = 0;
  EXPECT_THAT(validationMessage(p), HasSubstr("hidden = 0"));
  p = fusedParams();
  p.dim = 65536 + 8;
  EXPECT_THAT(validationMessage(p), HasSubstr("from 8 to 65536"));
}

TEST(FusedMlpValidation, RejectsFp32AndTheCpu) {
  WorkloadParams p = fusedParams();
  p.dtype = DType::FP32;
  EXPECT_THAT(validationMessage(p), HasSubstr("bf16 or fp16 (fp32 given)"));
  p = fusedParams();
  p.device = Device::Cpu;
  EXPECT_THAT(validationMessage(p), HasSubstr("runs only on a CUDA GPU (device cpu given)"));
}

TEST(FusedMlpValidation, NamesTheVariants) {
  WorkloadParams p = fusedParams();
  p.variant = "turbo";
  EXPECT_THAT(validationMessage(p), HasSubstr("unknown fused_mlp variant 'turbo'"));
  EXPECT_THAT(validationMessage(p), HasSubstr("auto, small, small_deterministic, large, large_mma or liger"));
  for (const std::string& name : fusedMlpPathNames()) {
    EXPECT_EQ(fusedMlpPathName(parseFusedMlpPath(name)), name);
  }
}

// small takes up to 128 tokens (over 64 only where the Hopper kernel runs,
// which the GPU decides); small_deterministic up to 64.
TEST(FusedMlpValidation, SmallVariantsTakeTheirMostTokens) {
  WorkloadParams p = fusedParams();
  p.variant = "small";
  p.batch = 1;
  p.seq = 128;
  EXPECT_EQ(validationMessage(p), "");
  p.seq = 129;
  EXPECT_THAT(validationMessage(p), HasSubstr("at most 128 tokens (batch * seq = 129)"));
  p.variant = "small_deterministic";
  p.seq = 64;
  EXPECT_EQ(validationMessage(p), "");
  p.seq = 65;
  EXPECT_THAT(validationMessage(p), HasSubstr("at most 64 tokens (batch * seq = 65)"));
  p.variant = "auto";
  p.seq = 129;
  EXPECT_EQ(validationMessage(p), "");
}

TEST(FusedMlpValidation, RejectsEmptyAndOversizedTokenCounts) {
  WorkloadParams p = fusedParams();
  p.seq = 0;
  EXPECT_THAT(validationMessage(p), HasSubstr("batch >= 1 and seq >= 1"));
  p = fusedParams();
  p.batch = 1 << 12;
  p.seq = 1 << 10;  // 4M tokens x 3072 hidden is over 2^31 elements
  EXPECT_THAT(validationMessage(p), HasSubstr("over 2^31 - 1 elements"));
}

TEST(FusedMlpValidation, RegistryListsFusedMlpAsCudaOnly) {
  bool found = false;
  for (const WorkloadInfo& info : listWorkloads()) {
    if (info.name != "fused_mlp") continue;
    found = true;
    EXPECT_TRUE(info.cuda_only);
    ASSERT_FALSE(info.variants.empty());
    EXPECT_EQ(info.variants.front(), "auto");
    EXPECT_EQ(info.variants, fusedMlpPathNames());
  }
  EXPECT_TRUE(found);

  WorkloadParams p = fusedParams();
  p.device = Device::Cpu;
  try {
    makeWorkload(p);
    ADD_FAILURE() << "fused_mlp on the CPU was accepted";
  } catch (const WorkloadError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("fused_mlp"));
    EXPECT_THAT(std::string(e.what()), HasSubstr("CUDA"));
  }
}

TEST(FusedMlpValidation, SaysSoWhenThereIsNoGpu) {
  if (at::hasCUDA()) GTEST_SKIP() << "a CUDA GPU is present: the no-GPU message is not reachable";
  try {
    makeFusedMlpWorkload(fusedParams());
    ADD_FAILURE() << "fused_mlp was built without a GPU";
  } catch (const WorkloadError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("CUDA"));
  }
}

TEST(FusedMlpValidation, EngineRejectsCpuWeights) {
  const at::Tensor g = at::zeros({64, 32}, at::kBFloat16);
  const at::Tensor d = at::zeros({32, 64}, at::kBFloat16);
  try {
    FusedMlp mlp(g, g, d);
    ADD_FAILURE() << "CPU weights were accepted";
  } catch (const WorkloadError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("CUDA"));
  }
}

}  // namespace
}  // namespace fuselab
