// Everything the desktop window shows, independent of how it is put on screen
// (a GLFW window, or an offscreen framebuffer for screenshots): the open
// trace and its analysis, the panels (workbench slot + summary on the left,
// timeline and tables on the right), the main menu, dialogs and status bar.
//
// Layout (no docking): the sidebar and the timeline/tables split are
// draggable and remembered in Settings.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/Settings.h"
#include "app/gui/AboutDialog.h"
#include "app/gui/ExportDialog.h"
#include "app/gui/OpenTraceDialog.h"
#include "app/gui/ScreenshotDialog.h"
#include "app/gui/ScreenshotRequest.h"
#include "app/gui/TraceLoader.h"
#include "profiling/analysis/single/Analysis.h"
#include "profiling/trace/Trace.h"
#include "ui/panels/CriticalPathPanel.h"
#include "ui/panels/FlamePanel.h"
#include "ui/panels/MemoryPanel.h"
#include "ui/panels/RunPanels.h"
#include "ui/panels/StatsPanel.h"
#include "ui/Theme.h"
#include "ui/TimelineView.h"

namespace fuselab {

struct MenuCommands;

class Workspace {
 public:
  explicit Workspace(Settings settings = {});

  // --- traces ---------------------------------------------------------------
  // Opens a file in the background; the current trace stays until it has
  // loaded, and stays for good if loading fails (the error is shown).
  void openTrace(const std::string& path);
  // Shows a trace from memory, e.g. a live capture; analysed in the background.
  // unsaved: a capture that exists nowhere else until exported.
  void showTrace(std::shared_ptr<const Trace> trace, std::string label, bool unsaved = false);
  // Shows a run already loaded (its merged trace), analysed in the background.
  void showRun(std::shared_ptr<const RunView> run, std::string label);
  // What the menu, recent files and drag-and-drop call: like openTrace and
  // quitting, but they first ask before an unsaved live capture is dropped.
  void requestOpen(const std::string& path);
  // Several paths: the ranks of one run (a single folder is a run too).
  void requestOpenPaths(const std::vector<std::string>& paths);
  void openPaths(const std::vector<std::string>& paths);
  void requestQuit();
  bool hasUnsavedCapture() const { return unsaved_ != nullptr && unsaved_ == trace_; }
  bool discardPromptOpen() const { return pending_discard_.has_value(); }
  // The prompt's answer: discard (then open or quit as asked) or keep.
  void answerDiscardPrompt(bool discard);
  // Aligns the open run's ranks another way (in the background).
  void realignRun(AlignMethod method);
  // A run too large to hold (RunView.h): loads rank position `rank_pos`'s
  // lanes into the timeline (in the background; the oldest loaded make room).
  void loadRankLanes(size_t rank_pos);
  // Re-analyses the current trace with another gap threshold.
  void setGapThreshold(int64_t ns);
  // Keeps ceilings measured on this machine (saved with the settings) and
  // analyses the shown trace again with them.
  void setMeasuredCeilings(const Ceilings& ceilings);
  bool busy() const { return loader_.busy(); }
  // Stops opening a trace (the status bar's Cancel); the current trace stays.
  void cancelLoading() { loader_.cancel(); }
  // Share of the file being opened that has been read (status bar).
  std::optional<double> loadingProgress() const { return loader_.progress(); }
  // The last notice shown in the status bar ("Cancelled: open x.json", ...).
  const std::string& notice() const { return notice_; }
  // Applies finished background work (drawFrame calls it).
  void poll();
  // Blocks until background work is done, then applies it (headless use).
  void waitIdle();

  std::shared_ptr<const Trace> trace() const { return trace_; }
  std::shared_ptr<const TraceAnalysis> analysis() const { return analysis_; }
  // The open run (trace() is then its merged trace), or null for one trace.
  std::shared_ptr<const RunView> run() const { return run_; }
  const std::string& traceLabel() const { return label_; }
  // The last load/analysis error ("" when the last one succeeded).
  const std::string& error() const { return error_; }

  // --- drawing --------------------------------------------------------------
  // One frame of the UI into the current ImGui context (between NewFrame and
  // Render). Timeline: only the timeline, filling the display.
  void drawFrame(ScreenshotArea area = ScreenshotArea::Window);

  // The workbench (workload sliders, Run/Live) is drawn by its owner into the
  // top of the sidebar, under `title`.
  void setWorkbenchPanel(std::string title, std::function<void()> draw);

  ui::TimelineView& timeline() { return timeline_; }
  ui::FlamePanel& flamePanel() { return flame_panel_; }
  Settings& settings() { return settings_; }
  ui::ThemeKind themeKind() const;
  // Draw with this theme instead of the settings' (offscreen screenshots).
  void setThemeOverride(std::optional<ui::ThemeKind> kind) { theme_override_ = kind; }
  ui::Theme theme() const;

  // --- requests for the window ------------------------------------------------
  std::optional<ScreenshotRequest> takeScreenshotRequest();
  bool quitRequested() const { return quit_; }
  // A short message in the status bar for a few seconds.
  void notify(std::string message);

 private:
  void applyMenu(const MenuCommands& c);
  void handleShortcuts();
  void drawSidebar(const ui::Theme& th);
  void drawTimelinePanel(const ui::Theme& th);
  void drawStatusBar(const ui::Theme& th, float height);
  void drawKeysHelp();
  void drawDiscardPrompt();
  void openExportDialog();
  AnalysisOptions analysisOptions() const;

  Settings settings_;
  ui::TimelineView timeline_;
  ui::StatsPanel stats_;
  ui::CriticalPathPanel critical_path_panel_;
  ui::FlamePanel flame_panel_;
  ui::RunPanels run_panels_;
  TraceLoader loader_;

  std::shared_ptr<const Trace> trace_;
  std::shared_ptr<const TraceAnalysis> analysis_;
  std::shared_ptr<const RunView> run_;
  std::string label_;
  std::string path_;
  int64_t span_ns_ = 0;  // cached: Trace::endNs() walks every event
  std::string error_;
  std::string notice_;
  double notice_until_ = 0;

  OpenTraceDialog open_dialog_;
  AboutDialog about_dialog_;
  ExportDialog export_dialog_;
  ScreenshotDialog screenshot_dialog_;
  bool keys_help_requested_ = false;

  std::optional<ScreenshotRequest> screenshot_request_;
  std::optional<ui::ThemeKind> theme_override_;
  bool quit_ = false;
  // The live capture not exported yet, and what waits for the user's answer.
  std::shared_ptr<const Trace> unsaved_;
  struct PendingDiscard {
    bool quit = false;
    std::vector<std::string> paths;  // to open, when not quitting
  };
  std::optional<PendingDiscard> pending_discard_;
  float threshold_us_ = 30;  // the sidebar slider

  std::string workbench_title_;
  std::function<void()> workbench_;
};

}  // namespace fuselab
