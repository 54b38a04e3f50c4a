// The collectives of one rank's trace: NCCL/RCCL kernels on the GPU and
// Gloo ops on the CPU, each with what the CPU side says about it (the
// record_param_comms / nccl:* / c10d:: ops around its launch, or the Gloo
// op's own args): kind, process group, group size, message size.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profiling/analysis/collectives/CollectiveKind.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

struct CollectiveEvent {
  EventRef event;  // the NCCL kernel or the Gloo op
  bool on_gpu = false;
  std::optional<EventRef> launch;  // the launch call of a GPU collective, if captured
  int64_t launch_ns = -1;          // its start, the rank's own clock
  CollectiveKind kind = CollectiveKind::Other;
  CollectiveKind kernel_kind = CollectiveKind::Other;  // what the NCCL kernel's name says (a barrier is an all-reduce)
  std::string name;   // collectiveKindName(kind), or the op's own name for Other
  // Matching key across ranks: "pg NAME" (record_param_comms' process
  // group), else "stream N" for GPU collectives (RunGroupKeys.h rekeys
  // those where streams differ across ranks), "gloo" for Gloo ops.
  std::string group;
  int group_size = 0;      // 0: not stated
  int64_t in_bytes = -1;   // per-rank input, -1 unknown
  int64_t out_bytes = -1;  // per-rank output, -1 unknown
  int64_t start_ns = 0;    // the rank's own clock
  int64_t end_ns = 0;
};

// Sorted by start time. `trace` must be finalized.
std::vector<CollectiveEvent> findCollectives(const Trace& trace);

// Whether findCollectives reads the args of ops so named (the ops that
// describe a collective, Gloo's own ops): the only args a run's summaries
// read (ChromeImportOptions::keep_args).
bool collectiveArgsNeeded(std::string_view op_name);

// What the CPU-side ops say about a collective; filled into `c` where they
// say it (CollectiveMetadata.cpp; findCollectives calls it for each op).
void readCollectiveMetadata(const Trace& trace, EventRef op, CollectiveEvent& c);

// Bytes of one element of a dtype as traces spell it ("float", "c10::BFloat16",
// "Half", "long", "unsigned char", ...); nullopt when unknown.
std::optional<int> dtypeBytes(std::string_view dtype);

}  // namespace fuselab
