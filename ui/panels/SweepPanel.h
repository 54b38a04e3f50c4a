// The sweep panel: settings (workload, variants, token range, device), Run
// with a progress bar and Cancel, the plot (time per forward and GPU
// utilization against tokens, log axes, the overhead->compute crossover of
// each variant marked), the table, and CSV export. ImGui only: the caller
// runs the sweep and feeds the results back as SweepPlotData.
#pragma once

#include <imgui.h>

#include <optional>
#include <string>
#include <vector>

#include "ui/Theme.h"

namespace fuselab::ui {

struct SweepPlotPoint {
  double tokens = 0;
  double time_ns = 0;
  std::optional<double> utilization;  // 0..1
  std::optional<double> kernels;      // per forward
  std::optional<double> launches;
  // On the roofline: FLOP/byte and achieved TFLOP/s (FLOPs / time per forward).
  std::optional<double> intensity;
  std::optional<double> tflops;
};

struct SweepPlotSeries {
  std::string label;    // "eager", "graph", "fused"
  std::string detail;   // "mlp, CUDA graph"
  std::vector<SweepPlotPoint> points;   // successful points, ascending tokens
  std::vector<std::string> failures;    // "8192 tokens: out of memory"
  std::optional<double> crossover_tokens;
  std::string crossover_text;
  std::string skip_reason;  // non-empty: the variant did not run
};

struct SweepPlotData {
  std::string title;  // "mlp (dim 768, hidden 3072, bf16) on cuda"
  std::vector<SweepPlotSeries> series;
  // The roof of the trajectory plot (0: unknown, no roof drawn).
  double peak_tflops = 0;
  double bandwidth_gbps = 0;
  std::string roof_label;  // "bf16 roof, measured"
};

// Draws the two stacked plots (time per forward, GPU utilization) with a
// legend into [min, max) of `dl`, and when points have roofline figures the
// trajectory through the roofline beside them (each variant's path as tokens
// grow, its overhead->compute crossover marked, the ridge dashed). Without
// points it draws the empty axes and a note.
void drawSweepPlot(ImDrawList* dl, ImVec2 min, ImVec2 max, const SweepPlotData& data, const Theme& theme);

// The trajectory part alone (SweepTrajectory.cpp), and whether any point has one.
bool hasTrajectory(const SweepPlotData& data);
void drawSweepTrajectory(ImDrawList* dl, ImVec2 min, ImVec2 max, const SweepPlotData& data, const Theme& theme);

// The settings the panel edits.
struct SweepSettings {
  int workload = 0;  // index into the workloads shown
  bool eager = true, graph = true, fused = true;
  char tokens[64] = "1:8192";
  int device = 0;    // 0 cuda, 1 cpu
  char csv_path[512] = "sweep.csv";
};

struct SweepStatus {
  bool busy = false;
  double fraction = 0;
  std::string phase;
  std::string error;    // bad settings or a failed sweep
  std::string message;  // e.g. "wrote sweep.csv"
};

struct SweepActions {
  bool run = false;
  bool cancel = false;
  bool export_csv = false;
};

class SweepPanel {
 public:
  // `workloads`: the names offered (e.g. mlp, linear).
  SweepActions draw(const std::vector<std::string>& workloads, const SweepPlotData& data, const SweepStatus& status,
                    const Theme& theme);
  SweepSettings& settings() { return settings_; }

 private:
  void drawTable(const SweepPlotData& data);
  SweepSettings settings_;
};

// Colour of series i in the plot and its legend.
ImU32 sweepSeriesColor(const Theme& theme, size_t i);

}  // namespace fuselab::ui
