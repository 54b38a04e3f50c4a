// Counters of the counter pass onto the last recorded step's kernels: by
// launch order, names checked, nothing written on a mismatch.
#include "profiling/capture/KernelCounterMatch.h"

#include <gtest/gtest.h>

#include "tests/support/SyntheticTrace.h"

namespace fuselab {
namespace {

const std::string kGemm = "nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_TNT";
const std::string kGelu =
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
    "at::native::GeluType)::{lambda()#1}::operator()() const, at::detail::Array<char*, 2> >(int, char*)";

// Two steps of gemm then gelu; in step 1 the gelu's launch comes first in
// time on the GPU but second by correlation (launch order wins).
Trace twoSteps() {
  test::SyntheticTrace s;
  s.step(0, 0, 100'000).launched(kGemm, 1'000, 1'000, 5'000, 10'000, 1).launched(kGelu, 3'000, 1'000, 16'000, 1'000, 2);
  s.step(1, 100'000, 100'000);
  s.launch(3, 101'000, 1'000).gpu(kGemm, 120'000, 10'000, 3, 8);
  s.launch(4, 103'000, 1'000).gpu(kGelu, 110'000, 1'000, 4, 7);
  return s.build();
}

KernelCounterReading reading(const std::string& name, double bytes, double pct) {
  KernelCounterReading r;
  r.name = name;
  r.counters.dram_bytes = bytes;
  r.counters.tensor_active_pct = pct;
  return r;
}

TEST(KernelCounterMatch, LastStepKernelsInLaunchOrder) {
  const Trace trace = twoSteps();
  const std::vector<EventRef> k = lastStepKernels(trace);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(trace.name(k[0]), kGemm);
  EXPECT_EQ(trace.tracks[k[0].track].start_ns[k[0].index], 120'000);
  EXPECT_EQ(trace.name(k[1]), kGelu);
  EXPECT_TRUE(lastStepKernels(Trace{}).empty());
}

TEST(KernelCounterMatch, AttachesToTheLastStepOnly) {
  Trace trace = twoSteps();
  std::string why;
  ASSERT_TRUE(attachKernelCounters(trace, {reading(kGemm, 6.7e7, 55), reading("vectorized_elementwise_kernel", 2e7, 0)},
                                   &why))
      << why;
  const std::vector<EventRef> last = lastStepKernels(trace);
  EXPECT_EQ(measuredCountersOf(trace, last[0]).dram_bytes, 6.7e7);
  EXPECT_EQ(measuredCountersOf(trace, last[0]).tensor_active_pct, 55.0);
  EXPECT_EQ(measuredCountersOf(trace, last[1]).tensor_active_pct, 0.0);
  int measured = 0;
  for (uint32_t t = 0; t < trace.tracks.size(); ++t)
    for (uint32_t i = 0; i < trace.tracks[t].size(); ++i) measured += !measuredCountersOf(trace, {t, i}).empty();
  EXPECT_EQ(measured, 2);  // step 0's kernels untouched
}

TEST(KernelCounterMatch, CountMismatchWritesNothingAndSaysSo) {
  Trace trace = twoSteps();
  std::string why;
  EXPECT_FALSE(attachKernelCounters(trace, {reading(kGemm, 1, 1)}, &why));
  EXPECT_EQ(why, "the counter pass ran 1 kernels, the last recorded step 2");
  for (EventRef k : lastStepKernels(trace)) EXPECT_TRUE(measuredCountersOf(trace, k).empty());
}

TEST(KernelCounterMatch, NameMismatchWritesNothingAndSaysWhere) {
  Trace trace = twoSteps();
  std::string why;
  EXPECT_FALSE(attachKernelCounters(trace, {reading(kGemm, 1, 1), reading("splitKreduce_kernel", 1, 1)}, &why));
  EXPECT_NE(why.find("kernel 2 of the counter pass is splitKreduce_kernel"), std::string::npos) << why;
  for (EventRef k : lastStepKernels(trace)) EXPECT_TRUE(measuredCountersOf(trace, k).empty());
}

TEST(KernelCounterMatch, NamesAgree) {
  EXPECT_TRUE(kernelNamesAgree(kGemm, kGemm));
  EXPECT_TRUE(kernelNamesAgree("", kGemm));    // no name from the profiler
  EXPECT_TRUE(kernelNamesAgree("12", kGemm));  // a range index, not a name
  EXPECT_TRUE(kernelNamesAgree("vectorized_elementwise_kernel", kGelu));
  EXPECT_TRUE(kernelNamesAgree("void at::native::vectorized_elementwise_kernel<4>(int)", kGelu));
  EXPECT_FALSE(kernelNamesAgree("elementwise_kernel", kGelu));
  EXPECT_FALSE(kernelNamesAgree(kGemm, kGelu));
  EXPECT_FALSE(kernelNamesAgree("nvjet_sm90_other", kGemm));
}

}  // namespace
}  // namespace fuselab
