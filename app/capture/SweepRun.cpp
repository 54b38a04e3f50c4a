// The sweep of a distributed workload (Sweep.h: runRunSweep).
#include <algorithm>
#include <cstdio>

#include "app/capture/DistributedCapture.h"
#include "app/capture/Sweep.h"
#include "profiling/analysis/collectives/NcclJoin.h"
#include "profiling/capture_api/WorkloadCatalog.h"
#include "profiling/trace/ObserverEffect.h"
#include "profiling/trace/RunLoader.h"

namespace fuselab {

WorkloadParams runSweepParams(const SweepOptions& o, const std::string& variant, int64_t tokens, int ranks) {
  const WorkloadInfo& info = catalogWorkload(o.base.workload);
  // "graph": eager replayed as a CUDA graph, to tell what overlap gains from its graph apart from its overlap.
  const bool graph = variant == "graph";
  if (!graph && std::find(info.variants.begin(), info.variants.end(), variant) == info.variants.end()) {
    std::string choices;
    for (const auto& v : info.variants) choices += (choices.empty() ? "" : ", ") + v;
    throw SweepError("unknown sweep variant '" + variant + "' for " + info.name + " (choose " + choices + " or graph)");
  }
  WorkloadParams p = o.base;
  p.variant = graph ? "eager" : variant;
  p.graph = graph;
  p.batch = tokens;
  p.seq = 1;
  p.ranks = ranks;
  return p;
}

namespace {

// An allreduce point: the flops are the sum's additions, the bus bandwidth
// nccl-tests' (bytes / time x 2(n-1)/n), the algorithm and protocol from
// rank 0's NCCL side file, when there is one.
void addAllReduceFigures(const Run& run, const WorkloadParams& p, SweepPoint& point) {
  const double bytes = double(p.batch * p.seq * p.dim) * double(elementBytes(p.dtype));
  point.flops_per_forward = double(p.batch * p.seq * p.dim) * double(p.ranks - 1);
  if (point.time_per_forward_ns > 0 && p.ranks > 1)
    point.busbw_gbps = bytes / point.time_per_forward_ns * 2.0 * double(p.ranks - 1) / double(p.ranks);
  const RankTrace& rank0 = run.ranks.front();  // the ranks agree on what NCCL chose
  if (rank0.nccl)
    for (const auto& d : joinNcclProfile(findCollectives(rank0.trace), *rank0.nccl, rank0.rank).details)
      if (d) {
        point.nccl_algo_proto = d->algo + " " + d->proto;
        break;
      }
  char bw[64] = "";
  if (point.busbw_gbps) std::snprintf(bw, sizeof bw, ", busbw %.2f GB/s", *point.busbw_gbps);
  point.note += bw;
  if (!point.nccl_algo_proto.empty()) point.note += ", NCCL " + point.nccl_algo_proto;
}

}  // namespace

std::vector<SweepSeries> splitByNcclProtocol(SweepSeries series) {
  std::vector<std::string> seen;  // "" for the points without a record (failed, or no side file)
  for (const SweepPoint& p : series.points)
    if (std::find(seen.begin(), seen.end(), p.nccl_algo_proto) == seen.end()) seen.push_back(p.nccl_algo_proto);
  if (std::count_if(seen.begin(), seen.end(), [](const std::string& s) { return !s.empty(); }) < 2)
    return {std::move(series)};
  std::vector<SweepSeries> out;
  for (const std::string& proto : seen) {
    SweepSeries part;
    part.variant = series.variant + ": " + (proto.empty() ? std::string("no NCCL record") : proto);
    part.params = series.params;
    for (const SweepPoint& p : series.points)
      if (p.nccl_algo_proto == proto) part.points.push_back(p);
    part.crossover = findCrossover(part.points);
    out.push_back(std::move(part));
  }
  return out;
}

SweepResult runRunSweep(const SweepOptions& o, SweepProgress* progress) {
  if (o.tokens.empty()) throw SweepError("no token counts to sweep");
  if (o.variants.empty()) throw SweepError("no variants to sweep");
  const std::vector<int> rank_counts = o.ranks.empty() ? std::vector<int>{o.base.ranks} : o.ranks;
  SweepResult result;
  result.device = deviceName(o.base.device);
  for (int ranks : rank_counts)
    for (const auto& v : o.variants) {
      SweepSeries s;
      s.variant = v + ", " + std::to_string(ranks) + " rank" + (ranks == 1 ? "" : "s");
      s.params = runSweepParams(o, v, o.tokens.front(), ranks);
      result.series.push_back(std::move(s));
    }
  CaptureOptions co;
  co.warmup = std::max(2, o.warmup);
  co.steps = std::max(3, o.capture_steps);
  const size_t total = result.series.size() * o.tokens.size();
  size_t done = 0;
  for (SweepSeries& s : result.series) {
    for (int64_t tokens : o.tokens) {
      if (progress && progress->cancel.load()) break;
      if (progress) progress->setPhase(double(done) / double(total), s.variant + ": " + std::to_string(tokens) + " tokens");
      SweepPoint point;
      point.tokens = tokens;
      try {
        const WorkloadParams p = runSweepParams(o, s.params.variant, tokens, s.params.ranks);
        RunCaptureOptions run;
        run.cancel = progress ? &progress->cancel : nullptr;
        const RunFolder folder = captureRun(p, co, run);
        const Run r = loadRun(expandRunPaths({folder.path()}));
        if (r.ranks.empty()) throw CaptureError("the run has no rank traces");
        const Trace& rank0 = r.ranks.front().trace;
        const auto effect = observerEffectOf(rank0);
        if (!effect) throw CaptureError("rank 0's trace has no unprofiled timing");
        point.time_per_forward_ns = effect->unprofiled_ns_per_step;
        point.forwards_timed = effect->unprofiled_steps;
        const double t = double(tokens), d = double(p.dim), h = double(p.hidden);
        point.flops_per_forward = 2.0 * t * 3.0 * d * h + 2.0 * t * h;  // the whole job's
        addTraceFigures(rank0, o, point, result);
        point.note = "rank 0 of " + std::to_string(p.ranks);
        if (p.workload == "allreduce") addAllReduceFigures(r, p, point);
        point.ok = true;
      } catch (const std::exception& e) {  // WorkloadError, CaptureError (a failed rank), RunLoadError
        point.error = e.what();
      }
      s.points.push_back(point);
      ++done;
      if (o.on_point) o.on_point(s, s.points.back());
    }
    s.crossover = findCrossover(s.points);
    if (progress && progress->cancel.load()) break;
  }
  if (o.base.workload == "allreduce") {
    std::vector<SweepSeries> split;
    for (SweepSeries& s : result.series)
      for (SweepSeries& part : splitByNcclProtocol(std::move(s))) split.push_back(std::move(part));
    result.series = std::move(split);
  }
  result.cancelled = progress && progress->cancel.load();
  if (progress) progress->setPhase(1.0, result.cancelled ? "cancelled" : "done");
  return result;
}

}  // namespace fuselab
