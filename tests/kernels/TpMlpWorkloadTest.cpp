// tp_mlp on the CPU with Gloo: two ranks as two threads of this process,
// each with its own process group over a loopback TCPStore, against the
// single-device mlp workload's output (same weights and input).
#include <gtest/gtest.h>

#include <ATen/ops/allclose.h>
#include <ATen/ops/equal.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <unistd.h>

#include <future>
#include <thread>

#include "kernels/TpMlpWorkload.h"
#include "kernels/WorkloadRegistry.h"

namespace fuselab {
namespace {

// c10d's flight recorder is one per process, and torch 2.11 writes its map
// of process-group status before taking its lock: two ranks' process groups
// recording at once in one process (these tests run ranks as threads) can
// corrupt it (a crash in FlightRecorder::recordWithResetEnabled, seen with
// three instances of this suite side by side). It is read once, when first
// used: off before any test makes a process group. Captures run each rank in
// a process of its own and keep it.
[[maybe_unused]] const bool kFlightRecorderOff = ::setenv("TORCH_FR_BUFFER_SIZE", "0", 1) == 0;

WorkloadParams small(const std::string& workload, DType dtype = DType::FP32) {
  WorkloadParams p;
  p.workload = workload;
  p.device = Device::Cpu;
  p.dtype = dtype;
  p.batch = 2;
  p.seq = 8;
  p.dim = 32;
  p.hidden = 64;
  return p;
}

int freePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

at::Tensor mlpOutput(WorkloadParams p) {
  p.workload = "mlp";
  p.variant = "geglu";
  p.ranks = 1;
  auto w = makeWorkload(p);
  w->forward();
  return dynamic_cast<TorchWorkload&>(*w).output();
}

// Every rank's output after `forwards` forwards of a job of `ranks` threads.
std::vector<at::Tensor> runRanks(const WorkloadParams& p, int ranks, int forwards = 2) {
  const int port = freePort();
  std::vector<std::future<at::Tensor>> futures;
  for (int r = 0; r < ranks; ++r)
    futures.push_back(std::async(std::launch::async, [=] {
      RankEnv env{r, ranks, "127.0.0.1", port};
      WorkloadParams q = p;
      q.ranks = ranks;
      auto w = makeTpMlpWorkload(q, env);
      for (int k = 0; k < forwards; ++k) w->forward();
      return w->output().clone();
    }));
  std::vector<at::Tensor> out;
  for (auto& f : futures) out.push_back(f.get());
  return out;
}

TEST(TpMlp, TwoGlooRanksEqualTheSingleDeviceMlp) {
  for (const std::string variant : {"eager", "overlap", "fused"}) {
    SCOPED_TRACE(variant);
    WorkloadParams p = small("tp_mlp");
    p.variant = variant;
    const at::Tensor want = mlpOutput(p);
    for (const at::Tensor& got : runRanks(p, 2)) {
      ASSERT_EQ(got.sizes(), want.sizes());
      EXPECT_TRUE(at::allclose(got, want, 1e-5, 1e-5)) << (got - want).abs().max().item<float>();
    }
  }
}

TEST(TpMlp, Bf16RanksEqualTheMlpWithinBf16Rounding) {
  WorkloadParams p = small("tp_mlp", DType::BF16);
  const at::Tensor want = mlpOutput(p).to(at::kFloat);
  for (const at::Tensor& got : runRanks(p, 2))
    EXPECT_TRUE(at::allclose(got.to(at::kFloat), want, 2e-2, 2e-2)) << (got.to(at::kFloat) - want).abs().max().item<float>();
}

TEST(TpMlp, OneRankRunsInThisProcessAndMatchesExactly) {
  WorkloadParams p = small("tp_mlp");
  p.ranks = 1;
  auto w = makeWorkload(p);  // no RANK in the environment: a world of one
  w->forward();
  EXPECT_TRUE(at::equal(dynamic_cast<TorchWorkload&>(*w).output(), mlpOutput(p)));
  EXPECT_NE(w->distributedInfoJson().find("\"world_size\": 1, "), std::string::npos) << w->distributedInfoJson();
  EXPECT_NE(w->distributedInfoJson().find("{\"backend\": \"gloo\", \"rank\": 0, "), std::string::npos);
}

TEST(TpMlp, FusedOnTheCpuSaysItRunsEager) {
  WorkloadParams p = small("tp_mlp");
  p.ranks = 1;
  p.variant = "fused";
  auto w = makeWorkload(p);
  EXPECT_NE(w->describe().find("fused -> eager"), std::string::npos) << w->describe();
}

TEST(TpMlp, SeveralRanksWithoutALauncherAndUnevenSplitsAreRefused) {
  WorkloadParams p = small("tp_mlp");
  p.ranks = 2;
  try {
    makeWorkload(p);
    ADD_FAILURE() << "2 ranks accepted in one process";
  } catch (const WorkloadError& e) {
    EXPECT_NE(std::string(e.what()).find("--ranks 2"), std::string::npos) << e.what();
  }
  p.ranks = 3;  // 64 does not split into 3
  try {
    makeTpMlpWorkload(p, RankEnv{0, 3, "127.0.0.1", 1});
    ADD_FAILURE() << "hidden 64 split into 3";
  } catch (const WorkloadError& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of the rank count"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fuselab
