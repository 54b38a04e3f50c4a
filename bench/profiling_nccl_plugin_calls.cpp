// What the NCCL profiler plugin costs NCCL's threads per collective, on the
// CPU: the calls NCCL makes for one collective with the default events
// (Coll start and stop on the user's thread; per channel, KernelCh start,
// KernelChStop and stop on the proxy thread), against the recorder itself.
// The GPU-side cost (a collective's time with the plugin against without,
// at 8 B, 1 MB and 64 MB) is bench/profiling_nccl_plugin_cost.py, on two GPUs.
#include <benchmark/benchmark.h>

#include <memory>

#include "profiling/nccl_profiler/NcclCommRecorder.h"

namespace fuselab::nccl_profiler {
namespace {

void BM_CollectiveWithChannels(benchmark::State& state) {
  const int channels = int(state.range(0));
  PluginOptions options;
  options.event_mask = ncclProfileColl | ncclProfileKernelCh;
  options.coll_capacity = 1u << 20;
  auto comm = std::make_unique<CommRecorder>(CommInfo{1, "bench", 1, 2, 0}, options);
  ncclProfilerCollDescr_v4 coll{0, "AllReduce", nullptr, nullptr, 1 << 20, 0, "ncclBfloat16", uint8_t(channels), 16,
                                "RING", "LL"};
  ncclProfilerKernelChDescr ch{0, 1000};
  ncclProfilerEventStateArgs_t stop{};
  stop.kernelCh.pTimer = 2000;
  uint64_t seq = 0;
  for (auto _ : state) {
    if (comm->collectives().size() + 1 >= options.coll_capacity) {  // a fresh pool: measure recording, not dropping
      state.PauseTiming();
      comm = std::make_unique<CommRecorder>(CommInfo{1, "bench", 1, 2, 0}, options);
      state.ResumeTiming();
    }
    coll.seqNumber = seq++;
    EventStart e;
    e.type = ncclProfileColl;
    e.coll = &coll;
    void* h = comm->start(e);
    comm->stop(h);
    for (int c = 0; c < channels; ++c) {
      ch.channelId = uint8_t(c);
      EventStart k;
      k.type = ncclProfileKernelCh;
      k.parent = h;
      k.kernel_ch = &ch;
      void* kh = comm->start(k);
      comm->recordState(kh, ncclProfilerKernelChStop, &stop);
      comm->stop(kh);
    }
    benchmark::DoNotOptimize(h);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["channels"] = channels;
}
BENCHMARK(BM_CollectiveWithChannels)->Arg(1)->Arg(8)->Arg(32);

}  // namespace
}  // namespace fuselab::nccl_profiler

BENCHMARK_MAIN();
