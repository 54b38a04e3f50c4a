// What Fit all shows (FitExtent.h): the recorded events, without a GPU op
// launched before recording began that would stretch it back.
#include "ui/layout/FitExtent.h"

#include <gtest/gtest.h>

#include "tests/support/SyntheticTrace.h"

namespace fuselab::ui {
namespace {

TEST(FitExtent, LeavesOutAKernelLaunchedBeforeRecording) {
  // The NCCL kernel (no launch call) runs from 0 to 500 us; what was
  // recorded spans 450 us (the step) to 520 us (the last kernel's end).
  Trace trace = test::SyntheticTrace()
                    .gpu("ncclDevKernel_AllReduce", 0, 500'000, 40, 20)
                    .step(1, 450'000, 60'000)
                    .launched("gemm", 455'000, 5'000, 510'000, 10'000, 1)
                    .build();
  const TraceExtents x = traceExtents(trace, PreRecordingOps(trace));
  EXPECT_EQ(x.fit.begin_ns, 450'000);
  EXPECT_EQ(x.fit.end_ns, 520'000);
  EXPECT_EQ(x.whole.begin_ns, 0);
  EXPECT_EQ(x.whole.end_ns, 520'000);
}

TEST(FitExtent, AKernelThatOutlastsTheRecordingDoesNotStretchItEither) {
  Trace trace = test::SyntheticTrace()
                    .gpu("ncclDevKernel_AllReduce", 0, 900'000, 40, 20)
                    .step(1, 450'000, 60'000)
                    .launched("gemm", 455'000, 5'000, 470'000, 10'000, 1)
                    .build();
  const TraceExtents x = traceExtents(trace, PreRecordingOps(trace));
  EXPECT_EQ(x.fit.begin_ns, 450'000);
  EXPECT_EQ(x.fit.end_ns, 510'000);
  EXPECT_EQ(x.whole.end_ns, 900'000);
}

TEST(FitExtent, IsTheWholeTraceWithoutSuchOps) {
  Trace trace = test::SyntheticTrace()
                    .gpu("ncclDevKernel_AllReduce", 0, 500'000, -1, 20)  // no correlation: nothing says when
                    .step(1, 450'000, 60'000)
                    .build();
  const TraceExtents x = traceExtents(trace, PreRecordingOps(trace));
  EXPECT_EQ(x.whole.begin_ns, trace.beginNs());
  EXPECT_EQ(x.whole.end_ns, trace.endNs());
  EXPECT_EQ(x.fit.begin_ns, 0);
  EXPECT_EQ(x.fit.end_ns, 510'000);
}

TEST(FitExtent, EmptyTrace) {
  Trace trace;
  trace.finalize();
  const TraceExtents x = traceExtents(trace, PreRecordingOps(trace));
  EXPECT_EQ(x.fit.begin_ns, 0);
  EXPECT_EQ(x.fit.end_ns, 0);
  EXPECT_EQ(x.whole.end_ns, 0);
}

}  // namespace
}  // namespace fuselab::ui
