#include "app/report/AnalysisReport.h"

#include <algorithm>
#include <sstream>

#include "app/report/EventJson.h"
#include "app/report/MeasuredReport.h"
#include "app/report/MemoryReport.h"
#include "app/report/RooflineReport.h"
#include "profiling/trace/DurationText.h"
#include "profiling/trace/ObserverEffect.h"

namespace fuselab {

namespace {

constexpr int kJsonFormatVersion = 1;

std::string truncated(std::string_view s, size_t width) {
  if (s.size() <= width) return std::string(s);
  return std::string(s.substr(0, width - 3)) + "...";
}

std::string padded(const std::string& s, size_t width, bool right_align = true) {
  if (s.size() >= width) return s;
  std::string pad(width - s.size(), ' ');
  return right_align ? pad + s : s + pad;
}

std::string streamLabel(int device, int64_t stream) {
  return "GPU " + std::to_string(device) + " stream " + std::to_string(stream);
}

void writeSteps(std::ostringstream& out, const TraceAnalysis& a) {
  if (a.steps.empty()) {
    out << "Steps: no ProfilerStep#k annotations; the whole trace is analysed.\n";
    return;
  }
  out << "Steps (" << a.steps.size() << "):\n";
  out << "  " << padded("step", 18, false) << padded("wall", 11) << padded("GPU busy", 11)
      << padded("CPU dispatch", 14) << padded("kernels", 9) << padded("GPU ops", 9) << padded("launches", 10)
      << padded("first GPU op", 14) << "\n";
  for (const StepStats& s : a.steps) {
    out << "  " << padded(s.name, 18, false) << padded(formatDuration(s.wall_ns), 11)
        << padded(formatDuration(s.gpu_busy_ns), 11) << padded(formatDuration(s.cpu_dispatch_ns), 14)
        << padded(std::to_string(s.kernels), 9) << padded(std::to_string(s.gpu_ops), 9)
        << padded(std::to_string(s.launches), 10)
        << padded(s.first_gpu_op_offset_ns >= 0 ? "+" + formatDuration(s.first_gpu_op_offset_ns) : "-", 14) << "\n";
  }
}

void writeIdle(std::ostringstream& out, const TraceAnalysis& a) {
  const IdleBreakdown& idle = a.idle;
  out << "Idle time between GPU ops: " << formatDuration(idle.totalNs()) << " in " << idle.gap_count << " gap(s)";
  if (a.idle_per_stream.size() > 1) out << ", summed over " << a.idle_per_stream.size() << " streams";
  out << " (kernel-wait threshold " << formatDuration(a.options.gap_threshold_ns) << ")\n";
  auto line = [&](const char* label, int64_t ns) {
    double share = idle.totalNs() > 0 ? double(ns) / double(idle.totalNs()) : 0.0;
    out << "  " << padded(label, 13, false) << padded(formatDuration(ns), 11) << padded(formatPercent(share), 8)
        << "\n";
  };
  line("host wait", idle.host_wait_ns);
  line("kernel wait", idle.kernel_wait_ns);
  line("other", idle.other_ns);
  out << "  overlapped by synchronize calls: " << formatDuration(idle.sync_covered_ns) << "\n";
  if (a.idle_per_stream.size() > 1)
    for (const StreamIdle& s : a.idle_per_stream)
      out << "  " << streamLabel(s.device, s.stream) << ": host wait " << formatDuration(s.idle.host_wait_ns)
          << ", kernel wait " << formatDuration(s.idle.kernel_wait_ns) << ", other "
          << formatDuration(s.idle.other_ns) << "\n";
}

void writeKernels(std::ostringstream& out, const TraceAnalysis& a, size_t top) {
  out << "Top GPU ops by total time (" << std::min(top, a.kernels.size()) << " of " << a.kernels.size() << "):\n";
  out << "  " << padded("count", 7) << padded("total", 11) << padded("mean", 11) << padded("min", 11)
      << padded("max", 11) << "  name\n";
  for (size_t i = 0; i < a.kernels.size() && i < top; ++i) {
    const KernelRow& k = a.kernels[i];
    out << "  " << padded(std::to_string(k.count), 7) << padded(formatDuration(k.total_ns), 11)
        << padded(formatDuration(int64_t(k.mean_ns + 0.5)), 11) << padded(formatDuration(k.min_ns), 11)
        << padded(formatDuration(k.max_ns), 11) << "  " << truncated(k.name, 90) << "\n";
  }
}

void writeCpuOps(std::ostringstream& out, const TraceAnalysis& a, size_t top) {
  out << "Top CPU ops by total time (" << std::min(top, a.cpu_ops.size()) << " of " << a.cpu_ops.size() << "):\n";
  out << "  " << padded("calls", 7) << padded("total", 11) << padded("self", 11) << padded("GPU time", 11)
      << "  name\n";
  for (size_t i = 0; i < a.cpu_ops.size() && i < top; ++i) {
    const CpuOpRow& r = a.cpu_ops[i];
    out << "  " << padded(std::to_string(r.calls), 7) << padded(formatDuration(r.total_ns), 11)
        << padded(formatDuration(r.self_ns), 11) << padded(formatDuration(r.gpu_ns), 11) << "  "
        << truncated(r.name, 90) << "\n";
  }
}

nlohmann::ordered_json idleJson(const IdleBreakdown& idle) {
  return {{"host_wait_ns", idle.host_wait_ns},         {"kernel_wait_ns", idle.kernel_wait_ns},
          {"other_ns", idle.other_ns},                 {"total_ns", idle.totalNs()},
          {"sync_covered_ns", idle.sync_covered_ns}, {"host_wait_share", idle.hostWaitShare()},
          {"gaps", idle.gap_count}};
}

// The idle breakdown of the whole trace, and of each stream.
nlohmann::ordered_json idleWithStreamsJson(const TraceAnalysis& a) {
  using json = nlohmann::ordered_json;
  json idle = idleJson(a.idle);
  idle["per_stream"] = json::array();
  for (const StreamIdle& s : a.idle_per_stream) {
    json row = {{"device", s.device}, {"stream", s.stream}};
    row.update(idleJson(s.idle));
    idle["per_stream"].push_back(std::move(row));
  }
  return idle;
}

nlohmann::ordered_json stepsJson(const TraceAnalysis& a, int64_t origin) {
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const StepStats& s : a.steps)
    steps.push_back({{"index", s.index},
                     {"name", s.name},
                     {"start_ns", s.start_ns - origin},
                     {"end_ns", s.end_ns - origin},
                     {"wall_ns", s.wall_ns},
                     {"kernels", s.kernels},
                     {"gpu_ops", s.gpu_ops},
                     {"launches", s.launches},
                     {"gpu_busy_ns", s.gpu_busy_ns},
                     {"cpu_dispatch_ns", s.cpu_dispatch_ns},
                     {"first_gpu_op_offset_ns", s.first_gpu_op_offset_ns},
                     {"roofline", rooflineFieldsJson(s.roofline)}});
  return steps;
}

nlohmann::ordered_json kernelsJson(const TraceAnalysis& a) {
  using json = nlohmann::ordered_json;
  json kernels = json::array();
  for (const KernelRow& k : a.kernels) {
    json row = {{"name", k.name},
                {"category", std::string(categoryName(k.category))},
                {"count", k.count},
                {"total_ns", k.total_ns},
                {"mean_ns", k.mean_ns},
                {"min_ns", k.min_ns},
                {"max_ns", k.max_ns}};
    row.update(rooflineFieldsJson(k.roofline));
    if (k.measured.calls > 0) row.update(measuredFieldsJson(k));
    kernels.push_back(std::move(row));
  }
  return kernels;
}

nlohmann::ordered_json cpuOpsJson(const TraceAnalysis& a) {
  nlohmann::ordered_json ops = nlohmann::ordered_json::array();
  for (const CpuOpRow& r : a.cpu_ops)
    ops.push_back({{"name", r.name},
                   {"category", std::string(categoryName(r.category))},
                   {"calls", r.calls},
                   {"self_ns", r.self_ns},
                   {"total_ns", r.total_ns},
                   {"gpu_ns", r.gpu_ns},
                   {"gpu_ops", r.gpu_ops},
                   {"cpu_memory_bytes", r.cpu_memory_bytes},
                   {"self_cpu_memory_bytes", r.self_cpu_memory_bytes},
                   {"device_memory_bytes", r.device_memory_bytes},
                   {"self_device_memory_bytes", r.self_device_memory_bytes}});
  return ops;
}

// null when the trace is not a live capture of ours: nothing was timed
// without the profiler.
nlohmann::ordered_json observerEffectJson(const Trace& trace) {
  const auto effect = observerEffectOf(trace);
  if (!effect) return nullptr;
  // within_noise: the ratio is inside the spread of the unprofiled blocks or
  // of the recorded steps, so it measures this machine's noise, not the
  // profiler (ObserverEffect.h).
  return {{"unprofiled_ns_per_step", std::llround(effect->unprofiled_ns_per_step)},
          {"profiled_ns_per_step", std::llround(effect->profiled_ns_per_step)},
          {"ratio", effect->ratio()},
          {"unprofiled_spread", effect->unprofiledSpread()},
          {"unprofiled_blocks", effect->unprofiled_block_ns.size()},
          {"profiled_spread", effect->profiledSpread()},
          {"within_noise", effect->withinNoise()}};
}

nlohmann::ordered_json diagnosticsJson(const Trace& trace, const TraceAnalysis& a, int64_t origin) {
  using json = nlohmann::ordered_json;
  json diagnostics = json::array();
  for (const Diagnostic& d : a.diagnostics) {
    json evidence = json::array();
    for (EventRef r : d.evidence) evidence.push_back(eventJson(trace, r, origin));
    diagnostics.push_back(
        {{"kind", std::string(diagnosticName(d.kind))}, {"message", d.message}, {"evidence", std::move(evidence)}});
  }
  return diagnostics;
}

// The `count` longest gaps, longest first (ties: the earlier first).
nlohmann::ordered_json longestGapsJson(const Trace& trace, const TraceAnalysis& a, int64_t origin, size_t count) {
  std::vector<const GpuGap*> longest;
  for (const GpuGap& g : a.gaps) longest.push_back(&g);
  size_t n = std::min(count, longest.size());
  std::partial_sort(longest.begin(), longest.begin() + n, longest.end(), [](const GpuGap* x, const GpuGap* y) {
    return x->durationNs() != y->durationNs() ? x->durationNs() > y->durationNs() : x->start_ns < y->start_ns;
  });
  nlohmann::ordered_json gaps = nlohmann::ordered_json::array();
  for (size_t i = 0; i < n; ++i) {
    const GpuGap& g = *longest[i];
    gaps.push_back({{"device", g.device},
                    {"stream", g.stream},
                    {"start_ns", g.start_ns - origin},
                    {"end_ns", g.end_ns - origin},
                    {"duration_ns", g.durationNs()},
                    {"cause", std::string(gapCauseName(g.cause))},
                    {"covered_by_sync", g.covered_by_sync},
                    {"sync_overlap_ns", g.sync_overlap_ns},
                    {"prev_op", eventJson(trace, g.prev_op, origin)},
                    {"next_op", eventJson(trace, g.next_op, origin)}});
  }
  return gaps;
}

}  // namespace

