// Reads the Kineto fixtures for tests on a path independent of fuselab's
// importer: zlib's gz* API to decompress, nlohmann::json to parse (with long
// double floats, so microsecond timestamps keep their three decimals).
#pragma once

#include <zlib.h>

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

// The token fuselab keys a track by: numbers as written, strings quoted.
inline std::string tokenOf(const PreciseJson& v) {
  if (v.is_string()) return "\"" + v.get<std::string>() + "\"";
  return v.dump();
}

}  // namespace fuselab::test
