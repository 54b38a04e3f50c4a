#include "profiling/analysis/collectives/NcclJoin.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>

#include "profiling/analysis/common/Intervals.h"

namespace fuselab {

namespace {

using Ops = std::vector<const NcclOperation*>;

// A kernel's first channel starts a few microseconds after the kernel; a
// joined collective this far from the fitted offset was joined wrongly.
constexpr int64_t kPoorFitNs = 100'000;

int64_t medianDistance(const std::vector<int64_t>& v, int64_t to) {
  std::vector<int64_t> d;
  d.reserve(v.size());
  for (int64_t x : v) d.push_back(x > to ? x - to : to - x);
  return medianNs(std::move(d));
}

// The trace's collectives of one group and kind against a communicator's of that func.
struct KindPairing {
  std::vector<size_t> trace;  // indices into the rank's collectives, by start
  Ops side;                   // by seq
  const NcclCommunicatorProfile* comm = nullptr;
  long shift = 0;             // trace[i] pairs with side[i + shift]
};

long lowestShift(const KindPairing& k) { return std::min<long>(0, long(k.side.size()) - long(k.trace.size())); }
long highestShift(const KindPairing& k) { return std::max<long>(0, long(k.side.size()) - long(k.trace.size())); }

// The record trace[i] pairs with at `shift`; nullptr past either end of the records.
const NcclOperation* pairedOp(const KindPairing& k, size_t i, long shift) {
  const long j = long(i) + shift;
  return j < 0 || j >= long(k.side.size()) ? nullptr : k.side[size_t(j)];
}

// The clock differences of the pairs at a shift: GPU (kernel start - first
// channel start) and host (launch call - enqueue), on at most ~64 pairs.
struct Differences {
  std::vector<int64_t> gpu, host;
};
Differences differences(const std::vector<CollectiveEvent>& cs, const KindPairing& k, long shift) {
  Differences d;
  const size_t step = std::max<size_t>(1, k.trace.size() / 64);
  for (size_t i = 0; i < k.trace.size(); i += step) {
    const NcclOperation* op = pairedOp(k, i, shift);
    if (!op) continue;
    const CollectiveEvent& c = cs[k.trace[i]];
    if (!op->channel_times.empty()) d.gpu.push_back(c.start_ns - op->channel_times.front().start_ns);
    if (c.launch_ns >= 0 && op->host_start_ns >= 0) d.host.push_back(c.launch_ns - op->host_start_ns);
  }
  return d;
}

// Pass 1 (no offsets known): the shift whose differences scatter least.
// Pass 2: the shift whose differences lie nearest the rank's offsets.
// Ties go to the later shift (the recorded steps come after the warm-up).
void chooseShift(const std::vector<CollectiveEvent>& cs, KindPairing& k, std::optional<int64_t> gpu,
                 std::optional<int64_t> host) {
  int64_t best = INT64_MAX;
  for (long s = lowestShift(k); s <= highestShift(k); ++s) {
    const Differences d = differences(cs, k, s);
    if (d.gpu.empty() && d.host.empty()) continue;
    int64_t score = 0;
    if (!d.gpu.empty()) score += medianDistance(d.gpu, gpu ? *gpu : medianNs(d.gpu));
    if (!d.host.empty()) score += medianDistance(d.host, host ? *host : medianNs(d.host));
    if (score <= best) best = score, k.shift = s;
  }
  if (best == INT64_MAX) k.shift = highestShift(k);  // nothing to fit: the latest ones
}

// How many of the group's collectives a communicator holds, kind by kind.
size_t coverage(const std::map<CollectiveKind, std::vector<size_t>>& group, const NcclCommunicatorProfile& comm) {
  std::map<CollectiveKind, size_t> side;
  for (const NcclOperation& op : comm.collectives) ++side[collectiveKindFromText(op.func)];
  size_t covered = 0;
  for (const auto& [kind, list] : group) covered += std::min(list.size(), side[kind]);
  return covered;
}

std::string commLabel(const NcclCommunicatorProfile& c) {
  return "communicator " + c.comm_hash + (c.comm_name.empty() ? "" : " \"" + c.comm_name + "\"") + " (" +
         std::to_string(c.nranks) + " ranks)";
}

}  // namespace

RankNcclJoin joinNcclProfile(const std::vector<CollectiveEvent>& cs, const NcclProfile& profile, int rank) {
  RankNcclJoin out;
  out.has_profile = true;
  out.details.resize(cs.size());
  const std::string who = profile.file.filename().string() + " (rank " + std::to_string(rank) + ")";

  // The trace's NCCL collectives by group, then kind; each group's size.
  std::map<std::string, std::map<CollectiveKind, std::vector<size_t>>> groups;
  std::map<std::string, int> group_size;
  for (size_t i = 0; i < cs.size(); ++i) {
    if (!cs[i].on_gpu || cs[i].kernel_kind == CollectiveKind::SendRecv) continue;
    ++out.gpu_collectives;
    groups[cs[i].group][cs[i].kernel_kind].push_back(i);
    group_size[cs[i].group] = std::max(group_size[cs[i].group], cs[i].group_size);
  }

  // Each group its communicator: the right size, most of its collectives, its name.
  std::vector<KindPairing> pairings;
  std::set<const NcclCommunicatorProfile*> used;
  // Groups with the most collectives choose first (a small group must not
  // take the communicator that covers a larger one as well as its own).
  std::vector<const std::pair<const std::string, std::map<CollectiveKind, std::vector<size_t>>>*> order;
  for (const auto& g : groups) order.push_back(&g);
  auto count = [](const auto* g) {
    size_t n = 0;
    for (const auto& [kind, list] : g->second) n += list.size();
    return n;
  };
  std::stable_sort(order.begin(), order.end(), [&](const auto* a, const auto* b) { return count(a) > count(b); });
  for (const auto* entry : order) {
    const std::string& group = entry->first;
    const auto& kinds = entry->second;
    const NcclCommunicatorProfile* best = nullptr;
    size_t best_cover = 0;
    for (const NcclCommunicatorProfile& comm : profile.communicators) {
      if (used.count(&comm) || (group_size[group] > 0 && comm.nranks != group_size[group])) continue;
      const size_t cover = coverage(kinds, comm);
      const bool named = !comm.comm_name.empty() && group == "pg " + comm.comm_name;
      if (cover > best_cover || (cover == best_cover && cover > 0 && named)) best = &comm, best_cover = cover;
    }
    if (!best) continue;
    used.insert(best);
    for (const auto& [kind, list] : kinds) {
      KindPairing k;
      k.trace = list;
      k.comm = best;
      for (const NcclOperation& op : best->collectives)
        if (collectiveKindFromText(op.func) == kind) k.side.push_back(&op);
      if (k.side.size() < k.trace.size())
        out.warnings.push_back(who + ": " + std::to_string(k.trace.size()) + " " +
                               std::string(collectiveKindName(kind)) + " in " + group + " but " +
                               std::to_string(k.side.size()) + " in " + commLabel(*best) + "; " +
                               std::to_string(k.trace.size() - k.side.size()) + " not joined");
      if (!k.side.empty()) pairings.push_back(std::move(k));
    }
  }
  for (const NcclCommunicatorProfile& comm : profile.communicators)
    if (!used.count(&comm) && !comm.collectives.empty())
      out.warnings.push_back(who + ": " + commLabel(comm) + " matches no process group of the trace; not joined");

  // Pass 1 per kind, the rank's offsets from those, pass 2 against them.
  std::vector<int64_t> gpu, host;
  for (KindPairing& k : pairings) {
    chooseShift(cs, k, std::nullopt, std::nullopt);
    const Differences d = differences(cs, k, k.shift);
    gpu.insert(gpu.end(), d.gpu.begin(), d.gpu.end());
    host.insert(host.end(), d.host.begin(), d.host.end());
  }
  const std::optional<int64_t> gpu0 = gpu.empty() ? std::nullopt : std::optional(medianNs(gpu));
  const std::optional<int64_t> host0 = host.empty() ? std::nullopt : std::optional(medianNs(host));
  for (KindPairing& k : pairings) chooseShift(cs, k, gpu0, host0);

  // The pairs, the offset over all of them and its residual.
  std::vector<int64_t> offsets;
  for (const KindPairing& k : pairings)
    for (size_t i = 0; i < k.trace.size(); ++i) {
      const NcclOperation* op = pairedOp(k, i, k.shift);
      if (op && !op->channel_times.empty())
        offsets.push_back(cs[k.trace[i]].start_ns - op->channel_times.front().start_ns);
    }
  if (!offsets.empty()) {
    out.clock_offset_ns = medianNs(offsets);
    out.residual_ns = medianDistance(offsets, *out.clock_offset_ns);
    for (int64_t o : offsets) out.max_residual_ns = std::max(out.max_residual_ns, std::abs(o - *out.clock_offset_ns));
  }
  if (out.max_residual_ns > kPoorFitNs)
    out.warnings.push_back(who + ": the channel times fit the kernels poorly (a collective's first channel starts up to " +
                           std::to_string(out.max_residual_ns / 1000) + " us from where the others place it): " +
                           "a side file of another run, or collectives out of order?");
  const int64_t offset = out.clock_offset_ns.value_or(0);
  const int64_t slack = out.max_residual_ns + 1000;  // a channel may start that much before its kernel
  for (const KindPairing& k : pairings)
    for (size_t i = 0; i < k.trace.size(); ++i) {
      const NcclOperation* op = pairedOp(k, i, k.shift);
      if (!op) continue;
      const CollectiveEvent& c = cs[k.trace[i]];
      NcclCollectiveDetail d{k.comm->comm_hash, op->seq, op->algo, op->proto, op->channels, op->warps, {}};
      for (NcclChannelTime t : op->channel_times) {  // only where there is an offset: some channel has times
        t.start_ns += offset;
        t.stop_ns += offset;
        if (t.start_ns < c.start_ns - slack || t.stop_ns > c.end_ns + slack) ++out.channels_outside;
        d.channel_times.push_back(t);
      }
      out.details[k.trace[i]] = std::move(d);
      ++out.joined;
    }
  return out;
}

}  // namespace fuselab