std::string analysisText(const Trace& trace, const TraceAnalysis& a, const ReportOptions& options) {
  std::ostringstream out;
  out << "Trace: " << (trace.meta.source.empty() ? std::string("(unnamed)") : trace.meta.source) << " ("
      << trace.eventCount() << " events)\n";
  out << "Analysed span: " << formatDuration(a.scope.spanNs())
      << (a.scope.from_steps ? " (the ProfilerStep#k steps, to the end of their GPU work)" : " (whole trace)")
      << ", " << a.kernel_count << " kernels, " << a.gpu_op_count << " GPU ops\n\n";
  writeSteps(out, a);
  out << "\nGPU utilization: " << formatPercent(a.utilization.fraction) << " (busy "
      << formatDuration(a.utilization.busy_ns) << " of " << formatDuration(a.utilization.span_ns) << ")\n";
  writeIdle(out, a);
  if (a.launch_delay_summary.count)
    out << "Launch delay (launch call end -> GPU start): mean "
        << formatDuration(int64_t(a.launch_delay_summary.mean_ns + 0.5)) << ", max "
        << formatDuration(a.launch_delay_summary.max_ns) << " over " << a.launch_delay_summary.count << " GPU ops\n";
  out << "\nVerdict: " << verdictName(a.verdict.kind) << "\n  " << a.verdict.explanation << "\n";
  if (const auto effect = observerEffectOf(trace)) out << "Observer effect: " << describeObserverEffect(*effect) << "\n";
  out << "\n";
  writeKernels(out, a, options.top_kernels);
  out << "\n";
  writeRooflineText(out, a, options.top_kernels);
  out << "\n";
  writeMeasuredText(out, a, options.top_kernels);
  writeCpuOps(out, a, options.top_cpu_ops);
  writeMemoryText(out, trace, a.memory);
  out << "\nDiagnostics:";
  if (a.diagnostics.empty()) out << " none";
  out << "\n";
  for (const Diagnostic& d : a.diagnostics) out << "  - [" << diagnosticName(d.kind) << "] " << d.message << "\n";
  return out.str();
}

