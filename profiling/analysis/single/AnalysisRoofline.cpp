// addRoofline (Analysis.h): work and speed of light of every in-scope GPU op,
// summed per kernel name, per step and over the trace.
#include <algorithm>
#include <map>
#include <unordered_map>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/common/StepIntervals.h"
#include "profiling/analysis/common/StreamTime.h"

namespace fuselab {

namespace {

// Memcpy that is not device-to-device: limited by the host link, not the roofline.
bool isHostTransfer(const Trace& trace, EventRef op) {
  return trace.tracks[op.track].category[op.index] == Category::Memcpy &&
         trace.name(op).find("DtoD") == std::string_view::npos;
}

}  // namespace

void addRoofline(const Trace& trace, TraceAnalysis& a, std::vector<GpuOpWork> work) {
  RooflineAnalysis& r = a.roofline;
  r.ceilings = ceilingsForTrace(trace, a.options.measured_ceilings);
  const auto& ops = a.scope.gpu_ops;
  r.work = std::move(work);
  const std::vector<int64_t> stream_ns = streamTimes(trace, ops);
  r.ops.clear();
  r.ops.reserve(ops.size());
  r.total = {};

  std::map<std::pair<std::string_view, Category>, KernelRow*> rows;
  for (KernelRow& row : a.kernels) {
    row.roofline = {};
    rows[{row.name, row.category}] = &row;
  }
  // The row of each (name id, category) met, so that a GPU op's lookup
  // compares no kernel names (long ones: a tenth of addRoofline at 10M events).
  std::unordered_map<uint64_t, KernelRow*> row_of;
  auto rowOf = [&](EventRef op) {
    const Track& t = trace.tracks[op.track];
    const uint64_t key = (uint64_t(t.name_id[op.index]) << 8) | uint64_t(t.category[op.index]);
    auto [it, added] = row_of.try_emplace(key, nullptr);
    if (added)
      if (auto row = rows.find({trace.name(op), t.category[op.index]}); row != rows.end()) it->second = row->second;
    return it->second;
  };
  // a.steps comes from computeSteps: sorted by start.
  std::vector<std::pair<int64_t, int64_t>> step_spans;
  for (StepStats& s : a.steps) {
    s.roofline = {};
    step_spans.emplace_back(s.start_ns, s.end_ns);
  }
  const StepIntervals step_index(std::move(step_spans));

  for (size_t i = 0; i < ops.size(); ++i) {
    const EventRef op = ops[i];
    const bool host = isHostTransfer(trace, op);
    r.ops.push_back(rooflineOf(r.work[i], stream_ns[i], trace.name(op), host, r.ceilings, a.options.roofline_rules));
    const RooflineFigures& f = r.ops.back();
    if (KernelRow* row = rowOf(op)) {
      accumulate(row->roofline, f);
      if (host) row->roofline.bound = Bound::HostTransfer;
    }
    if (host) continue;
    accumulate(r.total, f);
    const int64_t when = attributionTimeNs(trace, op);
    if (auto step = step_index.firstContaining(when)) accumulate(a.steps[*step].roofline, f);
  }
  const RooflineRules& rules = a.options.roofline_rules;
  for (KernelRow& row : a.kernels) finish(row.roofline, r.ceilings, rules);
  for (StepStats& s : a.steps) finish(s.roofline, r.ceilings, rules);
  finish(r.total, r.ceilings, rules);
}

}  // namespace fuselab
