// The counter metrics through CUPTI's host API, which needs a chip name but
// no GPU: the names chosen for the H100 (GH100) exist and make a config.
#include <gtest/gtest.h>

#ifdef FUSELAB_HAVE_CUPTI
#include "profiling/capture/CuptiCounterMetrics.h"
#endif

namespace fuselab {
namespace {

#ifdef FUSELAB_HAVE_CUPTI

TEST(CuptiCounterMetrics, Gh100HasDramBytesAndTensorActivity) {
  std::string why;
  const auto m = cupti::chooseCounterMetrics("GH100", {}, &why);
  ASSERT_TRUE(m) << why;
  EXPECT_EQ(m->dram_read, "dram__bytes_read.sum");
  EXPECT_EQ(m->dram_write, "dram__bytes_write.sum");
  EXPECT_EQ(m->tensor_active, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active");
  EXPECT_EQ(m->names().size(), 3u);
  const std::vector<uint8_t> config = cupti::counterConfigImage("GH100", {}, m->names(), &why);
  EXPECT_FALSE(config.empty()) << why;
}

TEST(CuptiCounterMetrics, EveryFallbackIsAValidGh100NameOrSaysWhichIsNot) {
  for (const auto* list : {&cupti::dramReadCandidates(), &cupti::dramWriteCandidates(), &cupti::tensorActiveCandidates()})
    for (const std::string& name : *list) {
      std::string why;
      EXPECT_FALSE(cupti::counterConfigImage("GH100", {}, {name}, &why).empty()) << name << ": " << why;
    }
}

TEST(CuptiCounterMetrics, UnknownChipAndMetricAreRefusedWithWords) {
  std::string why;
  EXPECT_FALSE(cupti::chooseCounterMetrics("NOT_A_CHIP", {}, &why));
  EXPECT_NE(why.find("NOT_A_CHIP"), std::string::npos) << why;
  why.clear();
  EXPECT_TRUE(cupti::counterConfigImage("GH100", {}, {"no_such__metric.sum"}, &why).empty());
  EXPECT_NE(why.find("cuptiProfilerHostConfigAddMetrics"), std::string::npos) << why;
}

#else

TEST(CuptiCounterMetrics, NeedsCupti) { GTEST_SKIP() << "built without CUPTI: no counter metrics to check"; }

#endif

}  // namespace
}  // namespace fuselab
