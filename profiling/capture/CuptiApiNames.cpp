#include "profiling/capture/CuptiApiNames.h"

#include <cupti.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace fuselab::cupti {

namespace {

bool endsWithVersion(std::string_view s, size_t min_digits, size_t* cut) {
  size_t i = s.size();
  while (i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1]))) --i;
  size_t digits = s.size() - i;
  if (digits < min_digits || i < 2 || s[i - 1] != 'v' || s[i - 2] != '_') return false;
  *cut = i - 2;
  return true;
}

bool endsWith(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// Base names (no _ptsz/_ptds, no _vN), compared after baseCallName().
constexpr std::array kNoisyRuntime = {
    std::string_view("cudaGetDevice"),
    std::string_view("cudaGetDeviceCount"),
    std::string_view("cudaGetDeviceProperties"),
    std::string_view("cudaDeviceGetAttribute"),
    std::string_view("cudaGetLastError"),
    std::string_view("cudaPeekAtLastError"),
    std::string_view("cudaDriverGetVersion"),
    std::string_view("cudaRuntimeGetVersion"),
    std::string_view("cudaStreamIsCapturing"),
    std::string_view("cudaStreamGetCaptureInfo"),
    std::string_view("cudaThreadExchangeStreamCaptureMode"),
    std::string_view("cudaStreamGetId"),
    std::string_view("cudaStreamGetDevice"),
    std::string_view("cudaStreamGetPriority"),
    std::string_view("cudaPointerGetAttributes"),
    std::string_view("cudaFuncGetAttributes"),
    std::string_view("cudaFuncGetName"),
    std::string_view("cudaGetFuncBySymbol"),
    std::string_view("cudaGetKernel"),
    std::string_view("__cudaGetKernel"),
    std::string_view("cudaGetDriverEntryPoint"),
    std::string_view("cudaGetDriverEntryPointByVersion"),
    std::string_view("cudaGetExportTable"),
};

constexpr std::array kNoisyDriver = {
    std::string_view("cuCtxGetCurrent"),
    std::string_view("cuCtxSetCurrent"),
    std::string_view("cuCtxPushCurrent"),
    std::string_view("cuCtxPopCurrent"),
    std::string_view("cuCtxGetDevice"),
    std::string_view("cuCtxGetId"),
    std::string_view("cuCtxGetStreamPriorityRange"),
    std::string_view("cuDeviceGet"),
    std::string_view("cuDeviceGetCount"),
    std::string_view("cuDeviceGetAttribute"),
    std::string_view("cuDeviceGetName"),
    std::string_view("cuDevicePrimaryCtxGetState"),
    std::string_view("cuDriverGetVersion"),
    std::string_view("cuGetProcAddress"),
    std::string_view("cuGetErrorString"),
    std::string_view("cuGetErrorName"),
    std::string_view("cuGetExportTable"),
    std::string_view("cuPointerGetAttribute"),
    std::string_view("cuPointerGetAttributes"),
    std::string_view("cuStreamIsCapturing"),
    std::string_view("cuStreamGetCaptureInfo"),
    std::string_view("cuStreamGetCtx"),
    std::string_view("cuStreamGetId"),
    std::string_view("cuStreamGetDevice"),
    std::string_view("cuStreamGetPriority"),
    std::string_view("cuThreadExchangeStreamCaptureMode"),
    std::string_view("cuFuncGetAttribute"),
    std::string_view("cuFuncGetName"),
    std::string_view("cuKernelGetAttribute"),
    std::string_view("cuKernelGetName"),
};

constexpr std::array kDriverLaunch = {
    std::string_view("cuLaunchKernel"),
    std::string_view("cuLaunchKernelEx"),
    std::string_view("cuLaunchCooperativeKernel"),
    std::string_view("cuLaunchCooperativeKernelMultiDevice"),
    std::string_view("cuGraphLaunch"),
};

template <size_t N>
bool contains(const std::array<std::string_view, N>& list, std::string_view name) {
  return std::find(list.begin(), list.end(), baseCallName(name)) != list.end();
}

}  // namespace

std::string_view withoutVersionSuffix(std::string_view cupti_name) {
  size_t cut = 0;
  // CUPTI appends the CUDA version that introduced the entry point: _v3020, _v11060.
  if (endsWithVersion(cupti_name, 4, &cut)) return cupti_name.substr(0, cut);
  return cupti_name;
}

std::string_view baseCallName(std::string_view name) {
  for (bool changed = true; changed;) {
    changed = false;
    for (std::string_view tail : {std::string_view("_ptsz"), std::string_view("_ptds")})
      if (endsWith(name, tail)) name.remove_suffix(tail.size()), changed = true;
    size_t cut = 0;
    if (endsWithVersion(name, 1, &cut)) name = name.substr(0, cut), changed = true;
  }
  return name;
}

bool isNoisyRuntimeCall(std::string_view name) { return contains(kNoisyRuntime, name); }
bool isNoisyDriverCall(std::string_view name) { return contains(kNoisyDriver, name); }
bool isDriverLaunchCall(std::string_view name) { return contains(kDriverLaunch, name); }

const ApiTable& ApiTable::instance() {
  static const ApiTable table;
  return table;
}

ApiTable::ApiTable() {
  auto fill = [](CUpti_CallbackDomain domain, uint32_t size, std::vector<Entry>& out, bool driver) {
    out.resize(size);
    for (uint32_t cbid = 1; cbid < size; ++cbid) {
      const char* raw = nullptr;
      if (cuptiGetCallbackName(domain, cbid, &raw) != CUPTI_SUCCESS || !raw) continue;
      Entry& e = out[cbid];
      e.name = std::string(driver ? std::string_view(raw) : withoutVersionSuffix(raw));
      e.noisy = driver ? isNoisyDriverCall(e.name) : isNoisyRuntimeCall(e.name);
      e.launch = driver && isDriverLaunchCall(e.name);
    }
  };
  fill(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, runtime_, false);
  fill(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, driver_, true);
}

std::string_view ApiTable::name(ApiDomain d, uint32_t cbid) const {
  const auto& e = entries(d);
  return cbid < e.size() ? std::string_view(e[cbid].name) : std::string_view();
}

bool ApiTable::isNoisy(ApiDomain d, uint32_t cbid) const {
  const auto& e = entries(d);
  return cbid < e.size() && e[cbid].noisy;
}

bool ApiTable::isDriverLaunch(uint32_t cbid) const { return cbid < driver_.size() && driver_[cbid].launch; }

std::vector<uint32_t> ApiTable::noisyIds(ApiDomain d) const {
  std::vector<uint32_t> ids;
  const auto& e = entries(d);
  for (uint32_t i = 0; i < e.size(); ++i)
    if (e[i].noisy) ids.push_back(i);
  return ids;
}

std::vector<uint32_t> ApiTable::quietIds(ApiDomain d) const {
  std::vector<uint32_t> ids;
  const auto& e = entries(d);
  for (uint32_t i = 1; i < e.size(); ++i)
    if (!e[i].name.empty() && !e[i].noisy) ids.push_back(i);
  return ids;
}

std::vector<uint32_t> ApiTable::driverLaunchIds() const {
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < driver_.size(); ++i)
    if (driver_[i].launch) ids.push_back(i);
  return ids;
}

std::vector<uint32_t> ApiTable::driverIdsExceptLaunches() const {
  std::vector<uint32_t> ids;
  for (uint32_t i = 1; i < driver_.size(); ++i)
    if (!driver_[i].name.empty() && !driver_[i].launch) ids.push_back(i);
  return ids;
}

}  // namespace fuselab::cupti
