#include "profiling/analysis/expectations/ExpectationsJson.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <regex>

namespace fuselab {

ExpectationKeys expectationKeys(ExpectationKind kind) {
  switch (kind) {
    case ExpectationKind::KernelsPerStep:
    case ExpectationKind::LaunchesPerStep: return {{"range"}, {"steps"}};
    case ExpectationKind::KernelNameMatches: return {{"pattern", "range"}, {"per", "steps"}};
    case ExpectationKind::GpuOpMatches: return {{"pattern", "range", "category"}, {"per", "steps"}};
    case ExpectationKind::NoKernelMatching: return {{"pattern"}, {}};
    case ExpectationKind::NoKernelUnderOp:
    case ExpectationKind::OpAbsent: return {{"ops"}, {}};
    case ExpectationKind::OpChain: return {{"ops"}, {"min", "max"}};
    case ExpectationKind::FirstStepLongerThanRest: return {{"factor"}, {"measure"}};
    case ExpectationKind::GpuUtilizationBelow:
    case ExpectationKind::GpuUtilizationAbove: return {{"value"}, {}};
    case ExpectationKind::VerdictIs: return {{"verdict"}, {}};
    case ExpectationKind::CpuTimeExceedsGpuTime:
    case ExpectationKind::GpuTimeReachesCpuTime: return {{"factor"}, {}};
    case ExpectationKind::DiagnosticPresent:
    case ExpectationKind::DiagnosticAbsent: return {{"diagnostic"}, {}};
    case ExpectationKind::KernelLaunchedVia: return {{"pattern", "apis"}, {}};
    case ExpectationKind::KernelDurationSpread:
    case ExpectationKind::KernelTimeShare: return {{"pattern", "range"}, {}};
    case ExpectationKind::FinalSyncGpuShare:
    case ExpectationKind::ObserverEffect: return {{"range"}, {}};
    case ExpectationKind::CriticalPathShare: return {{"path", "range"}, {"rank", "steps"}};
    case ExpectationKind::LateRankEveryStep: return {{"rank"}, {}};
    case ExpectationKind::CollectivesPerStep: return {{"range"}, {}};
    case ExpectationKind::FlameShareUnder: return {{"ops", "pattern", "range"}, {}};
    case ExpectationKind::PeakMemoryPerForward: return {{"range"}, {}};
  }
  return {};
}

namespace {

// Shares are fractions 0..1; counts, ratios and spreads (which may exceed
// 100%) are only non-negative.
bool boundsAreShares(ExpectationKind k) {
  return k == ExpectationKind::KernelTimeShare || k == ExpectationKind::FinalSyncGpuShare ||
         k == ExpectationKind::CriticalPathShare;
}

class Parser {
 public:
  Parser(const nlohmann::json& j, const std::string& where) : j_(j), where_(where) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw ExpectationParseError(where_ + (field.empty() ? "" : "." + field) + ": " + what);
  }

  static std::string shown(const nlohmann::json& v) {
    std::string s = v.dump();
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
  }

  bool has(const char* key) const { return j_.contains(key); }

  std::string string(const char* key) const {
    const auto& v = j_.at(key);
    if (!v.is_string()) fail(key, "expected a string, got " + shown(v));
    return v.get<std::string>();
  }

  double number(const char* key) const {
    const auto& v = j_.at(key);
    if (!v.is_number()) fail(key, "expected a number, got " + shown(v));
    double d = v.get<double>();
    if (!std::isfinite(d)) fail(key, "expected a finite number");
    return d;
  }

