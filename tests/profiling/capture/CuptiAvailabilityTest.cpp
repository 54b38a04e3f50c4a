// What the CUPTI collector does where it cannot capture (CPU-only builds, no
// GPU): explain, never crash. Runs on every machine.
#include "profiling/capture/CuptiCollector.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <string>

namespace fuselab {
namespace {

bool mentionsGpuOrCupti(const std::string& msg) {
  return msg.find("GPU") != std::string::npos || msg.find("CUPTI") != std::string::npos;
}

TEST(CuptiAvailability, StartWithoutGpuExplainsWhyAndLeavesNothingBehind) {
  CuptiCollector collector;
  std::string error;
  if (collector.start(CuptiOptions{}, &error)) {
    collector.stop();
    GTEST_SKIP() << "a CUDA GPU is present and CUPTI started: the gpu tests cover this machine";
  }
  EXPECT_TRUE(mentionsGpuOrCupti(error)) << error;
  if (!CuptiCollector::compiledIn())
    EXPECT_EQ(error, "fuselab was built without CUDA/CUPTI: CPU-only capture");

  collector.stop();  // never started: harmless, and twice too
  collector.stop();
  Trace trace;
  collector.appendTo(trace);
  EXPECT_EQ(trace.eventCount(), 0u);
  EXPECT_EQ(trace.meta.dropped_records, 0u);
  EXPECT_EQ(collector.droppedRecords(), 0u);
  EXPECT_EQ(collector.eventCount(), 0u);
}

TEST(CuptiAvailability, AFailedStartDoesNotBlockTheNextCollector) {
  CuptiCollector first;
  std::string first_error;
  if (first.start(CuptiOptions{}, &first_error)) {
    first.stop();
    GTEST_SKIP() << "a CUDA GPU is present: the gpu tests cover refusal of a second collector";
  }
  CuptiCollector second;
  std::string second_error;
  EXPECT_FALSE(second.start(CuptiOptions{}, &second_error));
  // Same reason again, not "in use by another profiler".
  EXPECT_EQ(second_error, first_error);
}

TEST(CuptiAvailability, BadPoolOptionsAreRejectedWithTheirName) {
  if (!CuptiCollector::compiledIn()) GTEST_SKIP() << "built without CUPTI: options are never looked at";
  CuptiCollector collector;
  std::string error;
  CuptiOptions no_buffers;
  no_buffers.max_buffers = 0;
  EXPECT_FALSE(collector.start(no_buffers, &error));
  EXPECT_NE(error.find("max_buffers"), std::string::npos) << error;

  CuptiOptions tiny;
  tiny.buffer_bytes = 16;
  EXPECT_FALSE(collector.start(tiny, &error));
  EXPECT_NE(error.find("buffer_bytes"), std::string::npos) << error;
}

TEST(CuptiAvailability, NowNsIsOnTheRealtimeClock) {
  // The CPU side of a capture stamps events with CLOCK_REALTIME-based ns; the
  // collector's clock must be the same one (an offset of years would show
  // a different clock, e.g. a monotonic one).
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  int64_t realtime = int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
  int64_t ours = CuptiCollector::nowNs();
  EXPECT_LT(std::llabs(ours - realtime), 50'000'000LL) << "nowNs " << ours << " vs CLOCK_REALTIME " << realtime;
}

}  // namespace
}  // namespace fuselab
