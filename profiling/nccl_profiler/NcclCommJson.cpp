#include "profiling/nccl_profiler/NcclCommJson.h"

#include <cstdio>
#include <unordered_map>
#include <vector>

namespace fuselab::nccl_profiler {

namespace {

using nlohmann::json;

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

int64_t hostStop(const std::atomic<int64_t>& stop) { return stop.load(std::memory_order_relaxed); }

json collJson(const CollRecord& r, bool p2p) {
  json j = {{"func", r.func.text}, {"count", r.count}, {"datatype", r.datatype.text},
            {"channels", r.channels}, {"host_start_ns", r.host_start_ns}, {"host_stop_ns", hostStop(r.host_stop_ns)}};
  if (p2p) {
    j["peer"] = r.root_or_peer;
  } else {
    j["seq"] = r.seq;
    j["root"] = r.root_or_peer;
    j["algo"] = r.algo.text;
    j["proto"] = r.proto.text;
    j["warps"] = r.warps;
  }
  j["channel_times"] = json::array();
  return j;
}

// The ready records of a pool, as JSON, with each record's position in the list.
template <class Pool, class Make>
json readyList(const Pool& pool, std::unordered_map<const void*, size_t>& position, Make make) {
  json list = json::array();
  for (uint32_t i = 0; i < pool.size(); ++i) {
    const auto& r = pool.at(i);
    if (!r.ready.load(std::memory_order_acquire)) continue;
    position[&r] = list.size();
    list.push_back(make(r));
  }
  return list;
}

}  // namespace

json commJson(const CommRecorder& comm, const PluginOptions& options, bool finalized) {
  std::unordered_map<const void*, size_t> pos;
  json colls = readyList(comm.collectives(), pos, [](const CollRecord& r) { return collJson(r, false); });
  json p2ps = readyList(comm.p2ps(), pos, [](const CollRecord& r) { return collJson(r, true); });
  uint64_t unfinished_channels = 0;
  for (uint32_t i = 0; i < comm.channels().size(); ++i) {
    const ChannelRecord& c = comm.channels().at(i);
    if (!c.ready.load(std::memory_order_acquire)) continue;
    const uint64_t stop = c.stop.load(std::memory_order_relaxed);
    const auto it = pos.find(c.parent);
    if (stop == 0 || it == pos.end()) {
      ++unfinished_channels;
      continue;
    }
    json& owner = (c.parent->kind == EventKind::P2p ? p2ps : colls)[it->second];
    owner["channel_times"].push_back({c.channel, c.start, stop});
  }
  json proxy_ops = readyList(comm.proxyOps(), pos, [&](const ProxyOpRecord& r) {
    json j = {{"channel", r.channel}, {"peer", r.peer}, {"steps", r.steps}, {"chunk_size", r.chunk_size},
              {"send", r.is_send != 0}, {"host_start_ns", r.host_start_ns},
              {"host_stop_ns", hostStop(r.host_stop_ns)}, {"step_times", json::array()}};
    const auto it = r.parent ? pos.find(r.parent) : pos.end();
    if (it != pos.end()) j[r.parent->kind == EventKind::P2p ? "p2p" : "collective"] = it->second;
    return j;
  });
  for (uint32_t i = 0; i < comm.proxySteps().size(); ++i) {
    const ProxyStepRecord& s = comm.proxySteps().at(i);
    if (!s.ready.load(std::memory_order_acquire)) continue;
    const auto it = pos.find(s.parent);
    if (it == pos.end()) continue;
    proxy_ops[it->second]["step_times"].push_back(
        {s.step, s.host_start_ns, hostStop(s.host_stop_ns), s.trans_size.load(std::memory_order_relaxed)});
  }
  const CommInfo& info = comm.info();
  json j = {{"comm_hash", hex(info.comm_hash)},
            {"comm_name", info.comm_name},
            {"rank", info.rank},
            {"nranks", info.nranks},
            {"nnodes", info.nnodes},
            {"events", eventWords(comm.eventMask())},
            {"finalized", finalized},
            {"pool", {{"collectives", options.coll_capacity},
                      {"channels", options.channelCapacity()},
                      {"proxy", options.proxyCapacity()}}},
            {"dropped", {{"collectives", comm.collectives().dropped()},
                         {"p2p", comm.p2ps().dropped()},
                         {"channels", comm.channels().dropped()},
                         {"proxy_ops", comm.proxyOps().dropped()},
                         {"proxy_steps", comm.proxySteps().dropped()},
                         {"without_parent", comm.orphans()},
                         {"channels_unfinished", unfinished_channels}}},
            {"collectives", std::move(colls)},
            {"p2p", std::move(p2ps)}};
  if (comm.eventMask() & ncclProfileProxyOp) j["proxy_ops"] = std::move(proxy_ops);
  return j;
}

}  // namespace fuselab::nccl_profiler
