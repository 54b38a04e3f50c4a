// The first recorded step on the CPU costs what the others do. Timing, so a
// statistical check: bench/app_first_step.py runs several captures, each its
// own process (one-time costs of a process are what made the first step
// slow), and the median of their first-step ratios must stay within 1.3x.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>

#include "app/capture/DistributedCapture.h"
#include "tests/support/RunPython.h"

namespace fuselab {
namespace {

TEST(FirstStep, OnTheCpuTheFirstRecordedStepIsLikeTheOthers) {
  const test::PythonResult r =
      test::runPython("bench/app_first_step.py", {fuselabExecutable().string(), "--device", "cpu", "--workloads",
                                                  "linear", "--warmups", "3", "--repeats", "9", "--json"},
                      true);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto doc = nlohmann::json::parse(r.output, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.output;
  const auto& result = doc["results"][0];
  std::ostringstream detail;
  for (const auto& c : result["captures"])
    detail << "first step " << c["first_ns"].get<double>() / 1e3 << " us, median of the others "
           << c["others_median_ns"].get<double>() / 1e3 << " us (" << c["ratio"].get<double>()
           << "x), slowest step " << c["slowest_step"] << "\n";
  EXPECT_LE(result["median_ratio"].get<double>(), doc["limit"].get<double>())
      << "linear on the cpu, --warmup 3, per capture:\n"
      << detail.str();
}

}  // namespace
}  // namespace fuselab
