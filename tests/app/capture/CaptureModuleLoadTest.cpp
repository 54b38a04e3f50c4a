// The real capture module, opened by the app's loader: errors thrown inside
// it reach the app as the app's own exception types with their messages, and
// it captures a CPU workload.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "app/capture/CaptureModule.h"
#include "app/capture/WorkloadCapture.h"
#include "profiling/capture_api/WorkloadCatalog.h"

namespace fuselab {
namespace {

using ::testing::HasSubstr;

WorkloadParams smallCpuLinear() {
  WorkloadParams p = catalogWorkload("linear").defaults;
  p.device = Device::Cpu;
  p.dtype = DType::FP32;
  p.batch = 8;
  p.dim = 4;
  p.out = 6;
  return p;
}

bool moduleMapped() {
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  return text.str().find(kCaptureModuleFile) != std::string::npos;
}

TEST(CaptureModuleLoad, TheBackendComesFromTheModule) {
  CaptureBackend& backend = captureBackend();
  EXPECT_TRUE(captureModuleLoaded());
  EXPECT_TRUE(moduleMapped());
  EXPECT_EQ(&backend, &captureBackend()) << "loaded once";
  EXPECT_FALSE(backend.systemInfo().torch_version.empty());
}

TEST(CaptureModuleLoad, AWorkloadErrorThrownInsideReachesTheCallerAsWorkloadError) {
  WorkloadParams p = smallCpuLinear();
  p.batch = 0;
  try {
    captureBackend().makeWorkload(p);
    ADD_FAILURE() << "batch = 0 accepted";
  } catch (const WorkloadOutOfMemory& e) {
    ADD_FAILURE() << "caught as out of memory: " << e.what();
  } catch (const WorkloadError& e) {
    EXPECT_THAT(e.what(), HasSubstr("batch = 0"));
  }
  p = smallCpuLinear();
  p.variant = "no_such_variant";
  try {
    captureBackend().makeWorkload(p);
    ADD_FAILURE() << "unknown variant accepted";
  } catch (const WorkloadError& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown variant 'no_such_variant' for linear"));
  }
}

TEST(CaptureModuleLoad, ACaptureErrorThrownInsideReachesTheCallerAsCaptureError) {
  auto workload = captureBackend().makeWorkload(smallCpuLinear());
  CaptureOptions o;
  o.steps = 0;
  try {
    captureBackend().capture(captureTarget(*workload), o, nullptr);
    ADD_FAILURE() << "steps = 0 accepted";
  } catch (const CaptureUnavailable& e) {
    ADD_FAILURE() << "caught as a missing module: " << e.what();
  } catch (const CaptureError& e) {
    EXPECT_THAT(e.what(), HasSubstr("allowed 1 to 10000"));
  }
}

TEST(CaptureModuleLoad, CapturesACpuWorkload) {
  CaptureOptions o;
  o.warmup = 1;
  o.steps = 2;
  CaptureResult r = captureWorkload(smallCpuLinear(), o);
  EXPECT_TRUE(moduleMapped());
  EXPECT_EQ(r.steps_done, 2);
  EXPECT_FALSE(r.cancelled);
  EXPECT_FALSE(r.gpu_captured);
  size_t events = 0;
  for (const auto& t : r.trace.tracks) events += t.size();
  EXPECT_GT(events, 0u);
  EXPECT_THAT(r.trace.meta.trace_name, HasSubstr("nn.Linear"));
}

}  // namespace
}  // namespace fuselab
