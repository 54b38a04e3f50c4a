// tp_mlp on NCCL: `capture --ranks 1 --device cuda` (a world of one, started
// as a worker process like any run) for each variant, and the refusal of
// more ranks than GPUs.
#include <gtest/gtest.h>

#include <ATen/Context.h>

#include <filesystem>

#include "app/capture/CaptureModule.h"
#include "profiling/trace/RunLoader.h"
#include "tests/app/CliRun.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (!at::hasCUDA()) GTEST_SKIP() << "no CUDA GPU: live GPU captures need one (run on the GPU machine)"

size_t countNamed(const Trace& t, std::string_view name) {
  size_t n = 0;
  for (const Track& track : t.tracks)
    for (uint32_t i = 0; i < track.size(); ++i) n += t.strings.get(track.name_id[i]) == name;
  return n;
}

TEST(TpMlpGpu, OneNcclRankCapturesEachVariant) {
  SKIP_WITHOUT_GPU();
  for (const std::string variant : {"eager", "fused", "overlap"}) {
    SCOPED_TRACE(variant);
    const auto out = test::scratchDir("TpMlpGpu_" + variant) / "run";
    const test::CliRun r = test::runFuselab({"capture", "--workload", "tp_mlp", "--variant", variant, "--ranks", "1",
                                             "--device", "cuda", "--dtype", "bf16", "--batch", "4", "--seq", "16",
                                             "--dim", "256", "--hidden", "1024", "--out", out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    const fuselab::Run run = loadRun(expandRunPaths({out}));
    ASSERT_EQ(run.ranks.size(), 1u);
    EXPECT_EQ(run.backend, "nccl");
    const Trace& t = run.ranks[0].trace;
    EXPECT_EQ(countNamed(t, "tp_mlp_fwd"), 3u);
    EXPECT_EQ(t.meta.trace_name.find("-> eager"), std::string::npos) << t.meta.trace_name;
    if (variant == "fused") EXPECT_EQ(countNamed(t, "fuselab::fused_mlp"), 3u) << t.meta.trace_name;
    if (variant == "eager") EXPECT_EQ(countNamed(t, "aten::linear"), 9u);
    if (variant == "overlap") {  // one graph launch per forward, no per-chunk dispatch
      EXPECT_EQ(countNamed(t, "cudaGraphLaunch"), 3u) << t.meta.trace_name;
      EXPECT_EQ(countNamed(t, "aten::linear"), 0u);
    }
  }
}

TEST(TpMlpGpu, GraphReplaysTheEagerForward) {
  SKIP_WITHOUT_GPU();
  const auto out = test::scratchDir("TpMlpGpu_graph") / "run";
  const test::CliRun r = test::runFuselab({"capture", "--workload", "tp_mlp", "--graph", "--ranks", "1", "--device",
                                           "cuda", "--dtype", "bf16", "--batch", "4", "--seq", "16", "--dim", "256",
                                           "--hidden", "1024", "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const fuselab::Run run = loadRun(expandRunPaths({out}));
  ASSERT_EQ(run.ranks.size(), 1u);  // the graph keeps the rank's distributedInfo
  const Trace& t = run.ranks[0].trace;
  EXPECT_NE(t.meta.trace_name.find("replayed as a CUDA graph"), std::string::npos) << t.meta.trace_name;
  EXPECT_EQ(countNamed(t, "cudaGraphLaunch"), 3u);
}

TEST(TpMlpGpu, MoreRanksThanGpusAreRefused) {
  SKIP_WITHOUT_GPU();
  const int gpus = captureBackend().gpuCount();
  const std::string ranks = std::to_string(gpus + 1);
  const test::CliRun r = test::runFuselab({"capture", "--workload", "tp_mlp", "--ranks", ranks, "--device", "cuda",
                                           "--hidden", std::to_string(1024 * (gpus + 1))});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--ranks " + ranks + " on cuda needs " + ranks + " GPUs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("this machine has " + std::to_string(gpus)), std::string::npos) << r.err;
}

}  // namespace
}  // namespace fuselab
