// A run's NCCL side files (RankTrace::nccl) joined to each rank's
// collectives (NcclJoin.h), the figures of each matched collective
// (CollectiveStats::nccl), and what the verdict says of them: collectives
// that ran on few channels, or on a protocol unusual for their size.
#pragma once

#include <string>
#include <vector>

#include "profiling/analysis/collectives/NcclJoin.h"
#include "profiling/analysis/run/RunCollectives.h"
#include "profiling/trace/Run.h"

namespace fuselab {

// By position in run.ranks; a rank without a side file gets an empty join.
std::vector<RankNcclJoin> joinRunNccl(const Run& run, const std::vector<std::vector<CollectiveEvent>>& per_rank);

void addNcclFigures(std::vector<CollectiveStats>& collectives, const std::vector<RankNcclJoin>& joins);

// Sentences for the verdict, one per finding, with counts and sizes:
//  - a collective of at least kFewChannelsBytes on at most half the channels
//    the run's largest collective of its kind used;
//  - LL (flags in every 8 bytes: at most half the link's bandwidth) for a
//    message of at least kLargeBytes, or Simple (whole-chunk handshakes) for
//    one of at most kSmallBytes, where latency rules.
std::vector<std::string> ncclNotes(const std::vector<CollectiveStats>& collectives);

inline constexpr int64_t kFewChannelsBytes = int64_t(4) << 20;
inline constexpr int64_t kLargeBytes = int64_t(1) << 20;
inline constexpr int64_t kSmallBytes = int64_t(64) << 10;

}  // namespace fuselab
