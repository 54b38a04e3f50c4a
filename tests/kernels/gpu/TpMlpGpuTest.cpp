// tp_mlp on one GPU with NCCL (a world of one in this process): each
// variant equals the single-device mlp within bf16 rounding (overlap's from
// its CUDA graph's replay).
#include <gtest/gtest.h>

#include <ATen/Context.h>
#include <ATen/ops/allclose.h>

#include "kernels/TpMlpWorkload.h"
#include "kernels/WorkloadRegistry.h"

namespace fuselab {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (!at::hasCUDA()) GTEST_SKIP() << "no CUDA GPU: live GPU captures need one (run on the GPU machine)"

TEST(TpMlpGpu, EachVariantOnOneNcclRankEqualsTheMlp) {
  SKIP_WITHOUT_GPU();
  WorkloadParams p;
  p.device = Device::Cuda;
  p.dtype = DType::BF16;
  p.batch = 4;
  p.seq = 16;
  p.dim = 256;
  p.hidden = 1024;
  p.workload = "mlp";
  p.variant = "geglu";
  auto mlp = makeWorkload(p);
  mlp->forward();
  const at::Tensor want = dynamic_cast<TorchWorkload&>(*mlp).output().to(at::kFloat).cpu();
  for (const std::string variant : {"eager", "fused", "overlap"}) {
    SCOPED_TRACE(variant);
    p.workload = "tp_mlp";
    p.variant = variant;
    p.ranks = 1;
    auto w = makeTpMlpWorkload(p, RankEnv{});
    EXPECT_EQ(w->describe().find("-> eager"), std::string::npos) << w->describe();
    // On NCCL, overlap replays its chunked forward as a CUDA graph.
    if (variant == "overlap")
      EXPECT_NE(w->describe().find("replayed as one CUDA graph"), std::string::npos) << w->describe();
    w->forward();
    w->synchronize();
    const at::Tensor got = w->output().to(at::kFloat).cpu();
    EXPECT_TRUE(at::allclose(got, want, 2e-2, 2e-2)) << (got - want).abs().max().item<float>();
  }
}

}  // namespace
}  // namespace fuselab
