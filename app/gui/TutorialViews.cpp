#include "app/gui/TutorialViews.h"

#include <sstream>

namespace fuselab {

ui::TutorialStepView tutorialStepView(const TutorialPreset& p) {
  ui::TutorialStepView v;
  v.step = p.step;
  v.title = p.title;
  v.part = p.part;
  v.run_text = describePresetRun(p);
  v.explanation = p.explanation;
  v.guess_first = p.guess_first;
  v.look_for = p.look_for;
  for (const auto& e : p.expectations) {
    v.expectation_texts.push_back(e.text);
    v.expectation_hints.push_back(e.hint);
  }
  v.compare_with = p.compare_with;
  return v;
}

std::string sweepTitle(const WorkloadParams& b) {
  std::ostringstream o;
  o << b.workload << " (";
  if (b.workload == "linear")
    o << "in " << b.dim << ", out " << b.out;
  else
    o << "dim " << b.dim << ", hidden " << b.hidden;
  o << ", " << dtypeName(b.dtype) << ") on " << deviceName(b.device);
  return o.str();
}

ui::SweepPlotData sweepPlotData(const SweepResult& r, const std::string& title) {
  ui::SweepPlotData d;
  d.title = title;
  if (r.ceilings) {
    const WorkloadParams& base = r.series.empty() ? WorkloadParams{} : r.series.front().params;
    const Precision p = base.dtype == DType::BF16 ? Precision::BF16
                        : base.dtype == DType::FP16 ? Precision::FP16
                                                    : Precision::FP32;
    d.peak_tflops = r.ceilings->peakTflops(p);
    d.bandwidth_gbps = r.ceilings->copy_gbps;
    d.roof_label = std::string(precisionName(p)) + " roof, " + r.ceilings->source;
  }
  for (const SweepSeries& s : r.series) {
    ui::SweepPlotSeries ps;
    ps.label = s.variant;
    ps.detail = s.params.workload + (s.params.graph ? ", CUDA graph" : "");
    ps.skip_reason = s.skip_reason;
    for (const SweepPoint& p : s.points) {
      if (!p.ok) {
        ps.failures.push_back(std::to_string(p.tokens) + " tokens: " + p.error);
        continue;
      }
      ui::SweepPlotPoint pp;
      pp.tokens = double(p.tokens);
      pp.time_ns = p.time_per_forward_ns;
      pp.utilization = p.gpu_utilization;
      pp.kernels = p.kernels_per_forward;
      pp.launches = p.launches_per_forward;
      if (p.bytes_per_forward && *p.bytes_per_forward > 0 && p.flops_per_forward > 0 && p.time_per_forward_ns > 0) {
        pp.intensity = p.flops_per_forward / *p.bytes_per_forward;
        pp.tflops = p.flops_per_forward / p.time_per_forward_ns / 1e3;
      }
      ps.points.push_back(pp);
    }
    if (s.crossover.found) ps.crossover_tokens = s.crossover.tokens;
    ps.crossover_text = s.crossover.explanation;
    d.series.push_back(std::move(ps));
  }
  return d;
}

}  // namespace fuselab
