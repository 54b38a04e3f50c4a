// GPU idle gaps and their causes, as HTA's idle_time_breakdown
// (AnalysisGaps.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "profiling/analysis/single/AnalysisOptions.h"
#include "profiling/analysis/single/AnalysisScope.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

enum class GapCause : uint8_t {
  HostWait,    // the next op's launch call started after the previous op ended
  KernelWait,  // not host wait, and shorter than the threshold
  Other,
};
std::string_view gapCauseName(GapCause c);  // "host_wait", "kernel_wait", "other"

struct GpuGap {
  int device = -1;
  int64_t stream = -1;
  uint32_t track = 0;
  int64_t start_ns = 0;  // end of prev_op
  int64_t end_ns = 0;    // start of next_op
  GapCause cause = GapCause::Other;
  // A CPU synchronize call (isSynchronizeCall) overlaps the gap: the host was
  // blocked waiting for the GPU while the GPU went idle.
  bool covered_by_sync = false;
  int64_t sync_overlap_ns = 0;        // how much of the gap synchronize calls overlap
  std::optional<EventRef> sync_call;  // the (first) overlapping call
  EventRef prev_op;
  EventRef next_op;

  int64_t durationNs() const { return end_ns - start_ns; }
};

// Gaps between consecutive in-scope GPU ops on each stream, in (track, time)
// order. Ops that overlap on one stream leave no gap.
std::vector<GpuGap> findGpuGaps(const Trace& trace, const AnalysisScope& scope, const AnalysisOptions& options);

// CPU calls that block the host until the GPU catches up.
bool isSynchronizeCall(std::string_view name);  // cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize

struct IdleBreakdown {
  int64_t host_wait_ns = 0;
  int64_t kernel_wait_ns = 0;
  int64_t other_ns = 0;
  int64_t sync_covered_ns = 0;  // part of the above overlapped by synchronize calls
  uint64_t gap_count = 0;

  int64_t totalNs() const { return host_wait_ns + kernel_wait_ns + other_ns; }
  double hostWaitShare() const;  // host_wait / total, 0 when no idle time
};

struct StreamIdle {
  int device = -1;
  int64_t stream = -1;
  uint32_t track = 0;
  IdleBreakdown idle;
};

// Totals are summed over streams (they can exceed the span with several streams).
IdleBreakdown summarizeIdle(const std::vector<GpuGap>& gaps);
// Sorted by (device, stream).
std::vector<StreamIdle> summarizeIdlePerStream(const Trace& trace, const std::vector<GpuGap>& gaps);

}  // namespace fuselab
