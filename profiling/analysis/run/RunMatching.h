// Matching collectives across the ranks of a run: the same process group,
// the same place in that group's sequence, the same collective (and, for
// collectives whose message is the same on every rank, the same size).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "profiling/analysis/collectives/CollectiveEvents.h"

namespace fuselab {

struct CollectiveMember {
  size_t rank_pos = 0;  // position in Run::ranks (and in the per-rank lists)
  size_t event = 0;     // index into that rank's CollectiveEvent list
};

struct MatchedCollective {
  std::string group;
  std::string name;
  CollectiveKind kind = CollectiveKind::Other;
  size_t index = 0;  // order within the group
  std::vector<CollectiveMember> members;  // by rank position, at least two
};

// Per group, every rank's sequence is paired with the longest one (the
// reference): position by position when the sequences agree, else along
// their longest common subsequence, so a rank whose profile window started a
// collective later, or a sampled trace, still pairs the collectives it has.
// Sorted by (group, index).
std::vector<MatchedCollective> matchCollectives(const std::vector<std::vector<CollectiveEvent>>& per_rank);

}  // namespace fuselab
