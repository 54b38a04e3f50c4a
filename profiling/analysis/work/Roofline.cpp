// Speed of light and bound of GPU ops and groups of them (Roofline.h).
#include "profiling/analysis/work/Roofline.h"

#include <algorithm>

namespace fuselab {

double Ceilings::peakTflops(Precision p) const {
  switch (p) {
    case Precision::BF16: return bf16_tflops;
    case Precision::FP16: return fp16_tflops;
    case Precision::TF32: return tf32_tflops;
    case Precision::FP32: return fp32_tflops;
    // Integer and bool arithmetic (comparisons, masks, index math) runs on the
    // CUDA cores, as fp32 does.
    case Precision::Other: return fp32_tflops;
    default: return 0;
  }
}

std::string_view boundName(Bound b) {
  switch (b) {
    case Bound::Compute: return "compute";
    case Bound::Memory: return "memory";
    case Bound::Latency: return "latency";
    case Bound::HostTransfer: return "host_transfer";
    case Bound::Unknown: break;
  }
  return "unknown";
}

namespace {

// Time the work takes on the roof, ns; nullopt when a needed ceiling is missing.
std::optional<double> idealNs(double flops, double bytes, Precision p, const Ceilings& c) {
  if (c.copy_gbps <= 0) return std::nullopt;
  double ns = bytes / c.copy_gbps;  // GB/s = bytes per ns
  if (flops > 0) {
    const double peak = c.peakTflops(p);
    if (peak <= 0) return std::nullopt;
    ns = std::max(ns, flops / (peak * 1e3));  // TFLOP/s = 1e3 FLOP per ns
  }
  return ns;
}

}  // namespace

RooflineFigures rooflineOf(const GpuOpWork& w, int64_t dur_ns, std::string_view kernel_name, bool host_transfer,
                           const std::optional<Ceilings>& ceilings, const RooflineRules& rules) {
  RooflineFigures f;
  if (!w.work) {
    f.unknown = 1;
    return f;
  }
  f.known = 1;
  f.flops = w.work->flops;
  f.bytes = w.work->bytes;
  f.dur_ns = dur_ns;
  f.precision = w.work->precision;
  if (f.precision == Precision::FP32 && kernel_name.find("tf32") != std::string_view::npos)
    f.precision = Precision::TF32;
  if (host_transfer) {
    finish(f, std::nullopt, rules);
    f.bound = Bound::HostTransfer;
    return f;
  }
  if (ceilings)
    if (auto ideal = idealNs(f.flops, f.bytes, f.precision, *ceilings)) f.ideal_ns = *ideal;
  finish(f, f.ideal_ns > 0 ? ceilings : std::nullopt, rules);
  return f;
}

void accumulate(RooflineFigures& total, const RooflineFigures& one) {
  if (total.known == 0 && one.known > 0) total.precision = one.precision;
  total.known += one.known;
  total.unknown += one.unknown;
  total.flops += one.flops;
  total.bytes += one.bytes;
  total.dur_ns += one.dur_ns;
  total.ideal_ns += one.ideal_ns;
}

void finish(RooflineFigures& f, const std::optional<Ceilings>& ceilings, const RooflineRules& rules) {
  f.intensity = f.bytes > 0 ? f.flops / f.bytes : 0;
  f.achieved_tflops = f.dur_ns > 0 ? f.flops / double(f.dur_ns) / 1e3 : 0;
  f.achieved_gbps = f.dur_ns > 0 ? f.bytes / double(f.dur_ns) : 0;
  f.speed_of_light.reset();
  if (f.bound == Bound::HostTransfer) return;
  f.bound = Bound::Unknown;
  if (f.known == 0 || !ceilings || f.ideal_ns <= 0 || f.dur_ns <= 0) return;
  f.speed_of_light = f.ideal_ns / double(f.dur_ns);
  const double mean_ideal = f.ideal_ns / double(f.known);
  if (mean_ideal < double(rules.latency_ideal_ns) && *f.speed_of_light < rules.latency_max_sol) {
    f.bound = Bound::Latency;
    return;
  }
  const double peak = ceilings->peakTflops(f.precision) * 1e3;  // FLOP per ns
  const double ridge = peak > 0 ? peak / ceilings->copy_gbps : 0;
  f.bound = f.flops > 0 && ridge > 0 && f.intensity >= ridge ? Bound::Compute : Bound::Memory;
}

std::optional<Ceilings> ceilingsForTrace(const Trace& trace, const std::vector<Ceilings>& measured) {
  if (trace.meta.devices.empty()) return std::nullopt;
  const std::string& gpu = trace.meta.devices.front().name;
  for (const Ceilings& c : measured)
    if (c.gpu == gpu) return c;
  return publishedCeilings(gpu);
}

}  // namespace fuselab