  // A string or an array of non-empty strings.
  std::vector<std::string> strings(const char* key) const {
    const auto& v = j_.at(key);
    std::vector<std::string> out;
    if (v.is_string()) {
      out.push_back(v.get<std::string>());
    } else if (v.is_array()) {
      for (size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_string())
          fail(std::string(key) + "[" + std::to_string(i) + "]", "expected a string, got " + shown(v[i]));
        out.push_back(v[i].get<std::string>());
      }
    } else {
      fail(key, "expected a string or an array of strings, got " + shown(v));
    }
    if (out.empty()) fail(key, "expected at least one name");
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i].empty()) fail(std::string(key) + "[" + std::to_string(i) + "]", "is empty");
    return out;
  }

  void checkRegex(const std::string& field, const std::string& re, bool icase) const {
    try {
      auto flags = std::regex::ECMAScript;
      if (icase) flags |= std::regex::icase;
      std::regex compiled(re, flags);
    } catch (const std::regex_error& e) {
      fail(field, "'" + re + "' is not a valid regular expression (" + e.what() + ")");
    }
  }

  template <typename Enum>
  Enum choice(const char* key, std::initializer_list<std::pair<std::string_view, Enum>> choices) const {
    const std::string s = string(key);
    std::string names;
    for (const auto& [n, v] : choices) {
      if (n == s) return v;
      names += (names.empty() ? "" : ", ") + std::string(n);
    }
    fail(key, "unknown value '" + s + "' (choose " + names + ")");
  }

 private:
  const nlohmann::json& j_;
  const std::string& where_;
};

std::optional<VerdictKind> parseVerdict(std::string_view s) {
  for (VerdictKind k : {VerdictKind::OverheadBound, VerdictKind::ComputeBound, VerdictKind::Mixed, VerdictKind::NoGpuWork})
    if (verdictName(k) == s) return k;
  return std::nullopt;
}

std::optional<PathKind> parsePathKind(std::string_view s) {
  for (size_t i = 0; i < kPathKinds; ++i)
    if (pathKindName(static_cast<PathKind>(i)) == s) return static_cast<PathKind>(i);
  return std::nullopt;
}

std::optional<DiagnosticKind> parseDiagnostic(std::string_view s) {
  for (DiagnosticKind k : {DiagnosticKind::ColdStart, DiagnosticKind::OccupancyQuery,
                           DiagnosticKind::UnrequestedDeviceCopy, DiagnosticKind::LongFinalSync})
    if (diagnosticName(k) == s) return k;
  return std::nullopt;
}

// The kind `kind_name` names; fails, listing the kinds, when none does.
ExpectationKind kindNamed(const Parser& p, const std::string& kind_name) {
  const auto kind = parseExpectationKind(kind_name);
  if (!kind) {
    std::string names;
    for (ExpectationKind k : allExpectationKinds()) names += (names.empty() ? "" : ", ") + std::string(expectationKindName(k));
    p.fail("kind", "unknown kind '" + kind_name + "' (choose " + names + ")");
  }
  return *kind;
}

// Every key must be known for this kind, and the ones it requires present.
void checkKeys(const Parser& p, const nlohmann::json& j, ExpectationKind kind, const std::string& kind_name) {
  const ExpectationKeys keys = expectationKeys(kind);
  auto allowed = [&](const std::string& key) {
    if (key == "kind" || key == "text" || key == "hint") return true;
    for (const auto* list : {&keys.required, &keys.optional})
      for (const auto& k : *list)
        if (k == key || (k == "range" && (key == "min" || key == "max"))) return true;
    return false;
  };
  for (const auto& [key, value] : j.items()) {
    (void)value;
    if (!allowed(key)) {
      std::string accepted = "kind, text, hint";
      for (const auto* list : {&keys.required, &keys.optional})
        for (const auto& k : *list) accepted += ", " + (k == "range" ? std::string("min, max") : k);
      p.fail(key, "not a parameter of " + kind_name + " (accepted: " + accepted + ")");
    }
  }
  for (const auto& k : keys.required) {
    if (k == "range") {
      if (!p.has("min") && !p.has("max")) p.fail("min", "missing: " + kind_name + " needs min, max or both");
    } else if (!p.has(k.c_str())) {
      p.fail(k, "missing (required by " + kind_name + ")");
    }
  }
}

// min and max: not negative, shares at most 1, min not above max.
void parseBounds(const Parser& p, const nlohmann::json& j, Expectation& e) {
  if (p.has("min")) e.min = p.number("min");
  if (p.has("max")) e.max = p.number("max");
  const bool shares = boundsAreShares(e.kind);
  for (const char* key : {"min", "max"}) {
    const auto& v = std::string(key) == "min" ? e.min : e.max;
    if (!v) continue;
    if (*v < 0) p.fail(key, "must not be negative");
    if (shares && *v > 1) p.fail(key, "is a share: expected 0 to 1, got " + Parser::shown(j.at(key)));
  }
  if (e.min && e.max && *e.min > *e.max) p.fail("min", "is larger than max");
}

