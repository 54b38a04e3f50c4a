#include "profiling/capture/CuptiRangeProfiler.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <string>

#include "profiling/capture/CuptiProfilerError.h"
#include "profiling/capture/CuptiRecords.h"

namespace fuselab::cupti {

namespace {

// cuptiProfilerInitialize .. cuptiProfilerDeInitialize, and the range
// profiler's enable .. disable, undone on every path out.
class ProfilerSession {
 public:
  ~ProfilerSession() {
    if (range_) {
      CUpti_RangeProfiler_Disable_Params p{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
      p.pRangeProfilerObject = range_;
      cuptiRangeProfilerDisable(&p);
    }
    if (initialized_) {
      CUpti_Profiler_DeInitialize_Params p{CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
      cuptiProfilerDeInitialize(&p);
    }
  }

  CUptiResult initialize() {
    CUpti_Profiler_Initialize_Params p{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    const CUptiResult r = cuptiProfilerInitialize(&p);
    initialized_ = r == CUPTI_SUCCESS;
    return r;
  }

  CUptiResult enable(CUcontext ctx) {
    CUpti_RangeProfiler_Enable_Params p{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    p.ctx = ctx;
    const CUptiResult r = cuptiRangeProfilerEnable(&p);
    if (r == CUPTI_SUCCESS) range_ = p.pRangeProfilerObject;
    return r;
  }

  CUpti_RangeProfiler_Object* range() const { return range_; }

 private:
  bool initialized_ = false;
  CUpti_RangeProfiler_Object* range_ = nullptr;
};

// The calling thread's CUDA context, through the runtime's driver entry
// points: linking libcuda itself would stop the capture module from loading
// on machines without a driver.
CUcontext currentContext() {
  using CtxGetCurrent = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess || !fn) {
    cudaGetLastError();
    return nullptr;
  }
  CUcontext ctx = nullptr;
  if (reinterpret_cast<CtxGetCurrent>(fn)(&ctx) != CUDA_SUCCESS) return nullptr;
  return ctx;
}

bool failed(CUptiResult r, const char* call, std::string* why) {
  if (r == CUPTI_SUCCESS) return false;
  if (why) *why = profilerError(call, r);
  return true;
}

std::vector<uint8_t> counterAvailability(CUcontext ctx, std::string* why) {
  CUpti_Profiler_GetCounterAvailability_Params p{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
  p.ctx = ctx;
  if (failed(cuptiProfilerGetCounterAvailability(&p), "cuptiProfilerGetCounterAvailability", why)) return {};
  std::vector<uint8_t> image(p.counterAvailabilityImageSize);
  p.pCounterAvailabilityImage = image.data();
  if (failed(cuptiProfilerGetCounterAvailability(&p), "cuptiProfilerGetCounterAvailability", why)) return {};
  return image;
}

std::vector<uint8_t> counterDataImage(CUpti_RangeProfiler_Object* range, const std::vector<std::string>& metrics,
                                      size_t max_ranges, std::string* why) {
  std::vector<const char*> names;
  for (const std::string& m : metrics) names.push_back(m.c_str());
  CUpti_RangeProfiler_GetCounterDataSize_Params size{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  size.pRangeProfilerObject = range;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = max_ranges;
  size.maxNumRangeTreeNodes = static_cast<uint32_t>(max_ranges);
  if (failed(cuptiRangeProfilerGetCounterDataSize(&size), "cuptiRangeProfilerGetCounterDataSize", why)) return {};
  std::vector<uint8_t> image(size.counterDataSize);
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params init{
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  init.pRangeProfilerObject = range;
  init.counterDataSize = image.size();
  init.pCounterData = image.data();
  if (failed(cuptiRangeProfilerCounterDataImageInitialize(&init), "cuptiRangeProfilerCounterDataImageInitialize", why))
    return {};
  return image;
}

// Auto range (one range per kernel) and kernel replay, into `data`.
bool configure(CUpti_RangeProfiler_Object* range, const std::vector<uint8_t>& config, std::vector<uint8_t>& data,
               size_t max_ranges, std::string* why) {
  CUpti_RangeProfiler_SetConfig_Params set{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  set.pRangeProfilerObject = range;
  set.configSize = config.size();
  set.pConfig = config.data();
  set.counterDataImageSize = data.size();
  set.pCounterDataImage = data.data();
  set.range = CUPTI_AutoRange;
  set.replayMode = CUPTI_KernelReplay;
  set.maxRangesPerPass = max_ranges;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  return !failed(cuptiRangeProfilerSetConfig(&set), "cuptiRangeProfilerSetConfig", why);
}

// The forward once; kernel replay runs each kernel as often as it needs.
bool runOnePass(CUpti_RangeProfiler_Object* range, const std::function<void()>& forward, std::string* why) {
  CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
  start.pRangeProfilerObject = range;
  if (failed(cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart", why)) return false;
  forward();
  CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  stop.pRangeProfilerObject = range;
  if (failed(cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop", why)) return false;
  if (!stop.isAllPassSubmitted) {
    if (why) *why = "the range profiler wanted more passes than kernel replay gives";
    return false;
  }
  return true;
}

// Decodes into `data`; how many ranges it holds.
std::optional<size_t> decodeRanges(CUpti_RangeProfiler_Object* range, const std::vector<uint8_t>& data,
                                   size_t max_ranges, std::string* why) {
  CUpti_RangeProfiler_DecodeData_Params decode{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  decode.pRangeProfilerObject = range;
  if (failed(cuptiRangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData", why)) return std::nullopt;
  if (decode.numOfRangeDropped > 0) {
    if (why)
      *why = std::to_string(decode.numOfRangeDropped) + " kernel ranges were dropped (more than " +
             std::to_string(max_ranges) + " kernels)";
    return std::nullopt;
  }
  CUpti_RangeProfiler_GetCounterDataInfo_Params info{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  if (failed(cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo", why))
    return std::nullopt;
  if (info.numTotalRanges == 0) {
    if (why) *why = "the range profiler recorded no kernel ranges";
    return std::nullopt;
  }
  return info.numTotalRanges;
}

std::string rangeName(const std::vector<uint8_t>& data, size_t index) {
  CUpti_RangeProfiler_CounterData_GetRangeInfo_Params p{CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
  p.pCounterDataImage = data.data();
  p.counterDataImageSize = data.size();
  p.rangeIndex = index;
  p.rangeDelimiter = "/";
  if (cuptiRangeProfilerCounterDataGetRangeInfo(&p) != CUPTI_SUCCESS || !p.rangeName) return {};
  return demangle(p.rangeName);
}

}  // namespace

std::optional<RangeProfile> profileKernelRanges(const std::function<void()>& forward, size_t max_ranges,
                                                std::string* why) {
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    if (why) *why = "no CUDA device";
    return std::nullopt;
  }
  CUcontext ctx = currentContext();
  if (!ctx) {
    if (why) *why = "no current CUDA context";
    return std::nullopt;
  }
  ProfilerSession session;
  if (failed(session.initialize(), "cuptiProfilerInitialize", why)) return std::nullopt;
  CUpti_Device_GetChipName_Params chip_params{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip_params.deviceIndex = static_cast<size_t>(device);
  if (failed(cuptiDeviceGetChipName(&chip_params), "cuptiDeviceGetChipName", why) || !chip_params.pChipName)
    return std::nullopt;
  const std::string chip = chip_params.pChipName;
  const std::vector<uint8_t> availability = counterAvailability(ctx, why);
  if (availability.empty()) return std::nullopt;
  RangeProfile out;
  const auto metrics = chooseCounterMetrics(chip, availability, why);
  if (!metrics) return std::nullopt;
  out.metrics = *metrics;
  const std::vector<std::string> names = metrics->names();
  const std::vector<uint8_t> config = counterConfigImage(chip, availability, names, why);
  if (config.empty()) return std::nullopt;

  if (failed(session.enable(ctx), "cuptiRangeProfilerEnable", why)) return std::nullopt;
  std::vector<uint8_t> data = counterDataImage(session.range(), names, max_ranges, why);
  if (data.empty() || !configure(session.range(), config, data, max_ranges, why)) return std::nullopt;
  if (!runOnePass(session.range(), forward, why)) return std::nullopt;
  const std::optional<size_t> ranges = decodeRanges(session.range(), data, max_ranges, why);
  if (!ranges) return std::nullopt;
  std::vector<std::vector<double>> values =
      evaluateCounterData(chip, availability, names, data, *ranges, why);
  if (values.size() != *ranges) return std::nullopt;
  for (size_t i = 0; i < values.size(); ++i) out.ranges.push_back({rangeName(data, i), std::move(values[i])});
  return out;
}

}  // namespace fuselab::cupti
