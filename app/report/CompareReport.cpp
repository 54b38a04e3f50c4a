#include "app/report/CompareReport.h"

namespace fuselab {

namespace {

using Json = nlohmann::ordered_json;

Json opt(std::optional<double> v) { return v ? Json(*v) : Json(); }

Json statsJson(const SampleSummary& s) {
  if (s.n == 0) return Json();
  return Json{{"n", s.n}, {"median", s.median}, {"q1", s.q1}, {"q3", s.q3}, {"min", s.min}, {"max", s.max}};
}

Json changeJson(const NoiseTestResult& n, const std::string& label) {
  Json j;
  j["outcome"] = std::string(noiseOutcomeName(n.outcome));
  j["label"] = label;
  j["beyond_noise"] = n.beyondNoise();
  j["median_delta"] = n.median_delta;
  j["ci_low"] = n.ci_low;
  j["ci_high"] = n.ci_high;
  return j;
}

Json sideJson(const std::vector<std::string>& files, size_t traces, size_t steps, size_t samples, const Verdict& v) {
  Json j;
  j["files"] = files;
  j["traces"] = traces;
  j["steps"] = steps;
  j["samples"] = samples;
  j["verdict"] = std::string(verdictName(v.kind));
  j["utilization"] = v.utilization;
  j["host_wait_share"] = v.host_wait_share;
  return j;
}

const char* unitName(CompareUnit u) {
  return u == CompareUnit::Count ? "count" : u == CompareUnit::Nanoseconds ? "ns" : "fraction";
}

}  // namespace

Json comparisonJson(const TraceComparison& c, const std::vector<std::string>& a_files,
                    const std::vector<std::string>& b_files) {
  Json j;
  j["format_version"] = kCompareJsonFormatVersion;
  j["a"] = sideJson(a_files, c.a_traces, c.a_steps, c.a_samples, c.a_verdict);
  j["b"] = sideJson(b_files, c.b_traces, c.b_steps, c.b_samples, c.b_verdict);
  j["rule"] = std::string(NoiseRule::description());
  j["rule_parameters"] = Json{{"method", "bootstrap_difference_of_medians"},
                              {"confidence", NoiseRule::kConfidence},
                              {"resamples", NoiseRule::kResamples},
                              {"seed", NoiseRule::kSeed},
                              {"min_samples_per_side", NoiseRule::kMinSamples}};
  j["alignment"] = c.alignment;
  j["aligned_on_step"] = c.aligned_on_step;
  j["b_offset_ns"] = c.b_offset_ns;
  j["verdict"] = Json{{"a", std::string(verdictName(c.a_verdict.kind))},
                      {"b", std::string(verdictName(c.b_verdict.kind))},
                      {"changed", c.a_verdict.kind != c.b_verdict.kind},
                      {"text", c.verdictLine()}};
  Json& rows = j["rows"] = Json::array();
  for (const CompareRow& r : c.rows) {
    Json x;
    x["metric"] = r.metric;
    x["unit"] = unitName(r.unit);
    x["a"] = opt(r.a);
    x["b"] = opt(r.b);
    x["delta"] = opt(r.delta());
    x["ratio"] = opt(r.ratio());
    x["a_stats"] = statsJson(r.a_stats);
    x["b_stats"] = statsJson(r.b_stats);
    x["lower_is_better"] = r.lower_is_better;
    x["change"] = changeJson(r.noise, changeLabel(r));
    rows.push_back(std::move(x));
  }
  Json& kernels = j["kernels"] = Json::array();
  for (const CompareKernelRow& k : c.kernels) {
    Json x;
    x["slot"] = Json{{"op", k.key.op}, {"shapes", k.key.shapes}, {"name", k.key.name}, {"ordinal", k.key.ordinal + 1}};
    x["label"] = k.label;
    x["category"] = std::string(categoryName(k.category));
    x["a_name"] = k.a_name;
    x["b_name"] = k.b_name;
    x["renamed"] = k.renamed();
    x["a_per_step"] = k.a_per_step;
    x["b_per_step"] = k.b_per_step;
    x["a_duration_ns"] = statsJson(k.a_stats);
    x["b_duration_ns"] = statsJson(k.b_stats);
    x["change"] = changeJson(k.noise, changeLabel(k));
    kernels.push_back(std::move(x));
  }
  return j;
}

}  // namespace fuselab
