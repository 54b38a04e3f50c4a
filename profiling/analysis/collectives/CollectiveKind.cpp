#include "profiling/analysis/collectives/CollectiveKind.h"

#include <cctype>
#include <string>

namespace fuselab {

std::string_view collectiveKindName(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::AllReduce: return "all_reduce";
    case CollectiveKind::AllGather: return "all_gather";
    case CollectiveKind::ReduceScatter: return "reduce_scatter";
    case CollectiveKind::AllToAll: return "all_to_all";
    case CollectiveKind::Broadcast: return "broadcast";
    case CollectiveKind::Reduce: return "reduce";
    case CollectiveKind::Gather: return "gather";
    case CollectiveKind::Scatter: return "scatter";
    case CollectiveKind::SendRecv: return "send_recv";
    case CollectiveKind::Barrier: return "barrier";
    case CollectiveKind::Other: return "other";
  }
  return "other";
}

CollectiveKind collectiveKindFromText(std::string_view text) {
  // Letters only, lower case: "_all_gather_base" -> "allgatherbase".
  std::string s;
  for (char c : text)
    if (std::isalpha(static_cast<unsigned char>(c))) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto has = [&](std::string_view word) { return s.find(word) != std::string::npos; };
  // Order matters: "allreduce" contains "reduce", "reducescatter" too.
  if (has("allreduce")) return CollectiveKind::AllReduce;
  if (has("reducescatter")) return CollectiveKind::ReduceScatter;
  if (has("allgather")) return CollectiveKind::AllGather;
  if (has("alltoall")) return CollectiveKind::AllToAll;
  if (has("broadcast") || has("bcast")) return CollectiveKind::Broadcast;
  if (has("sendrecv") || has("send") || has("recv")) return CollectiveKind::SendRecv;
  if (has("barrier")) return CollectiveKind::Barrier;
  if (has("reduce")) return CollectiveKind::Reduce;
  if (has("gather")) return CollectiveKind::Gather;
  if (has("scatter")) return CollectiveKind::Scatter;
  return CollectiveKind::Other;
}

bool isCollectiveKernelName(std::string_view name) {
  return name.starts_with("ncclKernel") || name.starts_with("ncclDevKernel") || name.starts_with("rccl");
}

bool isCpuCollectiveName(std::string_view name) { return name.starts_with("gloo:"); }

std::optional<double> busBandwidthFactor(CollectiveKind kind, int ranks) {
  if (ranks < 1) return std::nullopt;
  const double n = ranks;
  switch (kind) {
    case CollectiveKind::AllReduce: return 2.0 * (n - 1) / n;
    case CollectiveKind::AllGather:
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllToAll:
    case CollectiveKind::Gather:
    case CollectiveKind::Scatter: return (n - 1) / n;
    case CollectiveKind::Broadcast:
    case CollectiveKind::Reduce:
    case CollectiveKind::SendRecv: return 1.0;
    case CollectiveKind::Barrier:
    case CollectiveKind::Other: return std::nullopt;
  }
  return std::nullopt;
}

int64_t collectiveBytes(CollectiveKind kind, int64_t in_bytes, int64_t out_bytes, int ranks) {
  if (kind == CollectiveKind::AllGather || kind == CollectiveKind::Gather) {
    if (out_bytes > 0) return out_bytes;
    return in_bytes > 0 && ranks > 0 ? in_bytes * ranks : -1;
  }
  return in_bytes > 0 ? in_bytes : -1;
}

}  // namespace fuselab
