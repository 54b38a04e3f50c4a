#include "profiling/trace/NcclProfile.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace fuselab {

namespace {

using nlohmann::json;

template <class T>
std::optional<T> field(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) return std::nullopt;
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!it->is_boolean()) return std::nullopt;
  } else {
    if (!it->is_number_integer()) return std::nullopt;
  }
  return it->get<T>();
}

// Channel times [channel, start, stop]; bad or reversed ones counted.
std::vector<NcclChannelTime> channelTimes(const json& op, size_t& bad) {
  std::vector<NcclChannelTime> out;
  const auto it = op.find("channel_times");
  if (it == op.end() || !it->is_array()) return out;
  for (const json& t : *it) {
    if (!t.is_array() || t.size() != 3 || !t[0].is_number_integer() || !t[1].is_number_integer() ||
        !t[2].is_number_integer() || t[2].get<int64_t>() < t[1].get<int64_t>()) {
      ++bad;
      continue;
    }
    out.push_back({t[0].get<int>(), t[1].get<int64_t>(), t[2].get<int64_t>()});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
  return out;
}

std::optional<NcclOperation> operation(const json& j, bool p2p, size_t& bad_channels) {
  if (!j.is_object()) return std::nullopt;
  NcclOperation op;
  op.p2p = p2p;
  const auto func = field<std::string>(j, "func");
  const auto seq = field<uint64_t>(j, "seq");
  if (!func || func->empty() || (!p2p && !seq)) return std::nullopt;
  op.func = *func;
  op.seq = seq.value_or(0);
  op.datatype = field<std::string>(j, "datatype").value_or("");
  op.algo = field<std::string>(j, "algo").value_or("");
  op.proto = field<std::string>(j, "proto").value_or("");
  op.count = field<int64_t>(j, "count").value_or(0);
  op.root_or_peer = field<int>(j, p2p ? "peer" : "root").value_or(0);
  op.channels = field<int>(j, "channels").value_or(0);
  op.warps = field<int>(j, "warps").value_or(0);
  op.host_start_ns = field<int64_t>(j, "host_start_ns").value_or(-1);
  op.channel_times = channelTimes(j, bad_channels);
  return op;
}

NcclDropped dropped(const json& c) {
  NcclDropped d;
  const auto it = c.find("dropped");
  if (it == c.end() || !it->is_object()) return d;
  d.collectives = field<uint64_t>(*it, "collectives").value_or(0);
  d.p2p = field<uint64_t>(*it, "p2p").value_or(0);
  d.channels = field<uint64_t>(*it, "channels").value_or(0);
  d.proxy_ops = field<uint64_t>(*it, "proxy_ops").value_or(0);
  d.proxy_steps = field<uint64_t>(*it, "proxy_steps").value_or(0);
  d.without_parent = field<uint64_t>(*it, "without_parent").value_or(0);
  d.channels_unfinished = field<uint64_t>(*it, "channels_unfinished").value_or(0);
  return d;
}

void readOperations(const json& c, const char* key, bool p2p, std::vector<NcclOperation>& out, size_t& bad_ops,
                    size_t& bad_channels) {
  const auto it = c.find(key);
  if (it == c.end()) return;
  if (!it->is_array()) {
    ++bad_ops;
    return;
  }
  for (const json& j : *it) {
    if (auto op = operation(j, p2p, bad_channels))
      out.push_back(std::move(*op));
    else
      ++bad_ops;
  }
}

}  // namespace

bool isNcclProfileFile(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  const std::string suffix = kNcclProfileSuffix;
  return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

NcclProfile readNcclProfile(const std::filesystem::path& file) {
  const std::string where = file.filename().string();
  std::ifstream in(file, std::ios::binary);
  if (!in) throw NcclProfileError(where + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  const json root = json::parse(text.str(), nullptr, false);
  if (root.is_discarded()) throw NcclProfileError(where + ": not JSON (a truncated file?)");
  if (!root.is_object() || field<std::string>(root, "format") != std::string(kNcclProfileFormat))
    throw NcclProfileError(where + ": not a fuselab NCCL profile");
  if (const auto v = field<int>(root, "version"); !v || *v > kNcclProfileVersion)
    throw NcclProfileError(where + ": format version " + (v ? std::to_string(*v) : std::string("missing")) +
                           ", this fuselab reads up to " + std::to_string(kNcclProfileVersion));
  NcclProfile p;
  p.file = file;
  p.interface = field<std::string>(root, "interface").value_or("");
  p.pid = field<int64_t>(root, "pid").value_or(0);
  if (const auto clock = root.find("clock"); clock != root.end() && clock->is_object())
    p.realtime_minus_monotonic_ns =
        field<int64_t>(*clock, "realtime_ns").value_or(0) - field<int64_t>(*clock, "monotonic_ns").value_or(0);
  const auto comms = root.find("communicators");
  if (comms == root.end() || !comms->is_array()) throw NcclProfileError(where + ": no communicators list");
  size_t bad_comms = 0;
  for (const json& c : *comms) {
    const auto rank = c.is_object() ? field<int>(c, "rank") : std::nullopt;
    const auto nranks = c.is_object() ? field<int>(c, "nranks") : std::nullopt;
    if (!rank || !nranks || *nranks <= 0 || *rank < 0 || *rank >= *nranks) {
      ++bad_comms;
      continue;
    }
    NcclCommunicatorProfile cp;
    cp.comm_hash = field<std::string>(c, "comm_hash").value_or("");
    cp.comm_name = field<std::string>(c, "comm_name").value_or("");
    cp.rank = *rank;
    cp.nranks = *nranks;
    cp.nnodes = field<int>(c, "nnodes").value_or(0);
    cp.events = field<std::string>(c, "events").value_or("");
    cp.finalized = field<bool>(c, "finalized").value_or(true);
    cp.dropped = dropped(c);
    size_t bad_ops = 0, bad_channels = 0;
    readOperations(c, "collectives", false, cp.collectives, bad_ops, bad_channels);
    readOperations(c, "p2p", true, cp.p2p, bad_ops, bad_channels);
    std::stable_sort(cp.collectives.begin(), cp.collectives.end(),
                     [](const auto& a, const auto& b) { return std::tie(a.func, a.seq) < std::tie(b.func, b.seq); });
    const std::string comm = "communicator " + cp.comm_hash + " (rank " + std::to_string(cp.rank) + " of " +
                             std::to_string(cp.nranks) + ")";
    if (bad_ops) p.warnings.push_back(where + ": " + comm + ": " + std::to_string(bad_ops) + " operations without func or seq skipped");
    if (bad_channels)
      p.warnings.push_back(where + ": " + comm + ": " + std::to_string(bad_channels) + " channel times unreadable or ending before they start, skipped");
    if (cp.dropped.total())
      p.warnings.push_back(where + ": " + comm + ": the plugin dropped " + std::to_string(cp.dropped.total()) +
                           " events (pool full or unfinished); raise FUSELAB_NCCL_PROFILER_POOL");
    p.communicators.push_back(std::move(cp));
  }
  if (bad_comms) p.warnings.push_back(where + ": " + std::to_string(bad_comms) + " communicators without a valid rank and size skipped");
  return p;
}

}  // namespace fuselab
