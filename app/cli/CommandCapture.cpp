// `fuselab capture --workload mlp --batch 64 --seq 128 --dim 768 --hidden 3072
//  --dtype bf16 --steps 3 --warmup 3 [--graph] [--device cpu] [--counters] --out trace.json.gz`:
// runs a workload live, captures CPU and GPU, writes the trace and prints the
// analysis summary. Exit codes: 0 ok, 1 out of memory or a failed write,
// 2 a bad value (message with the allowed range).
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "app/report/AnalysisReport.h"
#include "app/cli/CaptureRunCommand.h"
#include "app/capture/LaunchedRank.h"
#include "app/capture/DistributedCapture.h"
#include "app/capture/NcclPluginPath.h"
#include "app/capture/RankLauncher.h"
#include "app/capture/CaptureModule.h"
#include "app/cli/Commands.h"
#include "app/Settings.h"
#include "app/capture/WorkloadCapture.h"
#include "profiling/analysis/single/Analysis.h"
#include "profiling/capture_api/CapturePlan.h"
#include "profiling/capture_api/Workload.h"
#include "profiling/capture_api/WorkloadCatalog.h"
#include "profiling/trace/ChromeTraceExport.h"
#ifdef FUSELAB_HAVE_GUI
#include "app/gui/GlfwWindow.h"
#include "app/gui/HeadlessScreenshot.h"
#endif

namespace fuselab {
namespace {

constexpr int kExitBadValue = 2;
constexpr int kExitFailed = 1;

struct CaptureArgs {
  std::string workload = "mlp";
  std::string variant;
  // Sizes as typed; unset ones take the workload's defaults.
  std::optional<std::string> batch, seq, dim, hidden, out_features;
  std::optional<std::string> dtype;  // unset: the workload's default on the device (bf16 on cuda, fp32 on cpu)
  std::string device = "cuda";
  bool graph = false;
  std::string steps = "3";
  std::string warmup = "3";
  std::string seed = "0";
  bool no_shapes = false;
  bool memory = true;
  bool no_cupti = false;
  bool driver_api = false;
  bool counters = false;  // hardware counters in a pass after the steps
  std::string out;  // trace file; none written when empty
  std::string screenshot;  // PNG of the captured timeline; none when empty
  bool json = false;
  std::optional<std::string> ranks;  // unset: the workload's default (tp_mlp: 2)
  std::string delay_rank;  // "R:US"
  std::string rank_timeout = "300";
  bool rank_worker = false;  // one rank of a job a parent fuselab started (DistributedCapture.h)
};

class BadValue : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

int64_t parseInt(const std::string& flag, const std::string& text, int64_t min, int64_t max) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max)
    throw BadValue(flag + " must be an integer from " + std::to_string(min) + " to " + std::to_string(max) +
                   ", got '" + text + "'");
  return v;
}

WorkloadParams workloadParams(const CaptureArgs& a) {
  WorkloadParams p;
  const Device device = parseDevice(a.device);
  bool known = false;
  for (const auto& info : workloadCatalog())
    if (info.name == a.workload) p = info.defaultsFor(device), known = true;
  if (!known) {
    std::string choices;
    for (const auto& info : workloadCatalog()) choices += (choices.empty() ? "" : ", ") + info.name;
    throw BadValue("--workload must be one of " + choices + ", got '" + a.workload + "'");
  }
  p.workload = a.workload;
  p.variant = a.variant;
  if (a.batch) p.batch = parseInt("--batch", *a.batch, SizeLimits::kMin, SizeLimits::kMaxBatch);
  if (a.seq) p.seq = parseInt("--seq", *a.seq, SizeLimits::kMin, SizeLimits::kMaxSeq);
  if (a.dim) p.dim = parseInt("--dim", *a.dim, SizeLimits::kMin, SizeLimits::kMaxDim);
  if (a.hidden) p.hidden = parseInt("--hidden", *a.hidden, SizeLimits::kMin, SizeLimits::kMaxHidden);
  if (a.out_features) p.out = parseInt("--out-features", *a.out_features, SizeLimits::kMin, SizeLimits::kMaxOut);
  if (a.dtype) p.dtype = parseDType(*a.dtype);
  p.device = device;
  p.graph = a.graph;
  p.seed = static_cast<uint64_t>(parseInt("--seed", a.seed, 0, INT64_MAX));
  if (a.ranks) p.ranks = static_cast<int>(parseInt("--ranks", *a.ranks, 1, SizeLimits::kMaxRanks));
  if (!a.delay_rank.empty()) parseDelayRank(a.delay_rank, p);
  if (!isDistributedWorkload(p.workload) && (p.ranks != 1 || p.delay_rank >= 0))
    throw BadValue("--ranks and --delay-rank apply to distributed workloads (tp_mlp, allreduce), not " + p.workload);
  return p;
}

