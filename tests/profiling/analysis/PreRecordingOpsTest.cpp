// Which GPU ops count as launched before recording began (PreRecordingOps.h):
// no launch call in the trace, and starting before the rank's first linked
// launch call or queued on its stream behind such an op.
#include <gtest/gtest.h>

#include "profiling/analysis/common/PreRecordingOps.h"
#include "tests/support/AddEvent.h"
#include "tests/support/SyntheticTrace.h"

namespace fuselab {
namespace {

// The names of the GPU ops `ops` holds, in track and time order.
std::vector<std::string> namesIn(const Trace& trace, const PreRecordingOps& ops) {
  std::vector<std::string> out;
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti)
    for (uint32_t i = 0; i < trace.tracks[ti].size(); ++i)
      if (isGpuWork(trace.tracks[ti].category[i]) && ops.contains({ti, i})) out.emplace_back(trace.name({ti, i}));
  return out;
}

TEST(PreRecordingOps, AnOpWithoutLaunchThatStartsBeforeTheFirstLaunchIsOne) {
  // The first linked launch starts at 10 us: "early" (no launch, from 2 us)
  // cannot have been enqueued by any call in the trace.
  Trace trace = test::SyntheticTrace()
                    .gpu("early", 2'000, 30'000, 50, 20)
                    .launched("recorded", 10'000, 2'000, 14'000, 3'000, 1)
                    .build();
  const PreRecordingOps ops(trace);
  EXPECT_EQ(namesIn(trace, ops), (std::vector<std::string>{"early"}));
  EXPECT_EQ(ops.count(), 1u);
}

TEST(PreRecordingOps, OpsQueuedBehindOneOnItsStreamAreToo) {
  // "queued" (no launch) starts after the first launch, but its stream ran
  // "early" until then: it was enqueued behind it, before recording. "lost"
  // (no launch, another stream, nothing before it) may have lost its record
  // mid-trace: kept, as is "after", which follows a recorded op.
  Trace trace = test::SyntheticTrace()
                    .gpu("early", 2'000, 30'000, 50, 20)
                    .gpu("queued", 32'000, 1'000, 51, 20)
                    .launched("recorded", 10'000, 2'000, 34'000, 3'000, 1, 20)
                    .gpu("after", 40'000, 1'000, 52, 20)
                    .gpu("lost", 20'000, 1'000, 53, 7)
                    .build();
  EXPECT_EQ(namesIn(trace, PreRecordingOps(trace)), (std::vector<std::string>{"early", "queued"}));
}

TEST(PreRecordingOps, NoneWhereNoGpuOpIsLinkedToALaunch) {
  // No CPU side, or exported without correlation ids: nothing tells when
  // recording began, so every op stays.
  Trace gpu_only = test::SyntheticTrace().gpu("a", 0, 10'000, 1).gpu("b", 20'000, 1'000, 2).build();
  EXPECT_EQ(PreRecordingOps(gpu_only).count(), 0u);
  Trace no_ids = test::SyntheticTrace()
                     .launch(-1, 5'000, 1'000)
                     .gpu("a", 0, 10'000, -1)
                     .gpu("b", 20'000, 1'000, -1)
                     .build();
  EXPECT_EQ(PreRecordingOps(no_ids).count(), 0u);
}

TEST(PreRecordingOps, EachRankOfAMergedRunHasItsOwnFirstLaunch) {
  // Rank 0 recorded its first launch at 10 us, rank 1 at 1 us: an op without
  // launch from 5 us is before recording on rank 0 only.
  Trace trace;
  const uint32_t cpu0 = trace.trackFor("100", "100"), gpu0 = trace.trackFor("0", "7");
  const uint32_t cpu1 = trace.trackFor("101", "101"), gpu1 = trace.trackFor("1", "7");
  for (uint32_t t : {cpu0, gpu0}) trace.tracks[t].rank = 0;
  for (uint32_t t : {cpu1, gpu1}) trace.tracks[t].rank = 1;
  test::addEvent(trace, cpu0, "cudaLaunchKernel", 10'000, 1'000, Category::CudaRuntime, 1);
  test::addEvent(trace, gpu0, "rank0 recorded", 12'000, 1'000, Category::Kernel, 1);
  test::addEvent(trace, gpu0, "rank0 early", 5'000, 4'000, Category::Kernel, 2);
  test::addEvent(trace, cpu1, "cudaLaunchKernel", 1'000, 1'000, Category::CudaRuntime, 11);
  test::addEvent(trace, gpu1, "rank1 recorded", 2'500, 1'000, Category::Kernel, 11);
  test::addEvent(trace, gpu1, "rank1 unlinked", 5'000, 4'000, Category::Kernel, 12);
  trace.finalize();
  EXPECT_EQ(namesIn(trace, PreRecordingOps(trace)), (std::vector<std::string>{"rank0 early"}));
}

TEST(PreRecordingOps, CopiesAndSetsCountLikeKernels) {
  Trace trace = test::SyntheticTrace()
                    .gpu("Memcpy HtoD", 1'000, 2'000, 60, 7, Category::Memcpy)
                    .gpu("Memset", 4'000, 500, 61, 8, Category::Memset)
                    .launched("recorded", 10'000, 2'000, 14'000, 3'000, 1)
                    .build();
  EXPECT_EQ(namesIn(trace, PreRecordingOps(trace)), (std::vector<std::string>{"Memcpy HtoD", "Memset"}));
}

}  // namespace
}  // namespace fuselab
