// GPU idle gaps per stream and their causes, as HTA's idle time breakdown
// (hta/analyzers/breakdown_analysis.py, _analyze_idle_time_for_stream):
// host wait when the next op's launch call started after the previous op
// ended; otherwise kernel wait below the threshold; otherwise other.
#include <algorithm>
#include <map>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/common/NameFlags.h"

namespace fuselab {

std::string_view gapCauseName(GapCause c) {
  switch (c) {
    case GapCause::HostWait: return "host_wait";
    case GapCause::KernelWait: return "kernel_wait";
    case GapCause::Other: return "other";
  }
  return "other";
}

bool isSynchronizeCall(std::string_view name) {
  return name == "cudaDeviceSynchronize" || name == "cudaStreamSynchronize" || name == "cudaEventSynchronize" ||
         name == "cuCtxSynchronize" || name == "cuStreamSynchronize" || name == "cuEventSynchronize";
}

double IdleBreakdown::hostWaitShare() const {
  int64_t total = totalNs();
  return total > 0 ? double(host_wait_ns) / double(total) : 0.0;
}

namespace {

// Synchronize calls on CPU tracks merged into disjoint intervals, each
// remembering the first call it came from.
struct SyncSpan {
  int64_t start, end;
  EventRef call;
};

std::vector<SyncSpan> synchronizeSpans(const Trace& trace) {
  const std::vector<uint8_t> is_sync = nameFlags(trace.strings, isSynchronizeCall);
  std::vector<SyncSpan> calls;
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.kind == TrackKind::Gpu) continue;
    for (uint32_t i = 0; i < t.size(); ++i)
      if (isLaunchCall(t.category[i]) && is_sync[t.name_id[i]])
        calls.push_back({t.start_ns[i], t.end_ns(i), EventRef{ti, i}});
  }
  std::sort(calls.begin(), calls.end(), [](const SyncSpan& a, const SyncSpan& b) { return a.start < b.start; });
  std::vector<SyncSpan> merged;
  for (const SyncSpan& c : calls) {
    if (!merged.empty() && c.start <= merged.back().end)
      merged.back().end = std::max(merged.back().end, c.end);
    else
      merged.push_back(c);
  }
  return merged;
}

void markSyncOverlap(GpuGap& gap, const std::vector<SyncSpan>& spans) {
  // First span that ends after the gap starts.
  auto it = std::upper_bound(spans.begin(), spans.end(), gap.start_ns,
                             [](int64_t v, const SyncSpan& s) { return v < s.end; });
  for (; it != spans.end() && it->start < gap.end_ns; ++it) {
    int64_t overlap = std::min(it->end, gap.end_ns) - std::max(it->start, gap.start_ns);
    if (overlap <= 0) continue;
    if (!gap.sync_call) gap.sync_call = it->call;
    gap.sync_overlap_ns += overlap;
    gap.covered_by_sync = true;
  }
}

}  // namespace

std::vector<GpuGap> findGpuGaps(const Trace& trace, const AnalysisScope& scope, const AnalysisOptions& options) {
  const std::vector<SyncSpan> sync_spans = synchronizeSpans(trace);
  const auto& ops = scope.gpu_ops;  // sorted by (track, start)
  std::vector<GpuGap> gaps;
  gaps.reserve(ops.size());  // address space only; growing would copy and touch twice the pages
  for (size_t first = 0; first < ops.size();) {
    size_t last = first;
    while (last < ops.size() && ops[last].track == ops[first].track) ++last;
    const Track& t = trace.tracks[ops[first].track];

    EventRef prev = ops[first];
    int64_t prev_end = t.end_ns(prev.index);
    for (size_t k = first + 1; k < last; ++k) {
      EventRef next = ops[k];
      int64_t next_start = t.start_ns[next.index];
      if (next_start > prev_end) {
        GpuGap gap;
        gap.device = t.device;
        gap.stream = t.stream;
        gap.track = next.track;
        gap.start_ns = prev_end;
        gap.end_ns = next_start;
        gap.prev_op = prev;
        gap.next_op = next;
        std::optional<int64_t> launch_start;
        if (int64_t corr = t.correlation[next.index]; corr >= 0)
          if (const LaunchLink* link = trace.launchFor(corr); link && link->launch)
            launch_start = trace.tracks[link->launch->track].start_ns[link->launch->index];
        if (launch_start && *launch_start > prev_end)
          gap.cause = GapCause::HostWait;
        else if (gap.durationNs() < options.gap_threshold_ns)
          gap.cause = GapCause::KernelWait;
        else
          gap.cause = GapCause::Other;
        markSyncOverlap(gap, sync_spans);
        gaps.push_back(gap);
      }
      // Ops overlapping on one stream (possible with CUDA graphs) leave no gap:
      // the stream stays busy until the latest end seen so far.
      if (t.end_ns(next.index) >= prev_end) {
        prev_end = t.end_ns(next.index);
        prev = next;
      }
    }
    first = last;
  }
  return gaps;
}

namespace {
void addGap(IdleBreakdown& idle, const GpuGap& g) {
  switch (g.cause) {
    case GapCause::HostWait: idle.host_wait_ns += g.durationNs(); break;
    case GapCause::KernelWait: idle.kernel_wait_ns += g.durationNs(); break;
    case GapCause::Other: idle.other_ns += g.durationNs(); break;
  }
  idle.sync_covered_ns += g.sync_overlap_ns;
  ++idle.gap_count;
}
}  // namespace

IdleBreakdown summarizeIdle(const std::vector<GpuGap>& gaps) {
  IdleBreakdown idle;
  for (const GpuGap& g : gaps) addGap(idle, g);
  return idle;
}

std::vector<StreamIdle> summarizeIdlePerStream(const Trace& trace, const std::vector<GpuGap>& gaps) {
  std::map<uint32_t, StreamIdle> by_track;
  for (const GpuGap& g : gaps) {
    auto [it, inserted] = by_track.try_emplace(g.track);
    if (inserted) {
      it->second.track = g.track;
      it->second.device = trace.tracks[g.track].device;
      it->second.stream = trace.tracks[g.track].stream;
    }
    addGap(it->second.idle, g);
  }
  std::vector<StreamIdle> out;
  for (auto& [track, s] : by_track) out.push_back(s);
  std::sort(out.begin(), out.end(), [](const StreamIdle& a, const StreamIdle& b) {
    return a.device != b.device ? a.device < b.device : a.stream < b.stream;
  });
  return out;
}

}  // namespace fuselab