// The trace is already written (--out) and summarised: a failed screenshot
// loses nothing, and says why.
int writeCaptureScreenshot(const std::string& png, Trace trace, bool quiet) {
#ifdef FUSELAB_HAVE_GUI
  HeadlessScreenshot o;
  o.out = png;
  const std::string label = "live: " + trace.meta.trace_name;
  try {
    RgbaImage image = writeHeadlessScreenshot(std::make_shared<const Trace>(std::move(trace)), label, o);
    if (!quiet) std::cout << "wrote " << png << " (" << image.width << "x" << image.height << ")\n";
  } catch (const GuiUnavailable& e) {
    std::cerr << "fuselab capture: no screenshot: " << e.what() << "\n";
    return kExitFailed;
  } catch (const std::exception& e) {
    std::cerr << "fuselab capture: screenshot failed: " << e.what() << "\n";
    return kExitFailed;
  }
  return 0;
#else
  (void)png, (void)trace, (void)quiet;
  std::cerr << "fuselab capture: --screenshot needs the GUI, and this build has none (configured with "
               "FUSELAB_GUI=OFF); the capture above ran anyway\n";
  return kExitFailed;
#endif
}

// The workload's parameters and the capture's options from the typed values;
// false, with the message printed, when one of them is out of range.
bool readCaptureValues(const CaptureArgs& a, WorkloadParams& params, CaptureOptions& options) {
  try {
    params = workloadParams(a);
    options.steps = static_cast<int>(parseInt("--steps", a.steps, 1, 10000));
    options.warmup = static_cast<int>(parseInt("--warmup", a.warmup, 0, 10000));
  } catch (const std::exception& e) {  // BadValue, WorkloadError (dtype, device)
    std::cerr << "fuselab capture: " << e.what() << "\n";
    return false;
  }
  options.record_shapes = !a.no_shapes;
  options.memory = a.memory;
  options.gpu = !a.no_cupti;
  options.cupti_driver_api = a.driver_api;
  options.counters = a.counters;
  return true;
}

// A rank that torchrun (or another launcher) started: it captures itself
// into the run folder --out names, as the ranks fuselab starts do. Sets the
// ranks to the launcher's and `out` to this rank's trace file; throws
// BadValue where the values typed contradict the launcher.
std::optional<LaunchedRank> rankFromLauncher(const CaptureArgs& a, WorkloadParams& params, std::string& out) {
  std::optional<LaunchedRank> launched = launchedRankFromEnvironment();
  if (launched) {
    if (!a.screenshot.empty()) throw BadValue("--screenshot of a run: use fuselab screenshot --trace DIR");
    if (a.ranks && params.ranks != launched->world_size)
      throw BadValue("--ranks " + std::to_string(params.ranks) + " but the launcher started WORLD_SIZE " +
                     std::to_string(launched->world_size) + " ranks");
    params.ranks = launched->world_size;
    out = launchedRankTraceFile(a.out, *launched).string();
    // Before NCCL starts (with the workload): the side file goes beside this rank's trace.
    for (const auto& [name, value] : ncclProfilerEnv(std::filesystem::path(out).parent_path()))
      ::setenv(name.c_str(), value.c_str(), 0);
  }
  return launched;
}

// A run whose ranks fuselab starts itself, each a process capturing itself.
int runStartedRanks(const CaptureArgs& a, const WorkloadParams& params, const CaptureOptions& options) {
  if (!a.screenshot.empty()) {
    std::cerr << "fuselab capture: --screenshot of a run: use fuselab screenshot --trace DIR with --out DIR\n";
    return kExitBadValue;
  }
  int timeout_s = 0;
  try {
    timeout_s = static_cast<int>(parseInt("--rank-timeout", a.rank_timeout, 1, 86400));
  } catch (const BadValue& e) {
    std::cerr << "fuselab capture: " << e.what() << "\n";
    return kExitBadValue;
  }
  return runCaptureRunCommand(params, options, {a.out, a.json, timeout_s});
}

