// The channels of each NCCL kernel that a rank's side file joined
// (RunNccl.h), placed on the window's merged trace: the kernel as an event
// of the merged trace and each channel's GPU time on its axis (the channel's
// offset from its kernel's start kept), for the ranks whose lanes are loaded.
#pragma once

#include <string>
#include <vector>

#include "profiling/analysis/run/RunView.h"

namespace fuselab {

struct NcclKernelChannels {
  EventRef kernel;                        // in the merged trace
  std::string label;                      // "all_reduce pg 0 #3, RING LL"
  std::vector<NcclChannelTime> channels;  // by channel id, on the merged trace's axis
  int64_t begin_ns = 0, end_ns = 0;       // first channel start, last channel stop
};

// By begin_ns.
std::vector<NcclKernelChannels> ncclChannelsOnLanes(const RunView& view);

}  // namespace fuselab
