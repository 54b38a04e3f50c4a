// Reads the Kineto fixtures for tests on a path independent of fuselab's
// importer: zlib's gz* API to decompress, nlohmann::json to parse (with long
// double floats, so microsecond timestamps keep their three decimals).
#pragma once

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/TestPaths.h"

namespace fuselab::test {

using PreciseJson = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t, std::uint64_t, long double>;

inline std::string gunzipFile(const std::filesystem::path& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path.string());
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) out.append(buf, size_t(n));
  gzclose(f);
  if (n < 0) throw std::runtime_error("cannot decompress " + path.string());
  return out;
}

inline const std::vector<std::string>& fixtureNames() {
  static const std::vector<std::string> names = {"linear_eager", "mlp_eager", "multistream_memcpy"};
  return names;
}

inline std::filesystem::path fixtureGz(const std::string& name) { return fixture(name + ".json.gz"); }

inline std::string fixtureText(const std::string& name) { return gunzipFile(fixtureGz(name)); }

inline PreciseJson fixtureJson(const std::string& name) { return PreciseJson::parse(fixtureText(name)); }

// Microseconds (as parsed) -> integer nanoseconds.
inline int64_t usToNs(const PreciseJson& v) {
  if (v.is_number_integer()) return v.get<int64_t>() * 1000;
  return static_cast<int64_t>(std::llround(v.get<long double>() * 1000.0L));
}

// The raw file's ProfilerStep#k windows (ts, dur in us, sorted) and, for each
// kernel, its name and the step its launch call (matched by correlation)
// starts in, -1 for none.
struct RawStepKernels {
  std::vector<std::pair<double, double>> steps;
  std::vector<std::pair<std::string, int>> kernels;
};

inline RawStepKernels rawStepKernels(const nlohmann::json& doc) {
  RawStepKernels r;
  std::map<int64_t, double> launch_ts;
  for (const auto& ev : doc["traceEvents"]) {
    if (ev.value("ph", "") != "X") continue;
    const std::string name = ev.value("name", ""), cat = ev.value("cat", "");
    if (name.rfind("ProfilerStep#", 0) == 0) r.steps.emplace_back(ev["ts"].get<double>(), ev["dur"].get<double>());
    if ((cat == "cuda_runtime" || cat == "cuda_driver") && ev.contains("args") && ev["args"].contains("correlation"))
      launch_ts[ev["args"]["correlation"].get<int64_t>()] = ev["ts"].get<double>();
  }
  std::sort(r.steps.begin(), r.steps.end());
  for (const auto& ev : doc["traceEvents"]) {
    if (ev.value("ph", "") != "X" || ev.value("cat", "") != "kernel") continue;
    const double t = launch_ts.at(ev["args"]["correlation"].get<int64_t>());
    int step = -1;
    for (size_t k = 0; k < r.steps.size(); ++k)
      if (t >= r.steps[k].first && t <= r.steps[k].first + r.steps[k].second) step = static_cast<int>(k);
    r.kernels.emplace_back(ev["name"].get<std::string>(), step);
  }
  return r;
}

// The token fuselab keys a track by: numbers as written, strings quoted.
inline std::string tokenOf(const PreciseJson& v) {
  if (v.is_string()) return "\"" + v.get<std::string>() + "\"";
  return v.dump();
}

}  // namespace fuselab::test