// The parameters given as numbers, patterns and names, each checked.
void parseParameters(const Parser& p, Expectation& e) {
  if (p.has("factor")) {
    e.factor = p.number("factor");
    if (e.factor <= 0) p.fail("factor", "must be positive");
  }
  if (p.has("value")) {
    e.value = p.number("value");
    if (e.value < 0 || e.value > 1) p.fail("value", "is a utilization: expected 0 to 1");
  }
  if (p.has("pattern")) {
    e.pattern = p.string("pattern");
    if (e.pattern.empty()) p.fail("pattern", "is empty");
    p.checkRegex("pattern", e.pattern, true);
  }
  if (p.has("ops")) {
    e.ops = p.strings("ops");
    for (size_t i = 0; i < e.ops.size(); ++i) p.checkRegex("ops[" + std::to_string(i) + "]", e.ops[i], false);
  }
  if (p.has("apis")) {
    e.apis = p.strings("apis");
    for (size_t i = 0; i < e.apis.size(); ++i) p.checkRegex("apis[" + std::to_string(i) + "]", e.apis[i], false);
  }
  if (p.has("verdict")) {
    for (const auto& s : p.strings("verdict")) {
      auto v = parseVerdict(s);
      if (!v) p.fail("verdict", "unknown verdict '" + s + "' (choose overhead_bound, compute_bound, mixed, no_gpu_work)");
      e.verdicts.push_back(*v);
    }
  }
  if (p.has("diagnostic")) {
    const std::string s = p.string("diagnostic");
    auto d = parseDiagnostic(s);
    if (!d)
      p.fail("diagnostic",
             "unknown diagnostic '" + s + "' (choose cold_start, occupancy_query, unrequested_device_copy, long_final_sync)");
    e.diagnostic = *d;
  }
  if (p.has("rank")) {
    const double r = p.number("rank");
    if (r < 0 || r > 1e6 || r != static_cast<double>(static_cast<int>(r))) p.fail("rank", "expected a rank: an integer >= 0");
    e.rank = static_cast<int>(r);
  }
  if (p.has("path")) {
    for (const std::string& s : p.strings("path")) {
      auto k = parsePathKind(s);
      if (!k) p.fail("path", "unknown kind of time '" + s + "' (choose cpu, launch, gpu, wait, idle, collective)");
      e.path.push_back(*k);
    }
  }
}

// The parameters that choose between fixed values.
void parseChoices(const Parser& p, Expectation& e) {
  if (p.has("steps"))
    e.steps = p.choice<StepSelection>("steps", {{"all", StepSelection::All}, {"after_first", StepSelection::AfterFirst}});
  if (p.has("per")) e.per = p.choice<CountPer>("per", {{"step", CountPer::Step}, {"trace", CountPer::Trace}});
  if (p.has("category"))
    e.category = p.choice<GpuOpFilter>("category", {{"kernel", GpuOpFilter::Kernel},
                                                     {"memcpy", GpuOpFilter::Memcpy},
                                                     {"memset", GpuOpFilter::Memset},
                                                     {"any", GpuOpFilter::Any}});
  if (p.has("measure"))
    e.measure = p.choice<StepMeasure>("measure", {{"wall", StepMeasure::Wall}, {"dead_window", StepMeasure::DeadWindow}});
}

}  // namespace

Expectation parseExpectation(const nlohmann::json& j, const std::string& where) {
  Parser p(j, where);
  if (!j.is_object()) p.fail("", "expected an object, got " + Parser::shown(j));
  if (!p.has("kind")) p.fail("kind", "missing (one of the expectation kinds, e.g. \"kernels_per_step\")");
  const std::string kind_name = p.string("kind");
  Expectation e;
  e.kind = kindNamed(p, kind_name);
  if (!p.has("text")) p.fail("text", "missing (the statement shown to people)");
  e.text = p.string("text");
  if (e.text.empty()) p.fail("text", "is empty");
  if (p.has("hint")) e.hint = p.string("hint");

  checkKeys(p, j, e.kind, kind_name);
  parseBounds(p, j, e);
  parseParameters(p, e);
  parseChoices(p, e);
  return e;
}

}  // namespace fuselab
