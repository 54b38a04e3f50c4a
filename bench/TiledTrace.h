// A large Kineto trace for benchmarks: the eager MLP fixture tiled along the
// time axis (100 us between tiles, ids shifted per tile), written in
// Kineto's layout. Needs the fixtures (tests/support/BuildPaths.h).
#pragma once

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/BuildPaths.h"

namespace fuselab::bench {

// Long double floats keep Kineto's microsecond timestamps exact to the ns.
using PreciseJson = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t, std::uint64_t, long double>;

inline std::string gunzipFile(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) out.append(buf, size_t(n));
  gzclose(f);
  return out;
}

inline int64_t toNs(const PreciseJson& v) {
  if (v.is_number_integer()) return v.get<int64_t>() * 1000;
  return static_cast<int64_t>(std::llround(v.get<long double>() * 1000.0L));
}

inline std::string microseconds(int64_t ns) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
  return buf;
}

inline std::string mlpEagerFixture() { return std::string(fuselab::build_paths::fixturesDir()) + "/mlp_eager.json.gz"; }

// Writes the trace of `source` (.json.gz) tiled to at least target_events
// events; returns the number of traceEvents.
inline size_t writeTiledTrace(const std::string& out_path, size_t target_events,
                              const std::string& source = mlpEagerFixture()) {
  std::string text = gunzipFile(source);
  auto doc = nlohmann::ordered_json::parse(text);  // for output (key order kept)
  auto exact = PreciseJson::parse(text);           // for exact times
  const auto& events = doc["traceEvents"];
  std::vector<size_t> tiled;  // indices of the events repeated per tile
  int64_t first = INT64_MAX, last = INT64_MIN, max_id = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const auto& e = events[i];
    if (e["ph"] == "M") continue;
    tiled.push_back(i);
    int64_t ts = toNs(exact["traceEvents"][i]["ts"]);
    int64_t end = ts + (e.contains("dur") ? toNs(exact["traceEvents"][i]["dur"]) : 0);
    first = std::min(first, ts);
    last = std::max(last, end);
    if (e.contains("id") && e["id"].is_number_integer()) max_id = std::max(max_id, e["id"].get<int64_t>());
    if (e.contains("args"))
      for (const char* k : {"correlation", "External id"})
        if (e["args"].contains(k)) max_id = std::max(max_id, e["args"][k].get<int64_t>());
  }
  const int64_t period = (last - first) + 100'000;  // 100 us between tiles
  const size_t tiles = (target_events + tiled.size() - 1) / tiled.size();

  std::ofstream out(out_path, std::ios::binary);
  out << "{\n";
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    std::string k = it.key();
    if (k == "traceEvents" || k == "traceName") continue;
    out << "  " << nlohmann::json(k).dump() << ": " << it.value().dump() << ",\n";
  }
  out << "  \"traceEvents\": [\n";
  size_t written = 0;
  auto sep = [&] { out << (written++ ? ",\n" : ""); };
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i]["ph"] != "M") continue;
    sep();
    out << "  " << events[i].dump();
  }
  std::string buf;
  for (size_t tile = 0; tile < tiles; ++tile) {
    int64_t shift = int64_t(tile) * period;
    int64_t id_shift = int64_t(tile) * (max_id + 1);
    for (size_t i : tiled) {
      nlohmann::ordered_json e = events[i];
      int64_t ts = toNs(exact["traceEvents"][i]["ts"]) + shift;
      if (e.contains("id") && e["id"].is_number_integer()) e["id"] = e["id"].get<int64_t>() + id_shift;
      if (e.contains("args"))
        for (const char* k : {"correlation", "External id"})
          if (e["args"].contains(k)) e["args"][k] = e["args"][k].get<int64_t>() + id_shift;
      // Kineto's layout: the fields on a few lines, ts/dur with 3 decimals.
      buf = "  {\n    ";
      bool first_field = true;
      for (auto it = e.begin(); it != e.end(); ++it) {
        if (it.key() == "args") continue;
        if (!first_field) buf += ", ";
        first_field = false;
        buf += nlohmann::json(it.key()).dump() + ": ";
        if (it.key() == "ts") buf += microseconds(ts);
        else if (it.key() == "dur") buf += microseconds(toNs(exact["traceEvents"][i]["dur"]));
        else buf += it.value().dump();
      }
      if (e.contains("args")) {  // as Kineto prints them: the fields on a line of their own
        buf += ",\n    \"args\": {\n      ";
        bool first_arg = true;
        for (auto a = e["args"].begin(); a != e["args"].end(); ++a) {
          buf += (first_arg ? "" : ", ") + nlohmann::json(a.key()).dump() + ": " + a.value().dump();
          first_arg = false;
        }
        buf += "\n    }";
      }
      buf += "\n  }";
      sep();
      out << buf;
    }
  }
  out << "\n  ]";
  if (doc.contains("traceName")) out << ",\n  \"traceName\": " << doc["traceName"].dump();
  out << "\n}\n";
  if (!out) throw std::runtime_error("cannot write " + out_path);
  return written;
}

}  // namespace fuselab::bench
