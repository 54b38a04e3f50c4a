// The time a GPU op adds to its stream: early-started kernels (programmatic
// dependent launch) do not count their wait for the kernel before them.
#include <gtest/gtest.h>

#include "profiling/analysis/common/StreamTime.h"
#include "tests/support/SyntheticTrace.h"

namespace fuselab {
namespace {

std::vector<EventRef> gpuOps(const Trace& trace) {
  std::vector<EventRef> out;
  for (uint32_t t = 0; t < trace.tracks.size(); ++t)
    for (uint32_t i = 0; i < trace.tracks[t].size(); ++i)
      if (isGpuWork(trace.tracks[t].category[i])) out.push_back({t, i});
  return out;
}

TEST(StreamTime, KernelStartedUnderThePreviousOneCountsFromItsEnd) {
  // b starts at 8 us under a (0-10 us) and ends at 21 us: 11 us of its own.
  Trace trace = test::SyntheticTrace().gpu("a", 0, 10'000, 1).gpu("b", 8'000, 13'000, 2).build();
  EXPECT_EQ(streamTimes(trace, gpuOps(trace)), (std::vector<int64_t>{10'000, 11'000}));
}

TEST(StreamTime, ApartKernelsKeepTheirDurations) {
  Trace trace = test::SyntheticTrace().gpu("a", 0, 10'000, 1).gpu("b", 12'000, 5'000, 2).build();
  EXPECT_EQ(streamTimes(trace, gpuOps(trace)), (std::vector<int64_t>{10'000, 5'000}));
}

TEST(StreamTime, KernelInsideAnEarlierOneKeepsItsDuration) {
  // A CUDA graph's concurrent branches reported on one stream.
  Trace trace = test::SyntheticTrace().gpu("a", 0, 10'000, 1).gpu("b", 2'000, 3'000, 2).gpu("c", 6'000, 8'000, 3).build();
  EXPECT_EQ(streamTimes(trace, gpuOps(trace)), (std::vector<int64_t>{10'000, 3'000, 4'000}));
}

TEST(StreamTime, OtherStreamsAndAnnotationsDoNotOverlap) {
  Trace trace = test::SyntheticTrace()
                    .gpu("a", 0, 10'000, 1, 7)
                    .gpu("b", 5'000, 10'000, 2, 8)
                    .gpu("nccl:all_reduce", 0, 20'000, -1, 9, Category::GpuAnnotation)
                    .gpu("c", 5'000, 10'000, 3, 9)
                    .build();
  EXPECT_EQ(streamTimes(trace, gpuOps(trace)), (std::vector<int64_t>{10'000, 10'000, 10'000}));
}

}  // namespace
}  // namespace fuselab
