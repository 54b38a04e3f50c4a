// One time axis for the ranks of a run. Each rank's clock gets an offset
// (aligned time = the rank's own time + offset):
//  - none: the timestamps as each file wrote them (its baseTimeNanoseconds ignored);
//  - epoch: the timestamps plus each file's Kineto epoch (baseTimeNanoseconds);
//  - collectives: a collective ends at nearly the same instant on every rank,
//    so each rank's offset is the median of its end-time differences to the
//    ranks already aligned (starting from the lowest rank). Differences that
//    disagree with most others by more than kEndWindowNs are pairs that are
//    not the same collective (a sampled trace, a window cut mid-sequence) and
//    are left out: the median is taken in the densest kEndWindowNs window.
// After collective alignment, members whose end is more than kEndToleranceNs
// from their collective's median end are dropped as mismatched.
// The residual skew is the median, over the matched collectives, of the
// spread of their aligned end times.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profiling/analysis/run/RunMatching.h"
#include "profiling/trace/Run.h"

namespace fuselab {

enum class AlignMethod : uint8_t { None, Epoch, Collectives };
std::string_view alignMethodName(AlignMethod m);                   // "none", "epoch", "collectives"
std::optional<AlignMethod> alignMethodFromName(std::string_view name);

inline constexpr int64_t kEndWindowNs = 1'000'000;      // 1 ms
inline constexpr int64_t kEndToleranceNs = 10'000'000;  // 10 ms

struct RunAlignment {
  AlignMethod method = AlignMethod::Epoch;
  std::vector<int64_t> offsets_ns;  // per position in Run::ranks
  int64_t residual_skew_ns = 0;     // 0 when no collective is matched
  size_t collectives_used = 0;      // matched collectives whose ends were compared
  size_t mismatched = 0;            // members dropped: ends too far from the others' after alignment
  std::string note;                 // e.g. why collectives could not be used
};

// `requested` nullopt: collectives when the ranks share a matched collective,
// else epoch. With collective alignment, drops the mismatched members from
// `matched` (and collectives left with fewer than two).
RunAlignment alignRun(const Run& run, const std::vector<std::vector<CollectiveEvent>>& per_rank,
                      std::vector<MatchedCollective>& matched, std::optional<AlignMethod> requested);

// Median of the values inside the window of width `window` that holds the
// most of them (the earliest such window on ties); 0 when empty.
int64_t densestMedianNs(std::vector<int64_t> values, int64_t window);

}  // namespace fuselab
