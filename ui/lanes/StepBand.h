// The steps (ProfilerStep#k) in a band pinned above the lanes: a bar per
// step with its number, name and length, folded where steps are too narrow,
// and a line across every lane at each step's start. Hovering a step shows
// its figures.
#pragma once

#include <vector>

#include "profiling/analysis/single/AnalysisSteps.h"
#include "ui/lanes/TimelineLane.h"
#include "ui/layout/StepMarks.h"

namespace fuselab::ui {

class StepBand : public TimelineLane {
 public:
  // `steps` are kept by reference; `height` is the band's.
  StepBand(const std::vector<StepStats>& steps, float height) : steps_(steps), height_(height) {}

  float top() const override { return 0; }
  float bottom() const override { return height_; }
  void prepare(const LaneFrame& f) override;
  void drawBackground(const LaneFrame& f) const override;
  void drawAcross(const LaneFrame& f) const override;
  void drawEvents(const LaneFrame& f) const override;
  void drawLabel(const LaneFrame& f) const override;
  LaneHover hover(const LaneFrame& f, ImVec2 mouse) const override;
  void drawDetails(const Theme& theme, const LaneHover& hover) const override;

 private:
  const std::vector<StepStats>& steps_;
  float height_;
  std::vector<StepMark> marks_;  // this frame's
  std::vector<float> lines_;     // this frame's step bounds (x)
};

}  // namespace fuselab::ui
