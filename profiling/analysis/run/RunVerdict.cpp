#include "profiling/analysis/run/RunVerdict.h"

#include <algorithm>
#include <cstdio>

#include "profiling/analysis/single/AnalysisVerdict.h"
#include "profiling/trace/DurationText.h"

namespace fuselab {

namespace {

std::string rankName(int rank) { return "rank " + std::to_string(rank); }

// "compute-bound", "overhead-bound", "mixed", "no-gpu-work".
std::string verdictWords(VerdictKind k) {
  std::string s(verdictName(k));
  std::replace(s.begin(), s.end(), '_', '-');
  return s;
}

// The collective the straggler held up longest, for what it was doing then.
const CollectiveStats* longestHeldUp(const std::vector<CollectiveStats>& collectives, int rank) {
  const CollectiveStats* worst = nullptr;
  for (const CollectiveStats& c : collectives)
    if (c.late_rank == rank && (!worst || c.wait_ns > worst->wait_ns)) worst = &c;
  return worst;
}

// Each rank's own verdict, after `lead` (why the run is judged rank by rank).
RunVerdict perRank(const std::vector<RankStats>& ranks, RunVerdictKind kind, const std::string& lead) {
  RunVerdict v;
  v.kind = kind;
  std::string kinds;
  bool alike = true;
  VerdictKind first = VerdictKind::NoGpuWork;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const RankStats& r = ranks[i];
    const Verdict own = decideVerdict(r.utilization, r.idle, r.gpu_ops);
    if (i == 0) first = own.kind;
    alike = alike && own.kind == first;
    v.explanation += (i ? " " : "") + rankName(r.rank) + ": " + verdictWords(own.kind) + ", GPU busy " +
                     formatPercent(r.utilization.fraction) + " (compute " +
                     formatPercent(r.time.fraction(r.time.compute_ns)) + ", communication and copies " +
                     formatPercent(r.time.fraction(r.time.non_compute_ns)) + ").";
  }
  v.title = alike && !ranks.empty() ? "Every rank " + verdictWords(first) : "Ranks differ";
  v.explanation = lead + " " + v.explanation;
  return v;
}

}  // namespace

std::string_view runVerdictName(RunVerdictKind k) {
  switch (k) {
    case RunVerdictKind::StragglerBound: return "straggler_bound";
    case RunVerdictKind::CommunicationBound: return "communication_bound";
    case RunVerdictKind::PerRank: return "per_rank";
    case RunVerdictKind::NoCollectives: return "no_collectives";
  }
  return "no_collectives";
}

RunVerdict decideRunVerdict(const std::vector<RankStats>& ranks, const std::vector<CollectiveStats>& collectives,
                            const std::vector<Straggler>& stragglers) {
  if (collectives.empty()) {
    return perRank(ranks, RunVerdictKind::NoCollectives,
                   "No collective matched across the ranks, so nothing says whether they waited for each other.");
  }
  RunVerdict v;
  const RankStats* most_waiting = nullptr;
  int64_t span_sum = 0;
  for (const RankStats& r : ranks) {
    span_sum += r.utilization.span_ns;
    if (r.utilization.span_ns <= 0) continue;
    const double share = double(r.wait_ns) / double(r.utilization.span_ns);
    if (!most_waiting || share > v.waited_share) most_waiting = &r, v.waited_share = share;
  }
  int64_t transfer = 0;
  std::vector<double> busbw;
  for (const CollectiveStats& c : collectives) {
    transfer += c.transfer_ns;
    if (c.busbw_gbps) busbw.push_back(*c.busbw_gbps);
  }
  const double mean_span = ranks.empty() ? 0.0 : double(span_sum) / double(ranks.size());
  v.transfer_share = mean_span > 0 ? double(transfer) / mean_span : 0.0;

  if (!stragglers.empty() && most_waiting && v.waited_share >= RunVerdict::kWaitedShare) {
    const Straggler& s = stragglers.front();
    v.kind = RunVerdictKind::StragglerBound;
    v.late_rank = s.rank;
    v.title = "Straggler-bound (" + rankName(s.rank) + ")";
    v.explanation = rankName(s.rank) + " arrived last at " + std::to_string(s.late_count) + " of " +
                    std::to_string(collectives.size()) + " collectives, holding them up " +
                    formatDuration(s.wait_caused_ns) + " in all; " + rankName(most_waiting->rank) + " spent " +
                    formatPercent(v.waited_share) + " of its span (" + formatDuration(most_waiting->wait_ns) + " of " +
                    formatDuration(most_waiting->utilization.span_ns) + ") waiting for it.";
    if (const CollectiveStats* c = longestHeldUp(collectives, s.rank))
      v.explanation += " Before the longest wait (" + formatDuration(c->wait_ns) + ") " + rankName(s.rank) +
                       " was: " + describeArrivalCause(c->late_rank_before) + ".";
    v.explanation += " Balance or speed up " + rankName(s.rank) +
                     "'s work before its collectives: faster kernels or fewer launches on the waiting ranks do not "
                     "shorten the step.";
    return v;
  }
  if (v.transfer_share >= RunVerdict::kTransferShare) {
    v.kind = RunVerdictKind::CommunicationBound;
    v.title = "Communication-bound";
    v.explanation = "Collective transfers (from the last rank's arrival to the end) take " +
                    formatPercent(v.transfer_share) + " of the mean rank span (" + formatDuration(transfer) +
                    " over " + std::to_string(collectives.size()) + " collectives).";
    if (!busbw.empty()) {
      std::sort(busbw.begin(), busbw.end());
      char text[64];
      std::snprintf(text, sizeof text, "%.1f GB/s", busbw[busbw.size() / 2]);
      v.explanation += std::string(" Median bus bandwidth ") + text +
                       ": compare it with the link's; larger messages, fewer collectives or overlapping them with "
                       "compute help more than faster kernels.";
    }
    return v;
  }
  return perRank(ranks, RunVerdictKind::PerRank,
                 "No rank waits long for another and transfers are short; each rank is judged alone.");
}

}  // namespace fuselab
