// The window's compare panel with repeated runs per side: the runs besides
// the shown one count as samples, and replacing a side drops its repeats.
#include <gtest/gtest.h>

#include <memory>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "tests/support/TestPaths.h"
#include "ui/panels/ComparePanel.h"

namespace fuselab {
namespace {

TEST(ComparePanelRepeats, RepeatedRunsAreSamplesOfTheirSide) {
  auto mlp = std::make_shared<const Trace>(importChromeTrace(test::fixture("mlp_eager.json.gz")));
  auto linear = std::make_shared<const Trace>(importChromeTrace(test::fixture("linear_eager.json.gz")));
  auto mlp_a = std::make_shared<const TraceAnalysis>(analyzeTrace(*mlp));
  auto linear_a = std::make_shared<const TraceAnalysis>(analyzeTrace(*linear));
  ui::ComparePanel panel;
  panel.setA(mlp, mlp_a, "mlp");
  panel.setB(linear, linear_a, "linear");
  ASSERT_NE(panel.comparison(), nullptr);
  EXPECT_EQ(panel.comparison()->a_samples, 3u);
  panel.addRepeatA(mlp, mlp_a);
  panel.addRepeatB(linear, linear_a);
  panel.addRepeatB(linear, linear_a);
  EXPECT_EQ(panel.runsA(), 2u);
  EXPECT_EQ(panel.runsB(), 3u);
  EXPECT_EQ(panel.comparison()->a_traces, 2u);
  EXPECT_EQ(panel.comparison()->a_samples, 6u);
  EXPECT_EQ(panel.comparison()->b_samples, 9u);
  panel.setB(linear, linear_a, "linear again");
  EXPECT_EQ(panel.runsB(), 1u);
  EXPECT_EQ(panel.comparison()->b_samples, 3u);
}

}  // namespace
}  // namespace fuselab
