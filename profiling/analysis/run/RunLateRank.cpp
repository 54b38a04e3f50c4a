#include "profiling/analysis/run/RunLateRank.h"

#include <algorithm>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/trace/DurationText.h"

namespace fuselab {

namespace {

// CPU events that are the rank's own work, not the collective being issued
// nor the step annotation around everything.
bool isCpuWork(const Trace& trace, const Track& t, uint32_t i) {
  const Category c = t.category[i];
  if (c != Category::CpuOp && c != Category::UserAnnotation) return false;
  const std::string_view name = trace.strings.get(t.name_id[i]);
  return !profilerStepIndex(name) && name != "record_param_comms" && !name.starts_with("nccl:") &&
         !name.starts_with("c10d::") && !isCpuCollectiveName(name);
}

ArrivalCause causeOf(const Trace& trace, ArrivalCauseKind kind, EventRef e, int64_t until) {
  const Track& t = trace.tracks[e.track];
  ArrivalCause cause;
  cause.kind = kind;
  cause.event = e;
  cause.name = std::string(trace.name(e));
  cause.dur_ns = t.dur_ns[e.index];
  cause.idle_ns = std::max<int64_t>(0, until - t.end_ns(e.index));
  return cause;
}

}  // namespace

std::string_view arrivalCauseName(ArrivalCauseKind k) {
  switch (k) {
    case ArrivalCauseKind::Kernel: return "kernel";
    case ArrivalCauseKind::CpuOp: return "cpu_op";
    case ArrivalCauseKind::Idle: return "idle";
    case ArrivalCauseKind::Unknown: return "unknown";
  }
  return "unknown";
}

std::string describeArrivalCause(const ArrivalCause& c) {
  switch (c.kind) {
    case ArrivalCauseKind::Kernel:
      return "GPU busy with " + c.name.substr(0, 60) + " (" + formatDuration(c.dur_ns) + ")";
    case ArrivalCauseKind::CpuOp: return "CPU op " + c.name.substr(0, 60) + " (" + formatDuration(c.dur_ns) + ")";
    case ArrivalCauseKind::Idle: return "idle " + formatDuration(c.idle_ns) + " after " + c.name.substr(0, 60);
    case ArrivalCauseKind::Unknown: return "nothing captured before it";
  }
  return {};
}

ArrivalCauses::ArrivalCauses(const Trace& trace) : trace_(trace) {
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (t.kind == TrackKind::Cpu && isCpuWork(trace, t, i)) cpu_by_end_.push_back({t.end_ns(i), EventRef{ti, i}});
      if (t.kind == TrackKind::Gpu && isGpuWork(t.category[i]) &&
          !isCollectiveKernelName(trace.strings.get(t.name_id[i])))
        gpu_by_end_[t.device].push_back({t.end_ns(i), EventRef{ti, i}});
    }
  }
  auto byEnd = [](const auto& a, const auto& b) { return a.first < b.first; };
  std::sort(cpu_by_end_.begin(), cpu_by_end_.end(), byEnd);
  for (auto& [device, list] : gpu_by_end_) std::sort(list.begin(), list.end(), byEnd);
}

ArrivalCause ArrivalCauses::lastBefore(const ByEnd& list, int64_t t, ArrivalCauseKind kind) const {
  auto it = std::upper_bound(list.begin(), list.end(), t,
                             [](int64_t value, const auto& entry) { return value < entry.first; });
  if (it == list.begin()) return {};
  return causeOf(trace_, kind, std::prev(it)->second, t);
}

ArrivalCause ArrivalCauses::before(const CollectiveEvent& c) const {
  if (c.on_gpu) {
    auto device = gpu_by_end_.find(trace_.tracks[c.event.track].device);
    if (device != gpu_by_end_.end()) {
      ArrivalCause gpu = lastBefore(device->second, c.start_ns, ArrivalCauseKind::Kernel);
      if (gpu.event && gpu.idle_ns < gpu.dur_ns) return gpu;
    }
  }
  int64_t issued = c.start_ns;
  if (c.launch) issued = trace_.tracks[c.launch->track].start_ns[c.launch->index];
  ArrivalCause cpu = lastBefore(cpu_by_end_, issued, ArrivalCauseKind::CpuOp);
  if (cpu.event && cpu.idle_ns > cpu.dur_ns) cpu.kind = ArrivalCauseKind::Idle;
  return cpu;
}

}  // namespace fuselab
