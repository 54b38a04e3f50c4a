// Two analyses of one run that should agree (another path to the same
// figures: summaries streamed rank by rank, a realignment): alignment,
// collectives, per-rank figures, stragglers and verdict.
#pragma once

#include <gtest/gtest.h>

#include "profiling/analysis/run/RunAnalysis.h"

namespace fuselab::test {

inline void expectSameRunAnalysis(const RunAnalysis& got, const RunAnalysis& want) {
  EXPECT_EQ(got.alignment.method, want.alignment.method);
  EXPECT_EQ(got.alignment.offsets_ns, want.alignment.offsets_ns);
  EXPECT_EQ(got.alignment.mismatched, want.alignment.mismatched);
  EXPECT_EQ(got.alignment.residual_skew_ns, want.alignment.residual_skew_ns);
  ASSERT_EQ(got.collectives.size(), want.collectives.size());
  for (size_t i = 0; i < got.collectives.size(); ++i) {
    const CollectiveStats& a = got.collectives[i];
    const CollectiveStats& b = want.collectives[i];
    EXPECT_EQ(a.name, b.name) << i;
    EXPECT_EQ(a.start_ns, b.start_ns) << i;
    EXPECT_EQ(a.wait_ns, b.wait_ns) << i;
    EXPECT_EQ(a.late_pos, b.late_pos) << i;
    EXPECT_EQ(describeArrivalCause(a.late_rank_before), describeArrivalCause(b.late_rank_before)) << i;
  }
  ASSERT_EQ(got.ranks.size(), want.ranks.size());
  for (size_t i = 0; i < got.ranks.size(); ++i) {
    EXPECT_EQ(got.ranks[i].kernels, want.ranks[i].kernels) << i;
    EXPECT_EQ(got.ranks[i].gpu_ops, want.ranks[i].gpu_ops) << i;
    EXPECT_EQ(got.ranks[i].comm_ns, want.ranks[i].comm_ns) << i;
    EXPECT_EQ(got.ranks[i].time.idle_ns, want.ranks[i].time.idle_ns) << i;
    EXPECT_EQ(got.ranks[i].wait_ns, want.ranks[i].wait_ns) << i;
    EXPECT_EQ(got.ranks[i].late_count, want.ranks[i].late_count) << i;
    EXPECT_EQ(got.ranks[i].wait_caused_ns, want.ranks[i].wait_caused_ns) << i;
  }
  ASSERT_EQ(got.activity.size(), want.activity.size());
  for (size_t i = 0; i < got.activity.size(); ++i) EXPECT_EQ(got.activity[i].busy_ns, want.activity[i].busy_ns) << i;
  EXPECT_EQ(got.stragglers.size(), want.stragglers.size());
  EXPECT_EQ(got.verdict.kind, want.verdict.kind);
  EXPECT_EQ(got.verdict.title, want.verdict.title);
  EXPECT_EQ(got.verdict.explanation, want.verdict.explanation);
}

}  // namespace fuselab::test
