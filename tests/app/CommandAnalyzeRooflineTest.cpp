// The roofline in `fuselab analyze`: JSON fields per kernel name, per step
// and per GPU op, `ceilings` published or measured (from the settings), and
// the text section; `fuselab ceilings` without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "app/capture/GpuProbe.h"
#include "app/Settings.h"
#include "tests/app/CliRun.h"
#include "tests/app/ScopedConfigHome.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

using test::runFuselab;

const std::string kMlp = test::fixture("mlp_eager.json.gz").string();

const char* kFields[] = {"flops", "bytes", "intensity", "achieved_tflops", "achieved_gbps", "speed_of_light", "bound"};

TEST(CommandAnalyzeRoofline, JsonFieldsWithPublishedCeilings) {
  test::ScopedConfigHome home("AnalyzeRoofline.Published");
  auto r = runFuselab({"analyze", kMlp, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["ceilings"].is_object());
  EXPECT_EQ(j["ceilings"]["source"], "published");
  EXPECT_EQ(j["ceilings"]["gpu"], "NVIDIA H100 80GB HBM3");
  EXPECT_DOUBLE_EQ(j["ceilings"]["values"]["bf16_tflops"].get<double>(), 989.4);
  EXPECT_DOUBLE_EQ(j["ceilings"]["values"]["copy_gbps"].get<double>(), 3350);
  bool saw_gemm = false;
  for (const auto& k : j["kernels"]) {
    for (const char* f : kFields) EXPECT_TRUE(k.contains(f)) << f << " in " << k["name"];
    if (k["name"].get<std::string>().starts_with("nvjet_sm90_tst_256x128")) {
      saw_gemm = true;
      EXPECT_DOUBLE_EQ(k["flops"].get<double>(), k["count"].get<double>() * 2.0 * 8192 * 768 * 3072);
      EXPECT_EQ(k["bound"], "compute");
      // 2MNK / (MK + KN + MN) / 2 bytes for the up projection.
      EXPECT_NEAR(k["intensity"].get<double>(),
                  2.0 * 8192 * 768 * 3072 / ((8192.0 * 768 + 768.0 * 3072 + 8192.0 * 3072) * 2), 1e-9);
    }
  }
  EXPECT_TRUE(saw_gemm);
  for (const auto& s : j["steps"])
    for (const char* f : kFields) EXPECT_TRUE(s["roofline"].contains(f)) << f;
  ASSERT_TRUE(j["roofline"].is_object());
  EXPECT_EQ(j["roofline"]["gpu_ops"].size(), j["counts"]["gpu_ops"].get<size_t>());
  for (const char* f : kFields) EXPECT_TRUE(j["roofline"]["total"].contains(f)) << f;
}

TEST(CommandAnalyzeRoofline, MeasuredCeilingsFromTheSettingsWin) {
  test::ScopedConfigHome home("AnalyzeRoofline.Measured");
  Settings s;
  Ceilings c;
  c.gpu = "NVIDIA H100 80GB HBM3";
  c.bf16_tflops = 500;
  c.copy_gbps = 2000;
  s.setMeasuredCeilings(c);
  saveSettings(s, home.settingsFile());
  auto r = runFuselab({"analyze", kMlp, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ceilings"]["source"], "measured");
  EXPECT_DOUBLE_EQ(j["ceilings"]["values"]["bf16_tflops"].get<double>(), 500);
  // Each GEMM is compute-bound at 500 TFLOP/s: speed of light = FLOPs / 500e12 / duration.
  for (const auto& op : j["roofline"]["gpu_ops"]) {
    if (!op["name"].get<std::string>().starts_with("nvjet_sm90_tst_256x128")) continue;
    const double ideal_ns = 2.0 * 8192 * 768 * 3072 / 500e3;
    EXPECT_NEAR(op["speed_of_light"].get<double>(), ideal_ns / op["dur_ns"].get<double>(), 1e-9);
    EXPECT_EQ(op["source_op"], "aten::mm");
  }
}

TEST(CommandAnalyzeRoofline, UnknownWorkIsNullWithAReason) {
  test::ScopedConfigHome home("AnalyzeRoofline.Unknown");
  auto r = runFuselab({"analyze", test::fixture("multistream_memcpy.json.gz").string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  bool saw_unknown = false;
  for (const auto& op : j["roofline"]["gpu_ops"]) {
    if (!op["flops"].is_null()) continue;
    saw_unknown = true;
    EXPECT_EQ(op["bound"], "unknown");
    EXPECT_TRUE(op["speed_of_light"].is_null());
    EXPECT_FALSE(op["note"].get<std::string>().empty());
  }
  EXPECT_TRUE(saw_unknown);
}

TEST(CommandAnalyzeRoofline, TextSection) {
  test::ScopedConfigHome home("AnalyzeRoofline.Text");
  auto r = runFuselab({"analyze", kMlp});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* needle : {"Roofline: published ceilings for NVIDIA H100 80GB HBM3", "of speed of light", "SoL",
                             "compute"})
    EXPECT_NE(r.out.find(needle), std::string::npos) << needle << "\n" << r.out;
}

TEST(CommandCeilings, WithoutAGpuSaysSo) {
  if (nvidiaGpuVisible()) GTEST_SKIP() << "this machine has a GPU: the GPU test measures the ceilings";
  test::ScopedConfigHome home("Ceilings.NoGpu");
  auto r = runFuselab({"ceilings", "--json"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("no NVIDIA GPU"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(home.settingsFile()));
}

}  // namespace
}  // namespace fuselab
