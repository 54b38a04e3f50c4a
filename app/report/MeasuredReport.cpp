#include "app/report/MeasuredReport.h"

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "profiling/trace/MeasuredCounters.h"
#include "profiling/trace/MemoryBudget.h"

namespace fuselab {

namespace {

nlohmann::ordered_json orNull(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

}  // namespace

nlohmann::ordered_json measuredFieldsJson(const KernelRow& row) {
  return {{"measured_calls", row.measured.calls},
          {"measured_bytes_per_call", orNull(row.measured.bytes_per_call)},
          {"model_bytes_per_call", orNull(row.modelBytesPerCall())},
          {"tensor_active_pct", orNull(row.measured.tensor_active_pct)}};
}

void addMeasuredOpFields(nlohmann::ordered_json& row, const Trace& trace, EventRef op) {
  const MeasuredCounters c = measuredCountersOf(trace, op);
  if (c.empty()) return;
  row["measured_bytes"] = orNull(c.dram_bytes);
  row["tensor_active_pct"] = orNull(c.tensor_active_pct);
}

void writeMeasuredText(std::ostream& out, const TraceAnalysis& a, size_t top) {
  if (!anyMeasuredFigures(a.kernels)) return;
  out << "Measured hardware counters (capture --counters, per call; the model from shapes beside them):\n";
  size_t shown = 0;
  for (const KernelRow& k : a.kernels) {
    if (k.measured.calls == 0) continue;
    if (shown++ == top) break;
    const auto model = k.modelBytesPerCall();
    const auto measured = k.measured.bytes_per_call;
    out << "  " << k.name.substr(0, 60) << "\n    DRAM bytes: measured "
        << (measured ? formatBytes(uint64_t(std::llround(*measured))) : "-") << ", model " << (model ? formatBytes(uint64_t(std::llround(*model))) : "unknown");
    if (model && measured && *model > 0) {
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, "%.2fx", *measured / *model);
      out << " (measured/model " << ratio << ")";
    }
    out << "; tensor pipe active ";
    if (k.measured.tensor_active_pct) {
      char pct[32];
      std::snprintf(pct, sizeof pct, "%.1f%%", *k.measured.tensor_active_pct);
      out << pct;
    } else {
      out << "-";
    }
    out << "\n";
  }
  out << "\n";
}

}  // namespace fuselab
