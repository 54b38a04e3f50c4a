#include "profiling/trace/MeasuredCounters.h"

#include <cmath>
#include <cstdio>

#include "profiling/trace/TraceArgs.h"

namespace fuselab {

namespace {

// JSON has no NaN or infinity: such a value is left out.
void appendField(std::string& out, std::string_view key, std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return;
  char number[64];
  std::snprintf(number, sizeof number, "%.17g", *value);
  if (out.size() > 1) out += ", ";
  out += '"';
  out += key;
  out += "\": ";
  out += number;
}

std::string_view trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

}  // namespace

MeasuredCounters measuredCountersOf(std::string_view args_json) {
  MeasuredCounters c;
  // Most events carry none: a substring test spares them the parse.
  if (args_json.find(kMeasuredKeySuffix) == std::string_view::npos) return c;
  c.dram_bytes = argNumber(args_json, kArgDramBytesMeasured);
  c.tensor_active_pct = argNumber(args_json, kArgTensorActiveMeasured);
  return c;
}

MeasuredCounters measuredCountersOf(const Trace& trace, EventRef event) {
  return measuredCountersOf(trace.argsJson(trace.tracks[event.track].args[event.index]));
}

std::string withMeasuredCounters(std::string_view args_json, const MeasuredCounters& counters) {
  const std::string_view body = trimmed(args_json);
  if (!body.empty() && (body.front() != '{' || body.back() != '}')) return std::string(args_json);
  std::string added = "{";
  appendField(added, kArgDramBytesMeasured, counters.dram_bytes);
  appendField(added, kArgTensorActiveMeasured, counters.tensor_active_pct);
  if (added.size() == 1) return std::string(args_json);
  const std::string_view inner = trimmed(body.empty() ? std::string_view() : body.substr(1, body.size() - 2));
  if (inner.empty()) return added + "}";
  return std::string(body.substr(0, body.size() - 1)) + ", " + added.substr(1) + "}";
}

}  // namespace fuselab
