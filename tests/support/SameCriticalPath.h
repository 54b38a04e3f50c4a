// Two critical paths of one trace or run that should agree (another way to
// the same graph: a run's graph joined from its ranks' parts): every step's
// segments and totals, and every what-if.
#pragma once

#include <gtest/gtest.h>

#include "profiling/analysis/critical_path/CriticalPath.h"

namespace fuselab::test {

inline void expectSameCriticalPath(const CriticalPathAnalysis& got, const CriticalPathAnalysis& want) {
  ASSERT_EQ(got.steps.size(), want.steps.size());
  for (size_t i = 0; i < got.steps.size(); ++i) {
    const StepPath& a = got.steps[i];
    const StepPath& b = want.steps[i];
    EXPECT_EQ(a.name, b.name) << i;
    EXPECT_EQ(a.start_ns, b.start_ns) << i;
    EXPECT_EQ(a.wall_ns, b.wall_ns) << i;
    EXPECT_EQ(a.by_kind, b.by_kind) << i;
    EXPECT_EQ(a.by_rank, b.by_rank) << i;
    ASSERT_EQ(a.segments.size(), b.segments.size()) << i;
    for (size_t k = 0; k < a.segments.size(); ++k) {
      const PathSegment& s = a.segments[k];
      const PathSegment& t = b.segments[k];
      EXPECT_EQ(s.kind, t.kind) << i << "/" << k;
      EXPECT_EQ(s.rank, t.rank) << i << "/" << k;
      EXPECT_EQ(s.track, t.track) << i << "/" << k;
      EXPECT_EQ(s.event.has_value(), t.event.has_value()) << i << "/" << k;
      if (s.event && t.event) EXPECT_EQ(s.event->index, t.event->index) << i << "/" << k;
      EXPECT_EQ(s.start_ns, t.start_ns) << i << "/" << k;
      EXPECT_EQ(s.dur_ns, t.dur_ns) << i << "/" << k;
    }
  }
  ASSERT_EQ(got.what_if.size(), want.what_if.size());
  for (size_t i = 0; i < got.what_if.size(); ++i) {
    const WhatIf& a = got.what_if[i];
    const WhatIf& b = want.what_if[i];
    EXPECT_EQ(a.name, b.name) << i;
    EXPECT_EQ(a.kind, b.kind) << i;
    EXPECT_EQ(a.rank, b.rank) << i;
    EXPECT_EQ(a.on_path_ns, b.on_path_ns) << i;
    EXPECT_EQ(a.steps_ns_before, b.steps_ns_before) << i;
    EXPECT_EQ(a.steps_ns_after, b.steps_ns_after) << i;
  }
}

}  // namespace fuselab::test
