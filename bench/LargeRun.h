// Runs as large as the jobs people profile, for the run-opening benchmark:
// rank 0 of the HTA NCCL fixture tiled along time to `events_per_rank`
// (TiledTrace.h), then written once per rank with its own
// distributedInfo.rank, world_size and clock (baseTimeNanoseconds moved by up
// to 0.6 ms). The events are the same bytes in every file, so they are
// tiled once and copied: as .json, or as .json.gz with the rank's header in
// a gzip member of its own before the events' member (compressed once).
#pragma once

#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/TiledTrace.h"
#include "tests/support/BuildPaths.h"

namespace fuselab::bench {

inline std::string htaRankFixture() {
  namespace fs = std::filesystem;
  return (fs::path(fuselab::build_paths::fixturesDir()).parent_path() / "kineto-multirank-hta" / "rank-0.json.gz").string();
}

// One gzip member of `text` (level 1: the benchmark reads, it does not keep).
inline std::string gzipMember(const std::string& text) {
  z_stream z{};
  if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) throw std::runtime_error("deflateInit2");
  std::string out(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate did not finish");
  return out;
}

struct LargeRun {
  std::vector<std::filesystem::path> files;
  uint64_t json_bytes = 0;  // of all ranks, uncompressed
};

inline LargeRun writeLargeRun(const std::filesystem::path& dir, int ranks, size_t events_per_rank, bool gzip) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  const fs::path tiled = dir / "tiled.tmp";
  writeTiledTrace(tiled.string(), events_per_rank, htaRankFixture());
  std::string text;
  {
    std::ifstream in(tiled, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  fs::remove(tiled);
  const std::string key = "\"traceEvents\": [";
  const size_t at = text.find(key);
  if (at == std::string::npos) throw std::runtime_error("tiled trace without traceEvents");
  // The keys before the events (TiledTrace.h writes traceEvents after them).
  const nlohmann::ordered_json head = nlohmann::ordered_json::parse(text.substr(0, at) + "\"traceEvents\": []}");
  const std::string events = text.substr(at + key.size());
  text.clear();
  text.shrink_to_fit();
  // gzip members longer than 4 GB would wrap the size hint: keep them below.
  if (gzip && events.size() >= (uint64_t(1) << 32)) throw std::runtime_error("a rank of over 4 GB of JSON");
  const std::string events_gz = gzip ? gzipMember(events) : std::string();

  LargeRun run;
  for (int r = 0; r < ranks; ++r) {
    nlohmann::ordered_json h = head;
    h.erase("traceEvents");
    h["distributedInfo"]["rank"] = r;
    h["distributedInfo"]["world_size"] = ranks;
    h["baseTimeNanoseconds"] = int64_t(1'700'000'000'000'000'000) + int64_t((r * 37) % 600) * 1000;
    std::string header = h.dump();
    header.pop_back();  // the closing brace: traceEvents follow
    header += ", " + key;
    run.files.push_back(dir / ("rank-" + std::to_string(r) + (gzip ? ".json.gz" : ".json")));
    std::ofstream out(run.files.back(), std::ios::binary);
    if (gzip) out << gzipMember(header) << events_gz;
    else out << header << events;
    if (!out) throw std::runtime_error("cannot write " + run.files.back().string());
    run.json_bytes += header.size() + events.size();
  }
  return run;
}

}  // namespace fuselab::bench
