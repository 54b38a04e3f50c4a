// Names of the CUDA runtime and driver calls CUPTI reports (by callback id),
// and which of them fuselab records: noise such as cudaGetDevice is switched
// off at the source, driver launch calls are kept even when the rest of the
// driver API is off (cuBLAS launches its GEMMs with cuLaunchKernelEx).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fuselab::cupti {

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel" (CUPTI's version suffix).
// Driver names keep their own suffixes ("cuMemcpyHtoD_v2" is the real symbol).
std::string_view withoutVersionSuffix(std::string_view cupti_name);
// The call without the per-thread-stream variant: "cudaMemsetAsync_ptsz" -> "cudaMemsetAsync".
std::string_view baseCallName(std::string_view display_name);

// Queries, getters and error checks that ATen makes around almost every op;
// they carry no work and would bury the launches (DESIGN: cudaGetDevice made
// 304 of 562 records).
bool isNoisyRuntimeCall(std::string_view display_name);
bool isNoisyDriverCall(std::string_view display_name);
// Driver calls that put work on a stream (kernels, graphs).
bool isDriverLaunchCall(std::string_view display_name);

enum class ApiDomain : uint8_t { Runtime, Driver };

// Callback id -> display name and classification, read once from CUPTI.
class ApiTable {
 public:
  static const ApiTable& instance();

  std::string_view name(ApiDomain domain, uint32_t cbid) const;  // "" if unknown
  bool isNoisy(ApiDomain domain, uint32_t cbid) const;
  bool isDriverLaunch(uint32_t cbid) const;
  std::vector<uint32_t> noisyIds(ApiDomain domain) const;
  std::vector<uint32_t> quietIds(ApiDomain domain) const;  // every known call but the noisy ones
  std::vector<uint32_t> driverLaunchIds() const;
  std::vector<uint32_t> driverIdsExceptLaunches() const;  // every known driver call but the launches

 private:
  ApiTable();
  struct Entry {
    std::string name;
    bool noisy = false;
    bool launch = false;
  };
  const std::vector<Entry>& entries(ApiDomain d) const { return d == ApiDomain::Runtime ? runtime_ : driver_; }
  std::vector<Entry> runtime_;
  std::vector<Entry> driver_;
};

}  // namespace fuselab::cupti
