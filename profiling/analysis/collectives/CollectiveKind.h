// Which collective an event is (all-reduce, all-gather, ...), read from NCCL
// kernel names, Gloo op names and record_param_comms' "Collective name", and
// the nccl-tests bandwidth definitions per kind.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace fuselab {

enum class CollectiveKind : uint8_t {
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  Broadcast,
  Reduce,
  Gather,
  Scatter,
  SendRecv,
  Barrier,
  Other,
};

std::string_view collectiveKindName(CollectiveKind k);  // "all_reduce", "all_gather", ...

// "allreduce", "all_reduce", "AllReduce", "_allgather_base",
// "reduce_scatter_tensor", "all_to_allv", "SendRecv", ... -> kind; Other when
// the text names none.
CollectiveKind collectiveKindFromText(std::string_view text);

// GPU kernels of NCCL (ncclKernel_* before 2.19, ncclDevKernel_* since) and
// RCCL (rccl*).
bool isCollectiveKernelName(std::string_view kernel_name);
// CPU-side collectives: Gloo ops ("gloo:all_reduce").
bool isCpuCollectiveName(std::string_view op_name);

// nccl-tests' bus bandwidth factor for `ranks` ranks: busbw = algbw x factor.
// 2(n-1)/n all-reduce; (n-1)/n all-gather, reduce-scatter, all-to-all,
// gather, scatter; 1 broadcast, reduce, send/recv. nullopt for barriers and
// unknown kinds.
std::optional<double> busBandwidthFactor(CollectiveKind kind, int ranks);

// Bytes nccl-tests counts for one collective, from the per-rank input and
// output sizes (-1 unknown): the output for all-gather and gather (else
// input x ranks),
// the input otherwise. -1 when unknown.
int64_t collectiveBytes(CollectiveKind kind, int64_t in_bytes, int64_t out_bytes, int ranks);

}  // namespace fuselab
