// A group's title row: "CPU (3 threads)", "GPU (2 streams)", or in a merged
// run "[-] rank 3 (4 threads, 2 streams)", which collapses or expands the
// rank's lanes when clicked.
#pragma once

#include <string>

#include "ui/lanes/TimelineLane.h"

namespace fuselab::ui {

class GroupHeaderLane : public TimelineLane {
 public:
  // `header` is one of `layout.headers`, kept by reference.
  GroupHeaderLane(const LaneLayout& layout, const LaneGroupHeader& header);

  float top() const override { return header_.top; }
  float bottom() const override { return header_.top + header_.height; }
  void drawBackground(const LaneFrame& f) const override;
  LaneHover hover(const LaneFrame& f, ImVec2 mouse) const override;
  void drawDetails(const Theme& theme, const LaneHover& hover) const override;

  const std::string& title() const { return title_; }

 private:
  const LaneGroupHeader& header_;
  std::string title_;
};

}  // namespace fuselab::ui
