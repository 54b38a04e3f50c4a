// train_step on the CPU: one step computes a cross-entropy loss, updates
// every parameter with AdamW and leaves no gradients behind; bad sizes and
// graph mode are refused with a message.
#include <gtest/gtest.h>

#include <ATen/ops/equal.h>

#include <cmath>

#include "kernels/TorchWorkload.h"
#include "kernels/WorkloadRegistry.h"
#include "tests/support/WorkloadErrorOf.h"

namespace fuselab {
namespace {

WorkloadParams small(DType dtype) {
  WorkloadParams p;
  p.workload = "train_step";
  p.device = Device::Cpu;
  p.dtype = dtype;
  p.batch = 2;
  p.seq = 32;
  p.dim = 64;
  p.hidden = 128;
  p.out = 256;
  return p;
}

TEST(TrainStepWorkload, AStepComputesTheLossAndUpdatesEveryParameter) {
  for (DType dtype : {DType::FP32, DType::BF16}) {
    auto w = makeWorkload(small(dtype));
    auto& t = dynamic_cast<TorchWorkload&>(*w);
    std::vector<at::Tensor> before;
    for (const at::Tensor& p : t.weights()) before.push_back(p.detach().clone());
    w->forward();
    // Random logits over a vocabulary of 256: cross-entropy near ln(256) = 5.5.
    const double loss = t.output().item<double>();
    EXPECT_TRUE(std::isfinite(loss)) << dtypeName(dtype);
    EXPECT_GT(loss, std::log(256.0) - 1) << dtypeName(dtype);
    EXPECT_LT(loss, std::log(256.0) + 3) << dtypeName(dtype);
    ASSERT_EQ(t.weights().size(), before.size());
    for (size_t i = 0; i < before.size(); ++i) {
      EXPECT_FALSE(at::equal(t.weights()[i], before[i])) << "parameter " << i << " was not updated";
      EXPECT_FALSE(t.weights()[i].grad().defined()) << "parameter " << i << " kept its gradient";
      EXPECT_EQ(t.weights()[i].scalar_type(), at::kFloat);
    }
  }
}

TEST(TrainStepWorkload, RefusesWidthsThatAreNotWholeHeadsAndGraphMode) {
  WorkloadParams p = small(DType::FP32);
  p.dim = 100;
  EXPECT_NE(test::workloadErrorOf(p).find("multiple of 64"), std::string::npos) << test::workloadErrorOf(p);
  p = small(DType::FP32);
  p.device = Device::Cuda;
  p.graph = true;
  const std::string graph = test::workloadErrorOf(p);
  // Without a GPU the registry refuses CUDA first; with one, train_step refuses the graph.
  EXPECT_TRUE(graph.find("no CUDA GPU") != std::string::npos || graph.find("no CUDA graph mode") != std::string::npos)
      << graph;
}

}  // namespace
}  // namespace fuselab
