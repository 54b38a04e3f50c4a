// Memory from traces: a real torch.profiler trace (make_memory_trace.py, the
// venv's torch on the CPU) gives per-op memory equal to key_averages() for
// every key and its peak; hand-made events check the bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include <nlohmann/json.hpp>

#include "profiling/trace/MemoryEvents.h"
#include "profiling/analysis/memory/MemorySummary.h"
#include "profiling/analysis/memory/OpMemory.h"
#include "profiling/analysis/single/Analysis.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "tests/support/RunPython.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

constexpr int kNoTorchExit = 3;

struct Bytes {
  int64_t cpu = 0, self_cpu = 0, device = 0, self_device = 0;
  bool operator==(const Bytes&) const = default;
};

std::ostream& operator<<(std::ostream& o, const Bytes& b) {
  return o << "{cpu " << b.cpu << ", self_cpu " << b.self_cpu << ", device " << b.device << ", self_device "
           << b.self_device << "}";
}

// key_averages() keys: ProfilerStep#3 -> ProfilerStep* (torch's _rewrite_name).
std::string torchKey(std::string_view name) {
  return std::regex_replace(std::string(name), std::regex("^ProfilerStep#\\d+$"), "ProfilerStep*");
}

class TorchMemory : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::filesystem::path(test::scratchDir("TorchMemory-" + std::to_string(::getpid())));
    result_ = new test::PythonResult(
        test::runPython("tests/profiling/analysis/make_memory_trace.py", {dir_->string()}, /*with_stderr=*/true));
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
    delete result_;
  }
  void SetUp() override {
    if (result_->exit_code == kNoTorchExit) GTEST_SKIP() << "torch is not available:\n" << result_->output;
    ASSERT_EQ(result_->exit_code, 0) << "make_memory_trace.py failed:\n" << result_->output;
    trace_ = importChromeTrace(*dir_ / "memory.json");
    std::ifstream in(*dir_ / "torch_memory.json");
    torch_ = nlohmann::json::parse(in);
  }
  static std::filesystem::path* dir_;
  static test::PythonResult* result_;
  Trace trace_;
  nlohmann::json torch_;
};
std::filesystem::path* TorchMemory::dir_ = nullptr;
test::PythonResult* TorchMemory::result_ = nullptr;

TEST_F(TorchMemory, PerOpMemoryEqualsKeyAverages) {
  const MemoryEvents memory = readMemoryEvents(trace_);
  ASSERT_GT(memory.events.size(), 50u);
  EXPECT_TRUE(memory.out_of_memory.empty());
  const OpMemory ops = opMemory(trace_, memory);
  std::map<std::string, Bytes> ours;
  for (uint32_t ti = 0; ti < trace_.tracks.size(); ++ti) {
    if (ops.per_track[ti].empty()) continue;
    for (uint32_t i = 0; i < trace_.tracks[ti].size(); ++i) {
      const OpMemoryBytes& m = ops.per_track[ti][i];
      if (!m.counted) continue;
      Bytes& b = ours[torchKey(trace_.name({ti, i}))];
      b.cpu += m.cpu, b.self_cpu += m.self_cpu, b.device += m.device, b.self_device += m.self_device;
    }
  }
  if (ops.unattributed_events) ours["[memory]"] = {ops.unattributed_cpu, ops.unattributed_cpu, 0, 0};
  std::map<std::string, Bytes> theirs;
  for (const auto& [key, row] : torch_["ops"].items())
    theirs[key] = {row["cpu_memory_bytes"], row["self_cpu_memory_bytes"], row["device_memory_bytes"],
                   row["self_device_memory_bytes"]};
  size_t with_memory = 0;
  for (const auto& [key, b] : theirs) {
    if (b == Bytes{}) continue;
    ++with_memory;
    EXPECT_EQ(ours[key], b) << key;
  }
  for (const auto& [key, b] : ours)
    if (!(b == Bytes{})) EXPECT_EQ(theirs[key], b) << key << " (only ours has memory)";
  EXPECT_GE(with_memory, 15u);
  // The nested "forward" of the same name is merged, as torch merges it.
  EXPECT_EQ(theirs.count("forward"), 1u);
}

