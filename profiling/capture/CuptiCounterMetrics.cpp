#include "profiling/capture/CuptiCounterMetrics.h"

#include <cupti_profiler_host.h>

#include "profiling/capture/CuptiProfilerError.h"

namespace fuselab::cupti {

namespace {

// CUPTI's host object for one chip, deinitialized on every path out.
class HostObject {
 public:
  HostObject(const std::string& chip, const std::vector<uint8_t>& availability, std::string* why) {
    CUpti_Profiler_Host_Initialize_Params p{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
    const CUptiResult r = cuptiProfilerHostInitialize(&p);
    if (r == CUPTI_SUCCESS) object_ = p.pHostObject;
    else if (why) *why = profilerError("cuptiProfilerHostInitialize", r) + " for chip " + chip;
  }
  ~HostObject() {
    if (!object_) return;
    CUpti_Profiler_Host_Deinitialize_Params p{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    p.pHostObject = object_;
    cuptiProfilerHostDeinitialize(&p);
  }
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;

  CUpti_Profiler_Host_Object* get() const { return object_; }

  bool knows(const std::string& metric) const {
    CUpti_Profiler_Host_GetMetricProperties_Params p{CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
    p.pHostObject = object_;
    p.pMetricName = metric.c_str();
    return cuptiProfilerHostGetMetricProperties(&p) == CUPTI_SUCCESS;
  }

  std::string firstKnown(const std::vector<std::string>& candidates) const {
    for (const std::string& c : candidates)
      if (knows(c)) return c;
    return {};
  }

 private:
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

}  // namespace

std::vector<std::string> CounterMetrics::names() const {
  std::vector<std::string> out;
  for (const std::string* n : {&dram_read, &dram_write, &tensor_active})
    if (!n->empty()) out.push_back(*n);
  return out;
}

const std::vector<std::string>& dramReadCandidates() {
  static const std::vector<std::string> names = {"dram__bytes_read.sum"};
  return names;
}

const std::vector<std::string>& dramWriteCandidates() {
  static const std::vector<std::string> names = {"dram__bytes_write.sum"};
  return names;
}

const std::vector<std::string>& tensorActiveCandidates() {
  // All tensor instruction kinds (Hopper's warpgroup GMMA included) first;
  // then the HMMA/HGMMA/QGMMA share, then HMMA alone (older chips).
  static const std::vector<std::string> names = {
      "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
  };
  return names;
}

std::optional<CounterMetrics> chooseCounterMetrics(const std::string& chip, const std::vector<uint8_t>& availability,
                                                   std::string* why) {
  HostObject host(chip, availability, why);
  if (!host.get()) return std::nullopt;
  CounterMetrics m;
  m.dram_read = host.firstKnown(dramReadCandidates());
  m.dram_write = host.firstKnown(dramWriteCandidates());
  m.tensor_active = host.firstKnown(tensorActiveCandidates());
  if (m.dram_read.empty() || m.dram_write.empty()) {
    if (why) *why = "CUPTI knows no DRAM byte metric for chip " + chip;
    return std::nullopt;
  }
  return m;
}

namespace {

bool addMetrics(const HostObject& host, const std::vector<std::string>& metrics, std::vector<const char*>& names,
                std::string* why) {
  names.clear();
  for (const std::string& m : metrics) names.push_back(m.c_str());
  CUpti_Profiler_Host_ConfigAddMetrics_Params add{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.pHostObject = host.get();
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  const CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add);
  if (r != CUPTI_SUCCESS && why) *why = profilerError("cuptiProfilerHostConfigAddMetrics", r);
  return r == CUPTI_SUCCESS;
}

}  // namespace

std::vector<std::vector<double>> evaluateCounterData(const std::string& chip, const std::vector<uint8_t>& availability,
                                                     const std::vector<std::string>& metrics,
                                                     const std::vector<uint8_t>& counter_data, size_t ranges,
                                                     std::string* why) {
  HostObject host(chip, availability, why);
  std::vector<const char*> names;
  if (!host.get() || !addMetrics(host, metrics, names, why)) return {};
  std::vector<std::vector<double>> out;
  for (size_t i = 0; i < ranges; ++i) {
    std::vector<double> values(metrics.size(), 0.0);
    CUpti_Profiler_Host_EvaluateToGpuValues_Params e{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    e.pHostObject = host.get();
    e.pCounterDataImage = counter_data.data();
    e.counterDataImageSize = counter_data.size();
    e.rangeIndex = i;
    e.ppMetricNames = names.data();
    e.numMetrics = names.size();
    e.pMetricValues = values.data();
    if (CUptiResult r = cuptiProfilerHostEvaluateToGpuValues(&e); r != CUPTI_SUCCESS) {
      if (why) *why = profilerError("cuptiProfilerHostEvaluateToGpuValues", r);
      return {};
    }
    out.push_back(std::move(values));
  }
  return out;
}

std::vector<uint8_t> counterConfigImage(const std::string& chip, const std::vector<uint8_t>& availability,
                                        const std::vector<std::string>& metrics, std::string* why) {
  HostObject host(chip, availability, why);
  std::vector<const char*> names;
  if (!host.get() || !addMetrics(host, metrics, names, why)) return {};
  CUpti_Profiler_Host_GetConfigImageSize_Params size{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  size.pHostObject = host.get();
  if (CUptiResult r = cuptiProfilerHostGetConfigImageSize(&size); r != CUPTI_SUCCESS || size.configImageSize == 0) {
    if (why) *why = profilerError("cuptiProfilerHostGetConfigImageSize", r);
    return {};
  }
  std::vector<uint8_t> image(size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params get{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  get.pHostObject = host.get();
  get.configImageSize = image.size();
  get.pConfigImage = image.data();
  if (CUptiResult r = cuptiProfilerHostGetConfigImage(&get); r != CUPTI_SUCCESS) {
    if (why) *why = profilerError("cuptiProfilerHostGetConfigImage", r);
    return {};
  }
  return image;
}

}  // namespace fuselab::cupti
