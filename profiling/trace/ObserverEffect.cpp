#include "profiling/trace/ObserverEffect.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "profiling/trace/DurationText.h"

namespace fuselab {

void setObserverEffect(Trace& trace, const ObserverEffect& e) {
  nlohmann::ordered_json j;
  j["unprofiled_ns_per_step"] = std::llround(e.unprofiled_ns_per_step);
  j["profiled_ns_per_step"] = std::llround(e.profiled_ns_per_step);
  j["unprofiled_steps"] = e.unprofiled_steps;
  auto& blocks = j["unprofiled_block_ns"] = nlohmann::ordered_json::array();
  for (double ns : e.unprofiled_block_ns) blocks.push_back(std::llround(ns));
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
    if (auto it = j.find("unprofiled_block_ns"); it != j.end() && it->is_array()) {
      for (const auto& ns : *it) {
        if (!ns.is_number() || !std::isfinite(ns.get<double>()) || ns.get<double>() <= 0) {
          e.unprofiled_block_ns.clear();  // a malformed list says nothing about the spread
          break;
        }
        e.unprofiled_block_ns.push_back(ns.get<double>());
      }
    }
    return e;
  }
  return std::nullopt;
}

double ObserverEffect::unprofiledSpread() const {
  if (unprofiled_block_ns.size() < 2) return 1;
  const auto [lo, hi] = std::minmax_element(unprofiled_block_ns.begin(), unprofiled_block_ns.end());
  return *hi / *lo;
}

std::string describeObserverEffect(const ObserverEffect& e) {
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2fx", e.ratio());
  std::string blocks;
  if (e.unprofiled_block_ns.size() >= 2) {
    const auto [lo, hi] = std::minmax_element(e.unprofiled_block_ns.begin(), e.unprofiled_block_ns.end());
    blocks = std::to_string(e.unprofiled_block_ns.size()) + " unprofiled blocks " +
             formatDuration(std::llround(*lo)) + " to " + formatDuration(std::llround(*hi)) + " per step";
  }
  const std::string profiled = formatDuration(std::llround(e.profiled_ns_per_step));
  if (e.withinNoise()) {
    if (blocks.empty())
      return "within this machine's noise: the profiled steps (" + profiled + ") were no slower than unprofiled (" +
             formatDuration(std::llround(e.unprofiled_ns_per_step)) + " per step)";
    return "within this machine's noise: the profiled steps (" + profiled + " per step) were no slower than the " +
           "slowest of " + blocks;
  }
  const std::string figures = profiled + " vs " + formatDuration(std::llround(e.unprofiled_ns_per_step)) + " per step";
  if (blocks.empty()) return "this capture ran " + std::string(ratio) + " slower than unprofiled (" + figures + ")";
  return "this capture ran " + std::string(ratio) + " slower than unprofiled (" + figures + "; " + blocks + ")";
}

}  // namespace fuselab
