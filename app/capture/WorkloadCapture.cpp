#include "app/capture/WorkloadCapture.h"
#include "profiling/capture_api/CaptureBackend.h"
#include "profiling/capture_api/WorkloadCatalog.h"

#include <nlohmann/json.hpp>

namespace fuselab {

CaptureTarget captureTarget(Workload& workload) {
  CaptureTarget t;
  t.region_label = workload.regionLabel();
  t.forward = [&workload] { workload.forward(); };
  t.synchronize = [&workload] { workload.synchronize(); };
  return t;
}

std::string workloadParamsJson(const WorkloadParams& p) {
  nlohmann::ordered_json j;
  j["workload"] = p.workload;
  std::string variant = p.variant;
  if (variant.empty())  // the workload's default, so the file says what ran
    for (const auto& info : workloadCatalog())
      if (info.name == p.workload && !info.variants.empty()) variant = info.variants.front();
  j["variant"] = variant;
  j["batch"] = p.batch;
  j["seq"] = p.seq;
  j["dim"] = p.dim;
  j["hidden"] = p.hidden;
  j["out"] = p.out;
  j["dtype"] = dtypeName(p.dtype);
  j["device"] = deviceName(p.device);
  j["graph"] = p.graph;
  j["seed"] = p.seed;
  if (p.ranks != 1 || p.delay_rank >= 0) {
    j["ranks"] = p.ranks;
    j["delay_rank"] = p.delay_rank;
    j["delay_us"] = p.delay_us;
  }
  return j.dump();
}

std::optional<WorkloadParams> workloadParamsOf(const Trace& trace) {
  for (const auto& [key, value] : trace.meta.extra_fields) {
    if (key != "fuselabWorkload") continue;
    try {
      const nlohmann::json j = nlohmann::json::parse(value);
      WorkloadParams p;
      p.workload = j.at("workload").get<std::string>();
      p.variant = j.value("variant", std::string());
      p.batch = j.value("batch", p.batch);
      p.seq = j.value("seq", p.seq);
      p.dim = j.value("dim", p.dim);
      p.hidden = j.value("hidden", p.hidden);
      p.out = j.value("out", p.out);
      p.dtype = parseDType(j.value("dtype", dtypeName(p.dtype)));
      p.device = parseDevice(j.value("device", deviceName(p.device)));
      p.graph = j.value("graph", p.graph);
      p.seed = j.value("seed", p.seed);
      p.ranks = j.value("ranks", p.ranks);
      p.delay_rank = j.value("delay_rank", p.delay_rank);
      p.delay_us = j.value("delay_us", p.delay_us);
      return p;
    } catch (const nlohmann::json::exception& e) {
      throw WorkloadError(std::string("the trace's fuselabWorkload field is malformed: ") + e.what());
    }
  }
  return std::nullopt;
}

CaptureResult captureWorkload(const WorkloadParams& params, const CaptureOptions& options,
                              CaptureProgress* progress) {
  if (progress) progress->setPhase(0.0, "building " + params.workload);
  std::unique_ptr<Workload> workload = captureBackend().makeWorkload(params);
  CaptureOptions opts = options;
  opts.gpu = options.gpu && params.device == Device::Cuda;
  CaptureResult result = captureBackend().capture(captureTarget(*workload), opts, progress);
  if (!result.cancelled) {
    result.trace.meta.trace_name = workload->describe();
    result.trace.meta.extra_fields.emplace_back("fuselabWorkload", workloadParamsJson(params));
    if (const std::string info = workload->distributedInfoJson(); !info.empty())
      result.trace.meta.extra_fields.emplace_back("distributedInfo", info);
  }
  return result;
}

}  // namespace fuselab
