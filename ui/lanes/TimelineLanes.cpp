#include "ui/lanes/TimelineLanes.h"

#include <algorithm>
#include <cmath>

#include "ui/lanes/GpuStreamLane.h"
#include "ui/lanes/GroupHeaderLane.h"
#include "ui/lanes/MemoryLane.h"

namespace fuselab::ui {

void TimelineLanes::setTrace(const Trace* trace) {
  trace_ = trace;
  depth_index_ = trace_ ? DepthIndex(*trace_) : DepthIndex();
  before_recording_ = trace_ ? PreRecordingOps(*trace_) : PreRecordingOps();
  lanes_.clear();
  memory_lanes_.clear();
}

void TimelineLanes::setAnalysis(const TraceAnalysis* analysis) {
  analysis_ = analysis;
  gap_index_ = analysis_ ? GapIndex(analysis_->gaps) : GapIndex();
  lanes_.clear();
  memory_lanes_.clear();
  step_band_.reset();
}

void TimelineLanes::rebuild(const LaneLayout& layout, float step_band_height) {
  lanes_.clear();
  memory_lanes_.clear();
  step_band_.reset();
  if (!trace_) return;
  std::vector<std::optional<GapIndex::TrackGaps>> gaps_of_track(trace_->tracks.size());
  if (analysis_)
    for (const GapIndex::TrackGaps& tg : gap_index_.tracks())
      if (tg.track < gaps_of_track.size()) gaps_of_track[tg.track] = tg;

  // Lanes and headers never overlap: merged by their top, they are in order.
  size_t next_header = 0;
  auto addHeadersAbove = [&](float y) {
    for (; next_header < layout.headers.size() && layout.headers[next_header].top <= y; ++next_header)
      lanes_.push_back(std::make_unique<GroupHeaderLane>(layout, layout.headers[next_header]));
  };
  for (size_t i = 0; i < layout.lanes.size(); ++i) {
    const Lane& lane = layout.lanes[i];
    addHeadersAbove(lane.top);
    const TrackDepths& depths = depth_index_.track(lane.track);
    if (const auto& gaps = gaps_of_track[lane.track])
      lanes_.push_back(std::make_unique<GpuStreamLane>(*trace_, *analysis_, before_recording_, gap_index_, *gaps,
                                                       layout, lane, depths, i));
    else
      lanes_.push_back(
          std::make_unique<EventLane>(*trace_, analysis_, before_recording_, layout, lane, depths, i));
  }
  addHeadersAbove(layout.total_height);
  if (analysis_) {
    for (const MemoryLaneSlot& slot : layout.memory_lanes)
      if (slot.device < analysis_->memory.devices.size()) {
        auto lane = std::make_unique<MemoryLane>(*trace_, analysis_->memory.devices[slot.device], slot, lanes_.size());
        memory_lanes_.push_back(lane.get());
        lanes_.push_back(std::move(lane));
      }
    std::stable_sort(lanes_.begin(), lanes_.end(), [](const auto& a, const auto& b) { return a->top() < b->top(); });
  }
  if (analysis_ && !analysis_->steps.empty()) step_band_ = std::make_unique<StepBand>(analysis_->steps, step_band_height);
}

const MemoryFolding* TimelineLanes::memoryFolding(const DeviceMemory& device) const {
  for (const MemoryLane* lane : memory_lanes_)
    if (&lane->device() == &device) return &lane->folding();
  return nullptr;
}

void TimelineLanes::drawStepBand(const LaneFrame& band) {
  if (!step_band_) return;
  step_band_->prepare(band);
  step_band_->drawBackground(band);
  step_band_->drawLabel(band);
  step_band_->drawEvents(band);
}

LaneHover TimelineLanes::hoverStepBand(const LaneFrame& band, ImVec2 mouse) const {
  return step_band_ ? step_band_->hover(band, mouse) : LaneHover{};
}

void TimelineLanes::prepare(const LaneFrame& f) {
  for (auto& lane : lanes_)
    if (lane->onScreen(f)) lane->prepare(f);
}

LaneHover TimelineLanes::hover(const LaneFrame& f, ImVec2 mouse) const {
  for (const auto& lane : lanes_) {
    if (!lane->onScreen(f)) continue;
    LaneHover h = lane->hover(f, mouse);
    if (!h.empty()) return h;
  }
  return {};
}

void TimelineLanes::drawBackgrounds(const LaneFrame& f) const {
  for (const auto& lane : lanes_)
    if (lane->onScreen(f)) lane->drawBackground(f);
}

void TimelineLanes::drawTimeArea(const LaneFrame& f, const Ruler& ruler) const {
  for (const RulerTick& t : ruler.ticks) {
    if (!t.major) continue;
    float x = std::round(t.x) + 0.5f;
    f.dl->AddLine(ImVec2(x, f.win_min.y), ImVec2(x, f.win_max.y), f.theme->grid);
  }
  for (const auto& lane : lanes_)
    if (lane->onScreen(f)) lane->drawUnder(f);
  if (step_band_) step_band_->drawAcross(f);
  for (const auto& lane : lanes_)
    if (lane->onScreen(f)) lane->drawEvents(f);
}

void TimelineLanes::drawLabels(const LaneFrame& f) const {
  for (const auto& lane : lanes_)
    if (lane->onScreen(f)) lane->drawLabel(f);
}

void TimelineLanes::drawHover(const LaneFrame& f, const LaneHover& hover) {
  if (hover.lane) hover.lane->drawHover(f, hover);
}

void TimelineLanes::drawDetails(const Theme& theme, const LaneHover& hover) {
  if (hover.lane) hover.lane->drawDetails(theme, hover);
}

}  // namespace fuselab::ui
