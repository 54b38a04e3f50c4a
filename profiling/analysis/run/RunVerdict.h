// The verdict of a run: what holds its steps up, with the numbers behind it.
//  - straggler-bound: the ranks wait in collectives for a late rank for a
//    large share of their span (which rank, how much, what it was doing);
//  - communication-bound: the collectives' transfers (after the last rank
//    arrived) fill a large share of the span (with their bus bandwidth);
//  - per rank: otherwise each rank's own verdict (compute-, overhead-bound
//    or mixed, as for one trace).
#pragma once

#include <string>
#include <string_view>

#include "profiling/analysis/run/RunRanks.h"

namespace fuselab {

enum class RunVerdictKind : uint8_t { StragglerBound, CommunicationBound, PerRank, NoCollectives };
std::string_view runVerdictName(RunVerdictKind k);  // "straggler_bound", "communication_bound", "per_rank", "no_collectives"

struct RunVerdict {
  RunVerdictKind kind = RunVerdictKind::NoCollectives;
  std::string title;        // "Straggler-bound (rank 1)", "Communication-bound", ...
  std::string explanation;  // sentences with the numbers
  int late_rank = -1;           // straggler-bound: the rank the others waited for
  double waited_share = 0;      // largest share of a rank's span spent waiting in collectives
  double transfer_share = 0;    // transfer time of the collectives / the mean rank span

  // Straggler-bound when a rank waited at least this share of its span;
  // communication-bound when transfers fill at least kTransferShare.
  static constexpr double kWaitedShare = 0.2;
  static constexpr double kTransferShare = 0.3;
};

RunVerdict decideRunVerdict(const std::vector<RankStats>& ranks, const std::vector<CollectiveStats>& collectives,
                            const std::vector<Straggler>& stragglers);

}  // namespace fuselab
