#include "profiling/trace/ObserverEffect.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

#include "profiling/trace/DurationText.h"

namespace fuselab {

void setObserverEffect(Trace& trace, const ObserverEffect& e) {
  nlohmann::ordered_json j;
  j["unprofiled_ns_per_step"] = std::llround(e.unprofiled_ns_per_step);
  j["profiled_ns_per_step"] = std::llround(e.profiled_ns_per_step);
  j["unprofiled_steps"] = e.unprofiled_steps;
  auto& fields = trace.meta.extra_fields;
  for (auto& [key, raw] : fields)
    if (key == kObserverEffectField) {
      raw = j.dump();
      return;
    }
  fields.emplace_back(std::string(kObserverEffectField), j.dump());
}

std::optional<ObserverEffect> observerEffectOf(const Trace& trace) {
  for (const auto& [key, raw] : trace.meta.extra_fields) {
    if (key != kObserverEffectField) continue;
    const auto j = nlohmann::json::parse(raw, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) return std::nullopt;
    auto number = [&](const char* name) -> std::optional<double> {
      auto it = j.find(name);
      if (it == j.end() || !it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() <= 0)
        return std::nullopt;
      return it->get<double>();
    };
    const auto unprofiled = number("unprofiled_ns_per_step"), profiled = number("profiled_ns_per_step");
    if (!unprofiled || !profiled) return std::nullopt;
    ObserverEffect e;
    e.unprofiled_ns_per_step = *unprofiled;
    e.profiled_ns_per_step = *profiled;
    e.unprofiled_steps = static_cast<int>(number("unprofiled_steps").value_or(0));
    return e;
  }
  return std::nullopt;
}

std::string describeObserverEffect(const ObserverEffect& e) {
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2fx", e.ratio());
  const std::string figures = formatDuration(std::llround(e.profiled_ns_per_step)) + " vs " +
                              formatDuration(std::llround(e.unprofiled_ns_per_step)) + " per step";
  if (e.ratio() < 1) return "this capture ran no slower than unprofiled (" + std::string(ratio) + ": " + figures + ")";
  return "this capture ran " + std::string(ratio) + " slower than unprofiled (" + figures + ")";
}

}  // namespace fuselab
