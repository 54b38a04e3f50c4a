// A sweep: one workload over a range of token counts, for several variants
// (eager, CUDA graph, fused), measuring time per forward and GPU utilization
// at each point, and finding where each variant turns from overhead-bound to
// compute-bound.
//
// How a point is measured:
//  - time per forward: timed forwards with no profiler attached (warm-up, then
//    `rounds` rounds of n forwards + synchronize, n grown until a round lasts
//    at least min_round_ns; the median round gives the time per forward), so
//    the profiler's own overhead does not inflate the overhead-bound points;
//  - GPU utilization, kernels and launches per forward, verdict: a short
//    capture (runCapture, `capture_steps` steps) analysed with analyzeTrace.
//    On the CPU device there is no GPU activity: utilization is absent.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "profiling/analysis/work/Roofline.h"
#include "profiling/capture_api/CaptureTypes.h"
#include "profiling/capture_api/Workload.h"

namespace fuselab {

// Cancel flag, progress fraction and phase text, shared with a watcher (the
// GUI); the same type as a capture's.
using SweepProgress = CaptureProgress;

struct SweepPoint {
  int64_t tokens = 0;
  bool ok = false;
  std::string error;                  // why the point failed (out of memory, shape rules, ...)
  double time_per_forward_ns = 0;     // median over the rounds
  int forwards_timed = 0;             // over all rounds
  std::optional<double> gpu_utilization;     // 0..1, from the capture (absent on the CPU)
  std::optional<double> kernels_per_forward;  // mean over the captured steps
  std::optional<double> launches_per_forward;
  std::string verdict;                // verdictName() of the capture, "" without one
  std::string note;                   // capture notes (CPU-only fallback, a failed capture)
  // The roofline trajectory: FLOPs per forward (the workload's count) and the
  // bytes its GPU ops move per forward (the capture's work models; a CUDA graph
  // replays the eager kernels, so it takes the eager point's bytes).
  double flops_per_forward = 0;
  std::optional<double> bytes_per_forward;
  // allreduce: the message's bus bandwidth (nccl-tests' busbw from the time
  // per forward) and what NCCL's profiler plugin said it ran ("RING LL"; ""
  // without a side file: Gloo, or no plugin).
  std::optional<double> busbw_gbps;
  std::string nccl_algo_proto;
};

struct SweepCrossover {
  bool found = false;
  double tokens = 0;        // where the overhead floor meets the compute line
  double floor_ns = 0;      // time per forward at the smallest token count
  double slope_ns_per_token = 0;  // the compute line through the largest point
  std::string explanation;  // for people, with the numbers (or why none was found)
};

struct SweepSeries {
  std::string variant;      // "eager", "graph", "fused"
  WorkloadParams params;    // of the first point (batch/seq vary)
  bool skipped = false;
  std::string skip_reason;  // e.g. "CUDA graphs need a CUDA GPU (device cpu)"
  std::vector<SweepPoint> points;
  SweepCrossover crossover;
};

struct SweepOptions {
  WorkloadParams base;                 // workload, dim, hidden, dtype, device, seed; batch/seq are set per point
  std::vector<std::string> variants;   // "eager", "graph", "fused"
  std::vector<int64_t> tokens;         // ascending
  int warmup = 3;                      // untimed forwards before timing
  int rounds = 5;                      // timed rounds (median taken)
  int64_t min_round_ns = 2'000'000;    // n forwards per round grows until a round lasts this long
  int max_forwards_per_round = 4096;
  int capture_steps = 3;               // steps of the utilization capture; 0 = no capture
  std::vector<int> ranks;              // distributed workloads (tp_mlp): rank counts to sweep (empty: base.ranks)
  // Ceilings measured on GPUs (the settings'); else the published ones of the GPU.
  std::vector<Ceilings> measured_ceilings;
  // Called on the sweeping thread after each point (e.g. to update a plot).
  std::function<void(const SweepSeries&, const SweepPoint&)> on_point;
};

struct SweepResult {
  std::vector<SweepSeries> series;
  bool cancelled = false;
  std::string device;  // "cuda" / "cpu"
  std::optional<Ceilings> ceilings;  // of the GPU the points ran on, when known
};

// Bad options (unknown variant or workload, empty or bad token list). The
// message names the option and the allowed values.
class SweepError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The known variant names, in plot order.
const std::vector<std::string>& sweepVariantNames();

// "1:8192" -> 1, 2, 4, ..., 8192 (powers of two from the first, plus the last
// when it is not one); "1,64,512" -> those values (sorted, deduplicated).
// Throws SweepError naming the text.
std::vector<int64_t> parseTokenRange(const std::string& text);

// Workload parameters of `variant` at `tokens` tokens, or the reason the
// variant cannot run (returned in *skip_reason, parameters unspecified).
// eager: base; graph: base with graph on (CUDA only); fused: the workload
// "fused_<base>" when it exists (mlp -> fused_mlp). Tokens map to batch (seq 1)
// for mlp/fused_mlp and to batch for linear; other workloads have no token
// dimension (SweepError).
WorkloadParams sweepParams(const SweepOptions& options, const std::string& variant, int64_t tokens,
                           std::string* skip_reason);

// Runs the sweep on the calling thread. Points that fail (e.g. out of memory)
// are recorded with their error and the sweep goes on. Cancelling stops
// before the next point or round; the result holds what was measured.
// Throws SweepError for bad options, CaptureError when there is no capture
// module to run the points.
SweepResult runSweep(const SweepOptions& options, SweepProgress* progress = nullptr);

// A sweep of a distributed workload (tp_mlp; SweepRun.cpp): a series per
// variant and rank count ("overlap, 2 ranks"), each point a run of its own
// processes (DistributedCapture.h). Time per forward is rank 0's unprofiled
// time per step (the observer-effect forwards its worker times without the
// profiler); utilization and kernels come from rank 0's trace.
SweepResult runRunSweep(const SweepOptions& options, SweepProgress* progress);
// tp_mlp's parameters at `tokens` tokens (batch = tokens, seq 1) on `ranks`
// ranks. Throws SweepError for a variant tp_mlp does not have.
WorkloadParams runSweepParams(const SweepOptions& options, const std::string& variant, int64_t tokens, int ranks);

// The figures of one point from a captured trace: verdict, GPU utilization,
// kernels and launches per step, bytes per step.
void addTraceFigures(const Trace& trace, const SweepOptions& options, SweepPoint& point, SweepResult& result);

// The crossover of one series' successful points: floor = time at the
// smallest token count, compute line = time / tokens at the largest; found
// when the largest point takes more than twice the floor.
SweepCrossover findCrossover(const std::vector<SweepPoint>& points);

// An allreduce series split into one per algorithm and protocol NCCL chose
// ("eager, 2 ranks: RING LL", ...; its points in size order), so the table
// and the plot show where each takes over. A series whose points name one
// or none stays whole.
std::vector<SweepSeries> splitByNcclProtocol(SweepSeries series);

// The sweep as CSV: header then one row per point (skipped variants get one
// row with status "skipped"). Columns: variant, workload, tokens, status,
// time_per_forward_us, gpu_utilization, kernels_per_forward,
// launches_per_forward, verdict, forwards_timed, note.
std::string sweepCsv(const SweepResult& result);
// Writes sweepCsv atomically; throws FileWriteError.
void writeSweepCsv(const SweepResult& result, const std::filesystem::path& path);

// A summary for the terminal: one table per variant and the crossovers.
std::string sweepText(const SweepResult& result);

}  // namespace fuselab
