#include "ui/lanes/GroupHeaderLane.h"

namespace fuselab::ui {

namespace {

std::string counted(size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

std::string headerTitle(const LaneLayout& layout, const LaneGroupHeader& h) {
  if (h.rank >= 0) {
    std::string lanes = counted(h.cpu_lanes, "thread") + ", " + counted(h.gpu_lanes, "stream");
    if (h.other_lanes) lanes += ", " + counted(h.other_lanes, "other track");
    return std::string(h.collapsed ? "[+] " : "[-] ") + h.title + "  (" + lanes + ")";
  }
  size_t lanes_in_group = 0;
  for (const Lane& l : layout.lanes) lanes_in_group += l.group == h.group;
  const char* what = h.group == LaneGroup::Cpu ? "thread" : h.group == LaneGroup::Gpu ? "stream" : "track";
  return h.title + "  (" + counted(lanes_in_group, what) + ")";
}

}  // namespace

GroupHeaderLane::GroupHeaderLane(const LaneLayout& layout, const LaneGroupHeader& header)
    : header_(header), title_(headerTitle(layout, header)) {}

void GroupHeaderLane::drawBackground(const LaneFrame& f) const {
  // The title is drawn here, before the time area's grid, which crosses it.
  f.dl->AddRectFilled(ImVec2(f.win_min.x, f.sy(top())), ImVec2(f.win_max.x, f.sy(bottom())), f.theme->header_bg);
  f.dl->AddText(ImVec2(f.win_min.x + 6, f.sy(top()) + (header_.height - ImGui::GetFontSize()) * 0.5f),
                f.theme->header_text, title_.c_str());
}

LaneHover GroupHeaderLane::hover(const LaneFrame& f, ImVec2 mouse) const {
  float y = mouse.y - f.content_y;
  if (header_.rank < 0 || y < top() || y >= bottom()) return {};
  LaneHover h;
  h.lane = this;
  h.rank = header_.rank;
  return h;
}

void GroupHeaderLane::drawDetails(const Theme& theme, const LaneHover& hover) const {
  (void)theme;
  if (hover.rank < 0) return;
  ImGui::SetTooltip("Click to %s rank %d's lanes", header_.collapsed ? "expand" : "collapse", hover.rank);
}

}  // namespace fuselab::ui
