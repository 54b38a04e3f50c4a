// `fuselab sweep --workload mlp --variants eager,graph,fused --tokens 1:8192
//  [--device cuda|cpu] [--dim D --hidden H --out-features O] [--dtype bf16]
//  [--rounds R] [--capture-steps S] [--csv out.csv] [--plot out.png]`:
// time per forward and GPU utilization over a range of token counts, the
// crossover from overhead-bound to compute-bound per variant, a CSV table and
// a plot (log axes, GUI builds).
// Exit codes: 0 ok (skipped variants and failed points are reported in the
// table), 1 a file could not be written or there is no capture module, 2 bad
// arguments.
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>

#include "app/cli/Commands.h"
#include "app/capture/DistributedCapture.h"
#include "app/Settings.h"
#include "app/capture/Sweep.h"
#include "profiling/capture_api/WorkloadCatalog.h"
#include "profiling/trace/AtomicFile.h"
#include "profiling/trace/DurationText.h"

#ifdef FUSELAB_HAVE_GUI
#include "app/gui/TutorialPictures.h"
#endif

namespace fuselab {

namespace {

// One process: eager, graph and fused. A run (each point a job): those of
// eager and overlap the workload has (tp_mlp both, allreduce eager).
std::string defaultVariants(const std::string& workload, bool run) {
  if (!run) return "eager,graph,fused";
  std::string out;
  for (const std::string& v : catalogWorkload(workload).variants)
    if (v == "eager" || v == "overlap") out += (out.empty() ? "" : ",") + v;
  return out;
}

constexpr int kExitFailed = 1;  // a write, or no capture module
constexpr int kExitError = 2;

struct SweepArgs {
  std::string workload = "mlp";
  std::string variants;  // "" = eager,graph,fused (tp_mlp: eager,overlap; allreduce: eager)
  std::string ranks;     // tp_mlp: rank counts, e.g. "1,2"
  std::string tokens;  // "" = the device's: 1:8192 on cuda, 1:512 on cpu
  std::string device = "cuda";
  std::string dtype;   // "" = the workload's default on the device (bf16 on cuda, fp32 on cpu)
  std::optional<int64_t> dim, hidden, out_features;
  int rounds = 5;
  int capture_steps = 3;
  std::string csv;
  std::string plot;
};

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

int runSweepCommand(const SweepArgs& a) {
  SweepOptions o;
  try {
    const Device device = parseDevice(a.device);
    bool known = false;
    for (const auto& info : workloadCatalog())
      if (info.name == a.workload) o.base = info.defaultsFor(device), known = true;
    if (!known) throw SweepError("--workload: unknown workload '" + a.workload + "'");
    o.base.workload = a.workload;
    o.measured_ceilings = loadSettings(defaultSettingsFile()).measured_ceilings;
    o.base.device = device;
    if (!a.dtype.empty()) o.base.dtype = parseDType(a.dtype);
    if (a.dim) o.base.dim = *a.dim;
    if (a.hidden) o.base.hidden = *a.hidden;
    if (a.out_features) o.base.out = *a.out_features;
    checkSizes(o.base);
    const bool run = isDistributedWorkload(o.base.workload);
    o.variants = splitList(!a.variants.empty() ? a.variants : defaultVariants(o.base.workload, run));
    if (!a.ranks.empty() && !run) throw SweepError("--ranks applies to distributed workloads (tp_mlp, allreduce), not " + a.workload);
    for (const auto& r : splitList(a.ranks)) {
      WorkloadParams check = o.base;
      check.ranks = std::atoi(r.c_str());
      if (r.find_first_not_of("0123456789") != std::string::npos || check.ranks < 1 ||
          check.ranks > SizeLimits::kMaxRanks)
        throw SweepError("--ranks: '" + r + "' is not a rank count from 1 to " + std::to_string(SizeLimits::kMaxRanks));
      o.ranks.push_back(check.ranks);
    }
    o.tokens = parseTokenRange(!a.tokens.empty() ? a.tokens : device == Device::Cpu ? "1:512" : "1:8192");
    o.rounds = a.rounds;
    o.capture_steps = a.capture_steps;
    for (const auto& v : o.variants) {
      std::string ignored;
      sweepParams(o, v, o.tokens.front(), &ignored);  // throws for an unknown variant or workload
    }
  } catch (const std::exception& e) {  // SweepError, WorkloadError
    std::cerr << "fuselab sweep: " << e.what() << "\n";
    return kExitError;
  }

  o.on_point = [](const SweepSeries& s, const SweepPoint& p) {
    std::cerr << "  " << s.variant << " @ " << p.tokens << " tokens: "
              << (p.ok ? formatDuration(int64_t(p.time_per_forward_ns)) + " per forward" : "failed: " + p.error)
              << "\n";
  };
  SweepResult result;
  try {
    result = runSweep(o);
  } catch (const SweepError& e) {
    std::cerr << "fuselab sweep: " << e.what() << "\n";
    return kExitError;
  } catch (const CaptureError& e) {  // no capture module
    std::cerr << "fuselab sweep: " << e.what() << "\n";
    return kExitFailed;
  }
  std::cout << sweepText(result);

  int rc = 0;
  if (!a.csv.empty()) {
    try {
      writeSweepCsv(result, a.csv);
      std::cout << "wrote " << a.csv << "\n";
    } catch (const std::exception& e) {
      std::cerr << "fuselab sweep: " << e.what() << "\n";
      rc = kExitFailed;
    }
  }
  if (!a.plot.empty()) {
#ifdef FUSELAB_HAVE_GUI
    try {
      writeSweepPlot(a.plot, result);
      std::cout << "wrote " << a.plot << "\n";
    } catch (const std::exception& e) {
      std::cerr << "fuselab sweep: plot failed: " << e.what() << "\n";
      rc = kExitFailed;
    }
#else
    std::cerr << "fuselab sweep: --plot needs the GUI, and this build has none (configured with FUSELAB_GUI=OFF); "
                 "use --csv and plot the table elsewhere\n";
    rc = kExitError;
#endif
  }
  return rc;
}

}  // namespace

void addSweepCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "sweep", "Time a workload over a range of token counts (eager, CUDA graph, fused) and find where it turns "
               "from overhead-bound to compute-bound");
  auto a = std::make_shared<SweepArgs>();
  cmd->add_option("--workload", a->workload, "mlp, linear, tp_mlp or allreduce (the fused variant of mlp is fused_mlp)")
      ->capture_default_str();
  cmd->add_option("--variants", a->variants,
                  "Comma-separated: eager, graph, fused (default: all three; tp_mlp: eager, fused, overlap or graph, "
                  "default eager,overlap; allreduce: eager)");
  cmd->add_option("--ranks", a->ranks, "tp_mlp, allreduce: comma-separated rank counts, e.g. 1,2 (each point is a run; its "
                                       "time is rank 0's unprofiled time per forward)");
  cmd->add_option("--tokens", a->tokens,
                  "FIRST:LAST (powers of two) or a list such as 1,64,512,8192 (default: 1:8192 on cuda, 1:512 on cpu)");
  cmd->add_option("--device", a->device, "cuda or cpu")->capture_default_str();
  cmd->add_option("--dtype", a->dtype, "bf16, fp16 or fp32 (default: the workload's on the device: bf16 on cuda, fp32 on cpu)");
  cmd->add_option("--dim", a->dim, "Model dim (default: the workload's)");
  cmd->add_option("--hidden", a->hidden, "Hidden size (mlp)");
  cmd->add_option("--out-features", a->out_features, "Out features (linear; train_step: the vocabulary)");
  cmd->add_option("--rounds", a->rounds, "Timed rounds per point (the median is kept)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--capture-steps", a->capture_steps, "Steps of the utilization capture per point (0: none)")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cmd->add_option("--csv", a->csv, "Write the table as CSV");
  cmd->add_option("--plot", a->plot, "Write a PNG plot: time per forward and GPU utilization vs tokens (GUI builds)");
  cmd->callback([a, &exit_code] { exit_code = runSweepCommand(*a); });
}

}  // namespace fuselab