// Runs the capture into `result`. When it fails: says why and returns the exit
// code, a bad value unless memory, the capture module or something unforeseen
// failed.
std::optional<int> captureInto(CaptureResult& result, const WorkloadParams& params, const CaptureOptions& options) {
  // Before a long wait (estimated from the first warm-up forward): how long,
  // and the sizes of a quicker first look. On stderr: stdout may be --json.
  CaptureProgress progress;
  progress.on_long_wait = [&params](double estimated_s, double forward_s) {
    const WorkloadParams smaller = smallerForCapture(params, estimated_s, kQuickCaptureSeconds);
    std::cerr << "fuselab capture: this capture takes " << aboutSeconds(estimated_s) << " (one forward: "
              << roundedSeconds(forward_s) << ")";
    if (smaller.batch != params.batch || smaller.seq != params.seq)
      std::cerr << "; for a first look, " << sizeOptions(smaller) << " takes " << aboutSeconds(kQuickCaptureSeconds);
    std::cerr << std::endl;
  };
  try {
    result = captureWorkload(params, options, &progress);
  } catch (const WorkloadOutOfMemory& e) {
    std::cerr << "fuselab capture: " << e.what() << "\n";
    return kExitFailed;
  } catch (const NoGpuError& e) {
    std::cerr << "fuselab capture: " << e.what() << ": use --device cpu\n";
    return kExitBadValue;
  } catch (const WorkloadError& e) {
    std::cerr << "fuselab capture: " << e.what() << "\n";
    return kExitBadValue;
  } catch (const CaptureUnavailable& e) {  // no capture module: nothing was wrong with the values
    std::cerr << "fuselab capture: " << e.what() << "\n";
    return kExitFailed;
  } catch (const CaptureError& e) {
    std::cerr << "fuselab capture: " << e.what() << "\n";
    return kExitBadValue;
  } catch (const std::exception& e) {
    std::cerr << "fuselab capture: failed: " << e.what() << "\n";
    return kExitFailed;
  }
  return std::nullopt;
}

// The analysis summary of the capture (text, or JSON with --json), then the
// --screenshot.
int printCaptureAnalysis(const CaptureArgs& a, CaptureResult& result) {
  AnalysisOptions analysis_options;
  analysis_options.measured_ceilings = loadSettings(defaultSettingsFile()).measured_ceilings;
  const TraceAnalysis analysis = analyzeTrace(result.trace, analysis_options);
  if (a.json)
    std::cout << analysisJson(result.trace, analysis).dump(2) << "\n";
  else
    std::cout << analysisText(result.trace, analysis);
  if (!a.screenshot.empty()) return writeCaptureScreenshot(a.screenshot, std::move(result.trace), a.json);
  return 0;
}

// Writes the trace (--out) and says what was captured; then the analysis,
// unless this process is one rank of a run (the run is analysed as a whole).
int reportCapture(const CaptureArgs& a, CaptureResult& result, const std::string& out,
                  const std::optional<LaunchedRank>& launched) {
  // With --json, stdout carries the JSON alone: what happened goes to stderr.
  std::ostream& status = a.json ? std::cerr : std::cout;
  status << "captured " << result.steps_done << " steps of " << result.trace.meta.trace_name << "\n";
  if (!out.empty()) {
    try {
      exportChromeTrace(result.trace, out);
    } catch (const std::exception& e) {
      std::cerr << "fuselab capture: cannot write " << out << ": " << e.what() << "\n";
      return kExitFailed;
    }
    status << "wrote " << out << "\n";
  }
  if (a.rank_worker) return 0;  // the parent analyses the run
  if (launched) {
    if (launched->rank == 0)
      status << "once all " << launched->world_size << " ranks have written: fuselab open " << a.out
             << "  (or fuselab analyze " << a.out << ")\n";
    return 0;
  }
  return printCaptureAnalysis(a, result);
}

int runCaptureCommand(const CaptureArgs& a) {
  WorkloadParams params;
  CaptureOptions options;
  if (!readCaptureValues(a, params, options)) return kExitBadValue;
  if (a.rank_worker && !stopWithLauncher()) {
    std::cerr << "fuselab capture: the process that started this rank is gone\n";
    return kExitFailed;
  }
  if (isDistributedWorkload(params.workload) && a.counters) {
    std::cerr << "fuselab capture: --counters applies to single-process workloads, not " << params.workload
              << " (replaying its collectives one kernel at a time would stall the other ranks)\n";
    return kExitBadValue;
  }
  std::optional<LaunchedRank> launched;
  std::string out = a.out;
  if (isDistributedWorkload(params.workload) && !a.rank_worker) {
    try {
      launched = rankFromLauncher(a, params, out);
    } catch (const std::exception& e) {
      std::cerr << "fuselab capture: " << e.what() << "\n";
      return kExitBadValue;
    }
    if (!launched) return runStartedRanks(a, params, options);
  }

  CaptureResult result;
  if (const std::optional<int> failed = captureInto(result, params, options)) return *failed;
  for (const auto& m : result.messages) std::cerr << "fuselab capture: " << m << "\n";
  const int code = reportCapture(a, result, out, launched);  // a step out of memory: what led there is written
  return result.out_of_memory.empty() ? code : kExitFailed;
}

}  // namespace

void addCaptureCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("capture", "Run a workload live, capture what the CPU dispatched and the GPU ran, "
                                            "write the trace and print the analysis summary");
  auto a = std::make_shared<CaptureArgs>();
  std::string workloads;
  for (const auto& info : workloadCatalog()) workloads += (workloads.empty() ? "" : ", ") + info.name;
  cmd->add_option("--workload", a->workload, "Workload: " + workloads)->capture_default_str();
  cmd->add_option("--variant", a->variant, "Workload variant (mlp: geglu or stacked; tp_mlp: eager, fused or overlap)");
  cmd->add_option("--batch", a->batch, "Batch size (default: the workload's on the device; the CPU's are smaller)")
      ->type_name("INT");
  cmd->add_option("--seq", a->seq, "Sequence length (mlp; tokens = batch * seq)")->type_name("INT");
  cmd->add_option("--dim", a->dim, "Model dim / in features (matmul_add: the square size)")->type_name("INT");
  cmd->add_option("--hidden", a->hidden, "Hidden size (mlp)")->type_name("INT");
  cmd->add_option("--out-features", a->out_features, "Out features (linear; train_step: the vocabulary)")->type_name("INT");
  cmd->add_option("--dtype", a->dtype, "bf16, fp16 or fp32 (default: the workload's on the device: bf16 on cuda, fp32 on cpu)")
      ->type_name("TEXT");
  cmd->add_option("--device", a->device, "cuda or cpu")->capture_default_str();
  cmd->add_flag("--graph", a->graph, "Capture one forward as a CUDA graph and replay it");
  cmd->add_option("--steps", a->steps, "Recorded steps (ProfilerStep#k)")->type_name("INT")->capture_default_str();
  cmd->add_option("--warmup", a->warmup, "Forwards before recording")->type_name("INT")->capture_default_str();
  cmd->add_option("--seed", a->seed, "Seed of the weights and inputs")->type_name("INT")->capture_default_str();
  cmd->add_flag("--no-shapes", a->no_shapes, "Do not record input dims of the CPU ops");
  cmd->add_flag("--memory,!--no-memory", a->memory,
                "Record allocations and frees as torch.profiler's profile_memory does (the default; --no-memory: not)");
  cmd->add_flag("--no-cupti", a->no_cupti, "CPU side only (no CUPTI)");
  cmd->add_flag("--driver-api", a->driver_api, "Record every CUDA driver call, not only kernel launches");
  cmd->add_flag("--counters", a->counters,
                "After the steps, replay one more forward under CUPTI's range profiler and add each kernel's "
                "measured DRAM bytes and tensor pipe activity beside the model's figures (needs permission to "
                "read GPU counters)");
  cmd->add_option("--out", a->out,
                  "Trace file to write (.json or .json.gz); for tp_mlp the run folder (under torchrun: each rank "
                  "writes DIR/rank-R.json.gz)")
      ->type_name("FILE|DIR");
  cmd->add_option("--screenshot", a->screenshot, "Also write a PNG of the captured timeline (GUI builds)")
      ->type_name("FILE");
  cmd->add_flag("--json", a->json, "Print the analysis as JSON instead of text");
  cmd->add_option("--ranks", a->ranks, "Processes of a distributed workload (tp_mlp, allreduce): one per GPU (NCCL) or CPU "
                                       "process (Gloo), default 2; --out DIR keeps the run folder")
      ->type_name("INT");
  cmd->add_option("--delay-rank", a->delay_rank, "R:US: rank R sleeps US microseconds before its all-reduce in "
                                                 "every step (a straggler)")->type_name("R:US");
  cmd->add_option("--rank-timeout", a->rank_timeout, "Seconds the ranks of a run may take in all")
      ->type_name("S")->capture_default_str();
  cmd->add_flag("--rank-worker", a->rank_worker, "One rank of a run started by fuselab itself (internal)")
      ->group("");
  cmd->callback([a, &exit_code] { exit_code = runCaptureCommand(*a); });
}

}  // namespace fuselab
