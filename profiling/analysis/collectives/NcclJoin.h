// A rank's collectives joined to what fuselab's NCCL profiler plugin
// recorded of them (NcclProfile.h): algorithm, protocol, channels and each
// channel's GPU times, placed on the trace's clock.
//  - Communicator to process group: same size, else the name; each
//    communicator serves one group, the one it joins best.
//  - Within a group and kind (the kernel's: a barrier is an all-reduce),
//    the trace's collectives in time order against the communicator's in
//    seq order, at the shift that fits best: NCCL numbers every collective
//    since the communicator began, the trace holds the recorded steps only.
//    The fit: a collective's NCCL kernel starts a fixed delay before its
//    first channel (one clock offset between the GPU's global timer and the
//    trace), and its launch call a fixed delay before NCCL enqueued it (one
//    between the host clocks); the shift whose differences scatter least.
//  - The clock offset is the median over the joined collectives; the
//    residual (median and largest distance to it) says how well it fits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiling/analysis/collectives/CollectiveEvents.h"
#include "profiling/trace/NcclProfile.h"

namespace fuselab {

struct NcclCollectiveDetail {
  std::string comm_hash;
  uint64_t seq = 0;
  std::string algo, proto;
  int channels = 0, warps = 0;
  std::vector<NcclChannelTime> channel_times;  // on the rank's trace clock (the fitted offset applied)
};

struct RankNcclJoin {
  bool has_profile = false;
  // Parallel to the rank's collectives (findCollectives' order).
  std::vector<std::optional<NcclCollectiveDetail>> details;
  size_t joined = 0;
  size_t gpu_collectives = 0;  // the trace's NCCL kernels
  std::optional<int64_t> clock_offset_ns;  // trace clock - GPU global timer
  int64_t residual_ns = 0;                 // median distance of a joined collective to the offset
  int64_t max_residual_ns = 0;
  size_t channels_outside = 0;  // channel times outside their kernel (beyond the residual)
  std::vector<std::string> warnings;
};

// `rank` names the rank in warnings.
RankNcclJoin joinNcclProfile(const std::vector<CollectiveEvent>& collectives, const NcclProfile& profile, int rank);

}  // namespace fuselab
