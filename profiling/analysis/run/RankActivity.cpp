#include "profiling/analysis/run/RankActivity.h"

#include <algorithm>

#include "profiling/analysis/single/AnalysisSteps.h"
#include "profiling/analysis/collectives/CollectiveKind.h"

namespace fuselab {

namespace {

// Covered time of `intervals` (any order, may overlap) per bin.
std::vector<int64_t> coveragePerBin(Intervals intervals, int64_t begin_ns, int64_t bin_ns, size_t bins) {
  std::vector<int64_t> out(bins, 0);
  std::sort(intervals.begin(), intervals.end());
  const int64_t end_ns = begin_ns + bin_ns * static_cast<int64_t>(bins);
  int64_t covered_to = begin_ns;  // merged so far
  for (auto [s, e] : intervals) {
    s = std::max(s, covered_to);
    e = std::min(e, end_ns);
    if (e <= s) continue;
    covered_to = e;
    for (int64_t t = s; t < e;) {
      const size_t b = static_cast<size_t>((t - begin_ns) / bin_ns);
      const int64_t bin_end = begin_ns + bin_ns * static_cast<int64_t>(b + 1);
      const int64_t upto = std::min(e, bin_end);
      out[b] += upto - t;
      t = upto;
    }
  }
  return out;
}

}  // namespace

RankActivityIntervals rankActivityIntervals(const Trace& trace, int rank) {
  RankActivityIntervals out;
  Intervals gpu, cpu;
  for (const Track& t : trace.tracks) {
    if (rank >= 0 && t.rank != rank) continue;
    for (size_t i = 0; i < t.size(); ++i) {
      const std::string_view name = trace.strings.get(t.name_id[i]);
      const std::pair<int64_t, int64_t> span{t.start_ns[i], t.end_ns(i)};
      if (t.kind == TrackKind::Gpu && isGpuWork(t.category[i]))
        (t.category[i] == Category::Kernel && isCollectiveKernelName(name) ? out.comm : gpu).push_back(span);
      else if (t.kind == TrackKind::Cpu && isCpuCollectiveName(name))
        out.comm.push_back(span);
      else if (t.kind == TrackKind::Cpu && t.category[i] == Category::CpuOp && !profilerStepIndex(name))
        cpu.push_back(span);
    }
  }
  out.busy = gpu.empty() ? std::move(cpu) : std::move(gpu);
  return out;
}

RankActivityBins binActivity(const RankActivityIntervals& activity, int64_t begin_ns, int64_t end_ns, size_t bins) {
  RankActivityBins out;
  bins = std::max<size_t>(bins, 1);
  out.begin_ns = begin_ns;
  out.bin_ns = std::max<int64_t>(1, (std::max(end_ns, begin_ns) - begin_ns + int64_t(bins) - 1) / int64_t(bins));
  out.comm_ns = coveragePerBin(activity.comm, begin_ns, out.bin_ns, bins);
  out.busy_ns = coveragePerBin(activity.busy, begin_ns, out.bin_ns, bins);
  return out;
}

}  // namespace fuselab
