// The tutorial panels of the window: Tutorial (steps, guess first, run,
// expectations with evidence), Compare (A/B timelines + diff table) and
// Sweep (plot, table, CSV), as movable windows over the Workspace, opened
// from the "Learn" menu. Owns the work behind them: a capture worker for the
// tutorial's runs, background analyses, and the sweep thread.
//
// Hook: construct one next to the Workspace and call draw() right after
// Workspace::drawFrame() in the same ImGui frame.
#pragma once

#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/capture/CaptureWorker.h"
#include "app/capture/Sweep.h"
#include "app/tutorial/TutorialPresets.h"
#include "ui/panels/ComparePanel.h"
#include "ui/panels/SweepPanel.h"
#include "ui/panels/TutorialPanel.h"

namespace fuselab {

class Workspace;

class TutorialPanels {
 public:
  explicit TutorialPanels(Workspace& workspace);
  ~TutorialPanels();  // cancels a running sweep or capture and waits for it
  TutorialPanels(const TutorialPanels&) = delete;
  TutorialPanels& operator=(const TutorialPanels&) = delete;

  void draw();
  // Opens or closes the panels (what the Learn menu toggles).
  void show(bool tutorial, bool compare, bool sweep) {
    show_tutorial_ = tutorial, show_compare_ = compare, show_sweep_ = sweep;
  }

 private:
  void drawMenu();
  void drawTutorial(const ui::Theme& theme);
  void drawCompare(const ui::Theme& theme);
  void drawSweep(const ui::Theme& theme);
  void pollCaptures();
  void checkAgainst(std::shared_ptr<const Trace> trace, std::shared_ptr<const TraceAnalysis> analysis,
                    std::string what);
  void startCompareRun(int other_step);
  void submitNextCompareRun();  // the next of compare_queue_, if any
  void startSweep();

  Workspace& ws_;
  bool show_tutorial_ = false, show_compare_ = false, show_sweep_ = false;

  // Tutorial.
  std::vector<TutorialPreset> presets_;
  std::vector<ui::TutorialStepView> step_views_;
  std::string presets_error_;
  size_t current_ = 0;
  ui::TutorialPanel tutorial_panel_;
  ui::TutorialCheck check_;
  std::shared_ptr<const Trace> checked_trace_;   // the trace check_.results refer to
  std::shared_ptr<const Trace> awaiting_trace_;  // shown in the Workspace, checked once analysed
  CaptureWorker worker_;
  uint64_t tutorial_job_ = 0;
  bool gpu_checked_ = false;  // the tutorial's device choice knows whether a GPU is there
  Device last_device_ = Device::Cuda;  // of the last tutorial run (compare runs use it too)

  // Compare.
  ui::ComparePanel compare_;
  uint64_t compare_job_ = 0;
  std::string compare_status_;
  std::string compare_b_label_;
  // Live compare: B is captured compare_runs_ times and A compare_runs_ - 1
  // more times (the open trace is A's first run), one capture at a time.
  int compare_runs_ = 1;
  struct CompareRun {
    bool side_a = false;
    CaptureRequest request;
  };
  std::deque<CompareRun> compare_queue_;
  bool compare_job_side_a_ = false;     // what the running capture is for
  bool compare_future_side_a_ = false;  // what compare_b_ holds
  size_t compare_b_runs_ = 0;           // B runs received since B was last replaced
  size_t compare_runs_total_ = 0, compare_runs_done_ = 0;
  char compare_path_[512] = {};
  std::future<std::pair<std::shared_ptr<const Trace>, std::shared_ptr<const TraceAnalysis>>> compare_b_;

  // Sweep.
  ui::SweepPanel sweep_panel_;
  std::vector<std::string> sweep_workloads_;
  std::thread sweep_thread_;
  std::unique_ptr<SweepProgress> sweep_progress_;
  std::mutex sweep_mutex_;
  SweepResult sweep_partial_;  // guarded by sweep_mutex_, filled as points arrive
  bool sweep_done_ = false;    // guarded by sweep_mutex_
  std::string sweep_thread_error_;  // guarded by sweep_mutex_
  std::string sweep_title_;
  ui::SweepStatus sweep_status_;
  std::optional<SweepResult> sweep_result_;  // the last finished sweep
};

}  // namespace fuselab
