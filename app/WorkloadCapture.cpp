#include "app/WorkloadCapture.h"
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
  return j.dump();
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
  }
  return result;
}

}  // namespace fuselab
