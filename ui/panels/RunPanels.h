// What the window adds for a run (several ranks of one job, merged on the
// aligned axis): the rank x time overview strip above the timeline
// (RunOverviewStrip.cpp), the run summary in the sidebar with the alignment
// method (RunPanels.cpp), and the Collectives and Ranks tables
// (RunTables.cpp). It also hands the timeline its collective links.
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "profiling/analysis/run/RunView.h"
#include "ui/Theme.h"
#include "ui/TimelineView.h"
#include "ui/layout/RunOverview.h"

namespace fuselab::ui {

class RunPanels {
 public:
  // The run shown (null: none); `timeline` must already show its merged trace.
  void setRun(std::shared_ptr<const RunView> run, TimelineView& timeline);
  bool hasRun() const { return run_ != nullptr; }
  // The run's verdict, or null without a run.
  const RunVerdict* verdict() const { return run_ ? &run_->analysis->verdict : nullptr; }

  // The overview strip: one row per rank over the whole run (busy,
  // communicating, idle), the timeline's view outlined. A click scrolls the
  // timeline to that rank and centres that time.
  void drawOverview(const Theme& theme, TimelineView& timeline);
  // Ranks found and missing, alignment (a combo: returns the method the user
  // picked, to realign), stragglers.
  std::optional<AlignMethod> drawSummary(const Theme& theme, TimelineView& timeline);
  // "Collectives" and "Ranks" tab items (between BeginTabBar and EndTabBar).
  void drawTableTabs(const Theme& theme, TimelineView& timeline);
  // A run whose events were dropped: the rank position whose lanes the user
  // asked for since the last call (the Ranks table, the strip, a collective
  // whose late rank is not loaded), once.
  std::optional<size_t> takeLanesRequest() { return std::exchange(lanes_request_, std::nullopt); }

  // The late arrival of collective `i` in the merged trace; nullopt when its
  // rank's lanes are not loaded.
  std::optional<EventRef> lateArrival(size_t i) const;

 private:
  void drawCollectivesTable(TimelineView& timeline);
  void drawRanksTable(TimelineView& timeline);
  // Shows rank position `pos` in the timeline, or asks for its lanes.
  void showRank(size_t pos, TimelineView& timeline);

  std::shared_ptr<const RunView> run_;
  std::vector<RankActivityRow> rows_;
  double begin_ns_ = 0, end_ns_ = 0;
  std::vector<RankActivity> cells_;  // per frame, reused
  std::vector<ActivityRun> runs_;
  std::vector<uint32_t> collective_order_;
  std::vector<uint32_t> rank_order_;
  std::optional<size_t> lanes_request_;
};

}  // namespace fuselab::ui
