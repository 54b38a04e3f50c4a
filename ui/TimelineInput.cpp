// TimelineView's input (TimelineView.h): the mouse on the lanes (wheel
// zooms around the pointer, Shift+wheel scrolls lanes, drag pans, click
// selects or toggles a rank, double-click zooms to the event) and the keys
// (W/S zoom, A/D pan, F fit all, 1..9 fit step k).
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "ui/TimelineView.h"

namespace fuselab::ui {

void TimelineView::handleWheelAndDrag(bool hovered, float scroll_y) {
  ImGuiIO& io = ImGui::GetIO();
  if (hovered && io.MouseWheel != 0) {
    if (io.KeyShift)
      ImGui::SetScrollY(std::max(0.0f, scroll_y - io.MouseWheel * 3 * layout_.row_height));
    else if (io.MousePos.x >= axis_.origin_px)
      axis_.zoomAround(io.MousePos.x, std::pow(1.25, io.MouseWheel), maxNsPerPx());
  }
  if (ImGui::IsItemActivated()) drag_distance_ = 0;
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 1.0f)) {
    axis_.panPixels(io.MouseDelta.x);
    if (io.MouseDelta.y != 0) ImGui::SetScrollY(std::max(0.0f, scroll_y - io.MouseDelta.y));
    drag_distance_ += std::fabs(io.MouseDelta.x) + std::fabs(io.MouseDelta.y);
  }
}

void TimelineView::handleClick(bool hovered, const LaneHover& hover) {
  // A press and release on the canvas without dragging is a click.
  if (ImGui::IsItemDeactivated() && hovered && drag_distance_ < 3) {
    if (hover.rank >= 0)
      toggleRank(hover.rank);
    else if (hover.event && !hover.event->record.folded())
      select(hover.event->event());
    else if (hover.event)  // a folded run: zoom so its events separate
      pending_ = Pending{axis_.xToNs(hover.event->record.x0), axis_.xToNs(hover.event->record.x1), 0.1};
    else
      select(std::nullopt);
  }
  if (hovered && hover.event && !hover.event->record.folded() && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    const Track& t = trace_->tracks[hover.event->track];
    auto first = hover.event->record.first;
    double s = static_cast<double>(t.start_ns[first]);
    pending_ = Pending{s, s + std::max<double>(1, static_cast<double>(t.dur_ns[first])), 0.15};
  }
}

void TimelineView::handleKeys() {
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || io.KeyCtrl || io.KeyAlt || io.KeySuper) return;
  if (!ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows) && !ImGui::IsWindowFocused(ImGuiFocusedFlags_ChildWindows))
    return;
  // The GLFW backend indexes KeysDown by GLFW key codes, which equal the
  // ASCII codes of upper-case letters and digits.
  auto down = [&](char key) { return ImGui::IsKeyDown(key); };
  auto pressed = [&](char key) { return ImGui::IsKeyPressed(key, false); };
  float dt = std::max(io.DeltaTime, 1.0f / 240);
  float anchor = (io.MousePos.x >= axis_.origin_px && io.MousePos.x <= axis_.origin_px + axis_.width_px)
                     ? io.MousePos.x
                     : axis_.origin_px + axis_.width_px * 0.5f;
  if (down('W')) axis_.zoomAround(anchor, std::pow(4.0, dt), maxNsPerPx());
  if (down('S')) axis_.zoomAround(anchor, std::pow(0.25, dt), maxNsPerPx());
  if (down('A')) axis_.panPixels(axis_.width_px * dt);
  if (down('D')) axis_.panPixels(-axis_.width_px * dt);
  if (pressed('F')) fitAll();
  for (char k = '1'; k <= '9'; ++k)
    if (pressed(k)) fitStep(static_cast<size_t>(k - '1'));
}

}  // namespace fuselab::ui