TEST_F(TorchMemory, OpsTableAndSummaryMatchTorch) {
  const TraceAnalysis a = analyzeTrace(trace_);
  const CpuOpRow* mm = nullptr;
  for (const CpuOpRow& r : a.cpu_ops)
    if (r.name == "aten::mm") mm = &r;
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->cpu_memory_bytes, torch_["ops"]["aten::mm"]["cpu_memory_bytes"].get<int64_t>());
  EXPECT_EQ(mm->self_cpu_memory_bytes, torch_["ops"]["aten::mm"]["self_cpu_memory_bytes"].get<int64_t>());

  ASSERT_EQ(a.memory.devices.size(), 1u);
  const DeviceMemory& cpu = a.memory.devices[0];
  EXPECT_EQ(cpu.device, "cpu");
  EXPECT_EQ(cpu.peak_allocated_bytes, torch_["peak_allocated"].get<int64_t>());
  ASSERT_TRUE(cpu.peak_op.has_value());
  ASSERT_FALSE(cpu.peak_stack.empty());
  EXPECT_EQ(cpu.peak_stack.back(), *cpu.peak_op);
  EXPECT_EQ(cpu.allocations + cpu.frees, readMemoryEvents(trace_).events.size());
  EXPECT_GT(cpu.frees, 0u);
  EXPECT_TRUE(a.memory.warnings.empty());
}

Trace traceOf(const std::string& events) {
  return importChromeTraceFromBuffer(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 10, "dur": 10},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 30, "dur": 10})" +
                                         events + "]}",
                                     "memory-test");
}

std::string memoryEvent(int ts, const std::string& args) {
  return R"(, {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": )" +
         std::to_string(ts) + R"(, "args": {)" + args + "}}";
}

TEST(MemoryEvents, BadFieldsAreNamedNotDropped) {
  const Trace t = traceOf(
      memoryEvent(12, R"("Device Type": 1, "Device Id": 0, "Addr": 16, "Bytes": 512, "Total Allocated": 512, "Total Reserved": 2048)") +
      memoryEvent(14, R"("Device Type": 1, "Device Id": 0, "Addr": 32)") +
      memoryEvent(15, R"("Device Type": 1, "Device Id": 0, "Addr": 32, "Bytes": "many")") +
      memoryEvent(32, R"("Device Type": 1, "Device Id": 0, "Addr": 99, "Bytes": -256, "Total Allocated": -5, "Total Reserved": 2048)") +
      R"(, {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[OutOfMemory]", "pid": 1, "tid": 1, "ts": 35,
            "args": {"Device Type": 1, "Device Id": 0, "Bytes": 1073741824, "Total Allocated": 512, "Total Reserved": 2048}})");
  const MemoryEvents m = readMemoryEvents(t);
  ASSERT_EQ(m.events.size(), 2u);
  ASSERT_EQ(m.out_of_memory.size(), 1u);
  auto named = [&](std::string_view what) {
    for (const std::string& w : m.warnings)
      if (w.find(what) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(named("lack 'Bytes' (skipped)"));
  EXPECT_TRUE(named("non-numeric 'Bytes'"));
  EXPECT_TRUE(named("never saw allocated"));
  EXPECT_TRUE(named("negative 'Total Allocated'"));
  EXPECT_TRUE(named("out of memory on cuda:0"));

  const TraceAnalysis a = analyzeTrace(t);
  ASSERT_EQ(a.memory.devices.size(), 1u);
  const DeviceMemory& d = a.memory.devices[0];
  EXPECT_EQ(d.device, "cuda:0");
  EXPECT_EQ(d.peak_allocated_bytes, 512);
  EXPECT_EQ(d.peak_reserved_bytes, 2048);
  ASSERT_TRUE(d.peak_op.has_value());
  EXPECT_EQ(t.name(*d.peak_op), "aten::empty");
  ASSERT_EQ(d.out_of_memory.size(), 1u);
  ASSERT_TRUE(d.out_of_memory[0].op.has_value());
  EXPECT_EQ(t.name(*d.out_of_memory[0].op), "aten::add");
  for (const CpuOpRow& r : a.cpu_ops) {
    if (r.name == "aten::empty") EXPECT_EQ(r.self_device_memory_bytes, 512);
    if (r.name == "aten::add") EXPECT_EQ(r.device_memory_bytes, -256);
  }
}

TEST(MemoryEvents, NoneInATraceWithout) {
  const Trace t = traceOf("");
  EXPECT_TRUE(readMemoryEvents(t).empty());
  EXPECT_TRUE(analyzeTrace(t).memory.empty());
}

}  // namespace
}  // namespace fuselab