nlohmann::ordered_json analysisJson(const Trace& trace, const TraceAnalysis& a, const ReportOptions& options) {
  using json = nlohmann::ordered_json;
  const int64_t origin = trace.beginNs();
  json j;
  j["format_version"] = kJsonFormatVersion;
  j["trace"] = {{"source", trace.meta.source}, {"events", trace.eventCount()}, {"begin_ns", origin},
                {"end_ns", trace.endNs()}};
  j["options"] = {{"gap_threshold_ns", a.options.gap_threshold_ns}};
  j["scope"] = {{"from_steps", a.scope.from_steps},
                {"start_ns", a.scope.start_ns - origin},
                {"end_ns", a.scope.end_ns - origin},
                {"span_ns", a.scope.spanNs()}};
  j["counts"] = {{"kernels", a.kernel_count}, {"gpu_ops", a.gpu_op_count}, {"steps", a.steps.size()}};
  j["utilization"] = {{"busy_ns", a.utilization.busy_ns},
                      {"span_ns", a.utilization.span_ns},
                      {"fraction", a.utilization.fraction}};
  j["idle"] = idleWithStreamsJson(a);
  j["launch_delay"] = {{"count", a.launch_delay_summary.count},
                       {"total_ns", a.launch_delay_summary.total_ns},
                       {"mean_ns", a.launch_delay_summary.mean_ns},
                       {"max_ns", a.launch_delay_summary.max_ns}};

  j["steps"] = stepsJson(a, origin);
  j["kernels"] = kernelsJson(a);
  j["ceilings"] = ceilingsJson(a.roofline.ceilings);
  j["roofline"] = rooflineJson(trace, a, origin);
  j["cpu_ops"] = cpuOpsJson(a);
  if (!a.memory.empty()) j["memory"] = memoryJson(trace, a.memory, origin);
  j["verdict"] = {{"kind", std::string(verdictName(a.verdict.kind))},
                  {"utilization", a.verdict.utilization},
                  {"host_wait_share", a.verdict.host_wait_share},
                  {"explanation", a.verdict.explanation}};
  j["observer_effect"] = observerEffectJson(trace);
  j["diagnostics"] = diagnosticsJson(trace, a, origin);
  j["longest_gaps"] = longestGapsJson(trace, a, origin, options.longest_gaps);
  return j;
}

}  // namespace fuselab
