// addMeasuredFigures (Analysis.h): hardware counters a capture measured per
// kernel, averaged per kernel name beside the model's figures.
#include <map>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/trace/MeasuredCounters.h"

namespace fuselab {

namespace {

struct Sums {
  uint64_t calls = 0;
  uint64_t byte_calls = 0;
  uint64_t tensor_calls = 0;
  double bytes = 0;
  double tensor_pct = 0;
};

}  // namespace

std::optional<double> KernelRow::modelBytesPerCall() const {
  if (roofline.known == 0) return std::nullopt;
  return roofline.bytes / double(roofline.known);
}

void addMeasuredFigures(const Trace& trace, TraceAnalysis& a) {
  std::map<std::string_view, Sums> sums;
  for (EventRef op : a.scope.gpu_ops) {
    const Track& t = trace.tracks[op.track];
    if (t.category[op.index] != Category::Kernel) continue;
    const MeasuredCounters c = measuredCountersOf(trace, op);
    if (c.empty()) continue;
    Sums& s = sums[trace.name(op)];
    ++s.calls;
    if (c.dram_bytes) s.bytes += *c.dram_bytes, ++s.byte_calls;
    if (c.tensor_active_pct) s.tensor_pct += *c.tensor_active_pct, ++s.tensor_calls;
  }
  for (KernelRow& row : a.kernels) {
    row.measured = {};
    if (row.category != Category::Kernel) continue;
    const auto it = sums.find(row.name);
    if (it == sums.end()) continue;
    const Sums& s = it->second;
    row.measured.calls = s.calls;
    if (s.byte_calls > 0) row.measured.bytes_per_call = s.bytes / double(s.byte_calls);
    if (s.tensor_calls > 0) row.measured.tensor_active_pct = s.tensor_pct / double(s.tensor_calls);
  }
}

bool anyMeasuredFigures(const std::vector<KernelRow>& rows) {
  for (const KernelRow& r : rows)
    if (r.measured.calls > 0) return true;
  return false;
}

}  // namespace fuselab
