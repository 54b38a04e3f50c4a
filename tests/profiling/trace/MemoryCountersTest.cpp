// Export keeps torch's [memory] instants and adds a counter per device
// (allocated, reserved) for Perfetto and chrome://tracing; the counters are
// written afresh on each export, never doubled, and the trace reads back the same.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "profiling/trace/ChromeTraceExport.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/MemoryEvents.h"

namespace fuselab {
namespace {

Trace withMemory() {
  return importChromeTraceFromBuffer(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 5, "tid": 5, "ts": 10, "dur": 10},
    {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 5, "tid": 5, "ts": 12,
     "args": {"Device Type": 1, "Device Id": 0, "Addr": 16, "Bytes": 512, "Total Allocated": 512, "Total Reserved": 2048}},
    {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 5, "tid": 5, "ts": 15,
     "args": {"Device Type": 0, "Device Id": -1, "Addr": 32, "Bytes": 64, "Total Allocated": 64, "Total Reserved": 0}},
    {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 5, "tid": 5, "ts": 18,
     "args": {"Device Type": 1, "Device Id": 0, "Addr": 16, "Bytes": -512, "Total Allocated": 0, "Total Reserved": 2048}}]})",
                                     "memory");
}

size_t countersIn(const std::string& text, const std::string& name) {
  size_t n = 0;
  const nlohmann::json doc = nlohmann::json::parse(text);
  for (const auto& e : doc["traceEvents"])
    if (e.value("ph", "") == "C" && e.value("name", "") == name) ++n;
  return n;
}

TEST(MemoryCounters, ExportAddsOneSeriesPerDevice) {
  const Trace t = withMemory();
  const std::string text = exportChromeTraceToString(t);
  EXPECT_EQ(countersIn(text, "Memory (cuda:0)"), 2u);
  EXPECT_EQ(countersIn(text, "Memory (cpu)"), 1u);
  const auto events = nlohmann::json::parse(text)["traceEvents"];
  size_t instants = 0;
  for (const auto& e : events) {
    if (e.value("name", "") == "[memory]") ++instants;
    if (e.value("name", "") == "Memory (cuda:0)" && e["args"]["Allocated"] == 512) {
      EXPECT_EQ(e["args"]["Reserved"], 2048);
      EXPECT_EQ(e["pid"], 5);
    }
  }
  EXPECT_EQ(instants, 3u);  // torch-based tools read these

  const Trace back = importChromeTraceFromBuffer(text, "back");
  std::string why;
  EXPECT_TRUE(t.sameContentAs(back, &why)) << why;
  EXPECT_EQ(countersIn(exportChromeTraceToString(back), "Memory (cuda:0)"), 2u);  // not doubled
  EXPECT_EQ(readMemoryEvents(back).events.size(), 3u);
}

}  // namespace
}  // namespace fuselab
