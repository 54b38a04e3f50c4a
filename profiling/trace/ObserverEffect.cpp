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
  j["unprofiled_blocks_before"] = e.unprofiled_blocks_before;
  auto& steps = j["profiled_step_ns"] = nlohmann::ordered_json::array();
  for (double ns : e.profiled_step_ns) steps.push_back(std::llround(ns));
  auto& fields = trace.meta.extra_fields;
  for (auto& [key, raw] : fields)
    if (key == kObserverEffectField) {
      raw = j.dump();
      return;
    }
  fields.emplace_back(std::string(kObserverEffectField), j.dump());
}

namespace {

// The list `name` of positive times; empty when absent or malformed (a bad
// list says nothing about the spread, and the figures stand without it).
std::vector<double> positiveTimes(const nlohmann::json& j, const char* name) {
  std::vector<double> out;
  const auto it = j.find(name);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& ns : *it) {
    if (!ns.is_number() || !std::isfinite(ns.get<double>()) || ns.get<double>() <= 0) return {};
    out.push_back(ns.get<double>());
  }
  return out;
}

double spreadOf(const std::vector<double>& times) {
  if (times.size() < 2) return 1;
  const auto [lo, hi] = std::minmax_element(times.begin(), times.end());
  return *hi / *lo;
}

// "3 unprofiled blocks 10.0 us to 13.1 us"; empty for fewer than two.
std::string rangeText(const std::vector<double>& times, const std::string& what) {
  if (times.size() < 2) return "";
  const auto [lo, hi] = std::minmax_element(times.begin(), times.end());
  return std::to_string(times.size()) + " " + what + " " + formatDuration(std::llround(*lo)) + " to " +
         formatDuration(std::llround(*hi));
}

}  // namespace

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
    e.unprofiled_block_ns = positiveTimes(j, "unprofiled_block_ns");
    e.profiled_step_ns = positiveTimes(j, "profiled_step_ns");
    const double before = number("unprofiled_blocks_before").value_or(0);
    if (before <= double(e.unprofiled_block_ns.size())) e.unprofiled_blocks_before = static_cast<int>(before);
    return e;
  }
  return std::nullopt;
}

std::vector<double> ObserverEffect::unprofiledBlocksAfter() const {
  const size_t before = std::min(size_t(std::max(unprofiled_blocks_before, 0)), unprofiled_block_ns.size());
  return {unprofiled_block_ns.begin() + std::ptrdiff_t(before), unprofiled_block_ns.end()};
}

double ObserverEffect::unprofiledSpread() const { return spreadOf(unprofiledBlocksAfter()); }
double ObserverEffect::profiledSpread() const { return spreadOf(profiled_step_ns); }

std::string describeObserverEffect(const ObserverEffect& e) {
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2fx", e.ratio());
  const std::string figures = formatDuration(std::llround(e.profiled_ns_per_step)) + " vs " +
                              formatDuration(std::llround(e.unprofiled_ns_per_step)) + " per step";
  std::string ranges = rangeText(e.unprofiledBlocksAfter(), "unprofiled blocks after recording");
  if (const std::string steps = rangeText(e.profiled_step_ns, "profiled forwards"); !steps.empty())
    ranges += (ranges.empty() ? "" : ", ") + steps;
  if (e.withinNoise()) {
    if (e.ratio() <= 1) return "within this machine's noise: the profiled steps were no slower than unprofiled (" + figures + ")";
    return "within this machine's noise: " + std::string(ratio) + " (" + figures +
           "), no more than repeated timings of the same forwards varied (" + ranges + ")";
  }
  if (ranges.empty()) return "this capture ran " + std::string(ratio) + " slower than unprofiled (" + figures + ")";
  return "this capture ran " + std::string(ratio) + " slower than unprofiled (" + figures + "; " + ranges + ")";
}

}  // namespace fuselab
