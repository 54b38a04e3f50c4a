// capture with counters where they cannot be read (here: a forward that runs
// no kernels; on a machine without a GPU also no CUPTI trace): the capture
// succeeds and says why once.
#include <gtest/gtest.h>

#include "profiling/capture/Capture.h"
#include "profiling/capture/CaptureCounters.h"
#include "profiling/trace/MeasuredCounters.h"

namespace fuselab {
namespace {

constexpr std::string_view kPrefix = "hardware counters unavailable: ";

int countersMessages(const std::vector<std::string>& messages) {
  int n = 0;
  for (const std::string& m : messages) n += m.starts_with(kPrefix);
  return n;
}

CaptureResult captureCpuForward(bool counters) {
  CaptureTarget target;
  target.region_label = "cpu_fwd";
  int calls = 0;
  target.forward = [&calls] { ++calls; };
  target.synchronize = [] {};
  CaptureOptions options;
  options.warmup = 1;
  options.steps = 2;
  options.counters = counters;
  return runCapture(target, options);
}

TEST(CaptureCounters, UnavailableSaysWhyOnceAndTheCaptureStands) {
  const CaptureResult r = captureCpuForward(true);
  EXPECT_EQ(r.steps_done, 2);
  EXPECT_FALSE(r.cancelled);
  EXPECT_EQ(countersMessages(r.messages), 1);
  EXPECT_EQ(countersMessages(r.trace.meta.warnings), 1);
  for (const std::string& m : r.messages)
    if (m.starts_with(kPrefix)) EXPECT_TRUE(m.ends_with("; the model's figures stand")) << m;
  for (uint32_t t = 0; t < r.trace.tracks.size(); ++t)
    for (uint32_t i = 0; i < r.trace.tracks[t].size(); ++i) EXPECT_TRUE(measuredCountersOf(r.trace, {t, i}).empty());
}

TEST(CaptureCounters, NotAskedNotMentioned) {
  const CaptureResult r = captureCpuForward(false);
  EXPECT_EQ(r.steps_done, 2);
  EXPECT_EQ(countersMessages(r.messages), 0);
}

TEST(CaptureCounters, MessageNamesTheReasonAndKeepsTheModel) {
  EXPECT_EQ(countersUnavailableMessage("no CUDA device"),
            "hardware counters unavailable: no CUDA device; the model's figures stand");
}

}  // namespace
}  // namespace fuselab
