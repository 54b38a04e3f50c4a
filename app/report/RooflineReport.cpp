#include "app/report/RooflineReport.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "app/report/MeasuredReport.h"
#include "profiling/trace/DurationText.h"

namespace fuselab {

namespace {

using json = nlohmann::ordered_json;

// A number with `digits` significant digits, no trailing noise.
std::string number(double v, int digits = 3) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// Right- (or left-) aligned in `width`, always followed by two spaces.
std::string cell(const std::string& s, size_t width, bool right = true) {
  const std::string pad(s.size() < width ? width - s.size() : 0, ' ');
  return (right ? pad + s : s + pad) + "  ";
}

std::string whole(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

}  // namespace

json rooflineFieldsJson(const RooflineFigures& f) {
  const bool known = f.known > 0;
  auto orNull = [&](double v) { return known ? json(v) : json(nullptr); };
  return {{"flops", orNull(f.flops)},
          {"bytes", orNull(f.bytes)},
          {"intensity", known && f.bytes > 0 ? json(f.intensity) : json(nullptr)},
          {"achieved_tflops", orNull(f.achieved_tflops)},
          {"achieved_gbps", orNull(f.achieved_gbps)},
          {"speed_of_light", f.speed_of_light ? json(*f.speed_of_light) : json(nullptr)},
          {"bound", std::string(boundName(f.bound))},
          {"precision", std::string(precisionName(f.precision))},
          {"work_known", f.known},
          {"work_unknown", f.unknown}};
}

json ceilingsJson(const std::optional<Ceilings>& c) {
  if (!c) return nullptr;
  return {{"source", c->source},
          {"gpu", c->gpu},
          {"values",
           {{"bf16_tflops", c->bf16_tflops},
            {"fp16_tflops", c->fp16_tflops},
            {"tf32_tflops", c->tf32_tflops},
            {"fp32_tflops", c->fp32_tflops},
            {"copy_gbps", c->copy_gbps}}}};
}

json rooflineJson(const Trace& trace, const TraceAnalysis& a, int64_t origin) {
  const RooflineAnalysis& r = a.roofline;
  json out;
  out["rules"] = {{"latency_ideal_ns", a.options.roofline_rules.latency_ideal_ns},
                  {"latency_max_sol", a.options.roofline_rules.latency_max_sol}};
  out["total"] = rooflineFieldsJson(r.total);
  out["gpu_ops"] = json::array();
  for (size_t i = 0; i < r.ops.size() && i < r.work.size(); ++i) {
    const EventRef op = a.scope.gpu_ops[i];
    const Track& t = trace.tracks[op.track];
    const GpuOpWork& w = r.work[i];
    json row = {{"name", std::string(trace.name(op))},
                {"track", op.track},
                {"index", op.index},
                {"start_ns", t.start_ns[op.index] - origin},
                {"dur_ns", t.dur_ns[op.index]}};
    row.update(rooflineFieldsJson(r.ops[i]));
    row["source_op"] = w.source ? json(std::string(trace.name(*w.source))) : json(nullptr);
    row["op_kernels"] = w.op_kernels;
    row["share"] = w.share;
    row["note"] = w.note;
    addMeasuredOpFields(row, trace, op);
    out["gpu_ops"].push_back(std::move(row));
  }
  return out;
}

void writeRooflineText(std::ostream& out, const TraceAnalysis& a, size_t top) {
  const RooflineAnalysis& r = a.roofline;
  if (r.total.known + r.total.unknown == 0 && r.work.empty()) {
    out << "Roofline: no GPU ops in scope\n";
    return;
  }
  out << "Roofline: ";
  if (r.ceilings) {
    const Ceilings& c = *r.ceilings;
    out << c.source << " ceilings for " << c.gpu << ": bf16 " << number(c.bf16_tflops) << ", fp16 "
        << number(c.fp16_tflops) << ", tf32 " << number(c.tf32_tflops) << ", fp32 " << number(c.fp32_tflops)
        << " TFLOP/s, copy " << whole(c.copy_gbps) << " GB/s\n";
  } else {
    out << "no ceilings for this GPU (measure them with `fuselab ceilings` on it)\n";
  }
  const RooflineFigures& t = r.total;
  out << "  work known for " << t.known << " of " << (t.known + t.unknown) << " GPU ops";
  if (t.known > 0) {
    out << ": " << number(t.flops / 1e9) << " GFLOP, " << number(t.bytes / 1e6, 4) << " MB in "
        << formatDuration(t.dur_ns) << " -> " << number(t.achieved_tflops) << " TFLOP/s, "
        << whole(t.achieved_gbps) << " GB/s";
    if (t.speed_of_light) out << ", " << formatPercent(*t.speed_of_light) << " of speed of light";
  }
  out << "\n";
  if (t.unknown > 0) {  // the most common reason, once
    std::map<std::string, size_t> reasons;
    for (const GpuOpWork& w : r.work)
      if (!w.work) ++reasons[w.note];
    auto top_reason = std::max_element(reasons.begin(), reasons.end(),
                                       [](const auto& x, const auto& y) { return x.second < y.second; });
    out << "  unknown work, most often: " << top_reason->first << " (" << top_reason->second << " GPU ops)\n";
  }
  out << "  " << cell("SoL", 6) << cell("TFLOP/s", 7) << cell("GB/s", 6) << cell("FLOP/B", 7) << cell("bound", 13, false)
      << "name\n";
  size_t shown = 0;
  for (const KernelRow& k : a.kernels) {
    if (shown++ == top) break;
    const RooflineFigures& f = k.roofline;
    const bool known = f.known > 0;
    std::string name = k.name.size() > 80 ? k.name.substr(0, 77) + "..." : k.name;
    out << "  " << cell(f.speed_of_light ? formatPercent(*f.speed_of_light) : "-", 6)
        << cell(known ? number(f.achieved_tflops) : "-", 7) << cell(known ? whole(f.achieved_gbps) : "-", 6)
        << cell(known && f.bytes > 0 ? number(f.intensity) : "-", 7)
        << cell(known ? std::string(boundName(f.bound)) : "unknown work", 13, false) << name << "\n";
  }
}

}  // namespace fuselab
