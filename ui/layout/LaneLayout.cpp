#include "ui/layout/LaneLayout.h"

#include <algorithm>
#include <tuple>

namespace fuselab::ui {

namespace {

std::string unquoted(std::string_view token) {
  if (token.size() >= 2 && token.front() == '"' && token.back() == '"') token = token.substr(1, token.size() - 2);
  return std::string(token);
}

std::string trimmed(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  return std::string(s);
}

}  // namespace

LaneGroup laneGroupOf(const Track& track) {
  switch (track.kind) {
    case TrackKind::Cpu: return LaneGroup::Cpu;
    case TrackKind::Gpu: return LaneGroup::Gpu;
    default: return LaneGroup::Other;
  }
}

std::string_view laneGroupTitle(LaneGroup g) {
  switch (g) {
    case LaneGroup::Cpu: return "CPU";
    case LaneGroup::Gpu: return "GPU";
    default: return "Other";
  }
}

std::string laneLabel(const Trace& trace, const Track& track) {
  std::string thread_name = trimmed(trace.strings.get(track.thread_name_id));
  switch (track.kind) {
    case TrackKind::Gpu:
      return "GPU " + std::to_string(track.device) + " stream " + std::to_string(track.stream);
    case TrackKind::Cpu:
      if (!thread_name.empty()) return thread_name;
      return "thread " + std::to_string(track.tid);
    default: {
      // Kineto puts profiler bookkeeping here ("Spans", pid -1 "overhead"):
      // the category says what the lane is better than the ids do.
      std::string pid = unquoted(trace.strings.get(track.pid_id));
      std::string tid = thread_name.empty() ? unquoted(trace.strings.get(track.tid_id)) : thread_name;
      std::string ids = tid.empty() ? pid : pid + " / " + tid;
      std::string cat = track.size() ? std::string(trace.strings.get(track.cat_id[0])) : std::string();
      return cat.empty() ? ids : cat + ": " + ids;
    }
  }
}

LaneLayout layoutLanes(const Trace& trace, const LaneLayoutOptions& options) {
  LaneLayout layout;
  layout.row_height = options.row_height;
  layout.lane_padding = options.lane_padding;

  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < trace.tracks.size(); ++i)
    if (trace.tracks[i].size() > 0) order.push_back(i);
  // CPU: by process, the process's main thread (tid == pid) first, then tid.
  // GPU: by device, then stream. Other: as the trace orders them.
  // A merged run: by rank first.
  auto key = [&](uint32_t i) {
    const Track& t = trace.tracks[i];
    auto group = static_cast<int>(laneGroupOf(t));
    switch (t.kind) {
      case TrackKind::Cpu: return std::make_tuple(t.rank, group, t.pid, int64_t(t.tid != t.pid), t.tid, int64_t(i));
      case TrackKind::Gpu: return std::make_tuple(t.rank, group, int64_t(t.device), int64_t(0), t.stream, int64_t(i));
      default: return std::make_tuple(t.rank, group, t.sort_index, int64_t(0), int64_t(0), int64_t(i));
    }
  };
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });

  float y = 0;
  std::optional<std::pair<int, LaneGroup>> current;  // (rank, group) of the last header
  bool memory_placed = options.memory_lanes.empty();
  auto placeMemory = [&] {
    memory_placed = true;
    layout.headers.push_back({LaneGroup::Other, "Memory", y, options.header_height});
    y += options.header_height;
    for (size_t d = 0; d < options.memory_lanes.size(); ++d) {
      layout.memory_lanes.push_back(MemoryLaneSlot{d, options.memory_lanes[d], y, options.memory_lane_height});
      y += options.memory_lane_height;
    }
    current.reset();
  };
  for (uint32_t ti : order) {
    const Track& t = trace.tracks[ti];
    LaneGroup g = laneGroupOf(t);
    if (!memory_placed && g == LaneGroup::Other && t.rank < 0) placeMemory();
    if (t.rank >= 0) {
      if (!current || current->first != t.rank) {
        LaneGroupHeader h{g, "rank " + std::to_string(t.rank), y, options.header_height, t.rank};
        h.collapsed = std::find(options.collapsed_ranks.begin(), options.collapsed_ranks.end(), t.rank) !=
                      options.collapsed_ranks.end();
        layout.headers.push_back(h);
        y += options.header_height;
        current = {t.rank, g};
      }
      LaneGroupHeader& h = layout.headers.back();
      (g == LaneGroup::Cpu ? h.cpu_lanes : g == LaneGroup::Gpu ? h.gpu_lanes : h.other_lanes) += 1;
      if (h.collapsed) continue;
    } else if (!current || current->second != g) {
      layout.headers.push_back({g, std::string(laneGroupTitle(g)), y, options.header_height});
      y += options.header_height;
      current = {-1, g};
    }
    Lane lane;
    lane.track = ti;
    lane.group = g;
    lane.label = laneLabel(trace, t);
    lane.rows = static_cast<uint16_t>(t.max_depth + 1);
    lane.top = y;
    lane.height = lane.rows * options.row_height + 2 * options.lane_padding;
    if (ti < options.sub_rows.size() && options.sub_rows[ti] > 0) {
      lane.sub_rows = options.sub_rows[ti];
      lane.sub_row_height = options.sub_row_height;
      lane.height += float(lane.sub_rows) * lane.sub_row_height + options.lane_padding;
    }
    y += lane.height;
    layout.lanes.push_back(std::move(lane));
  }
  if (!memory_placed) placeMemory();
  layout.total_height = y;
  layout.lane_of_track.assign(trace.tracks.size(), -1);
  for (size_t i = 0; i < layout.lanes.size(); ++i) layout.lane_of_track[layout.lanes[i].track] = static_cast<int32_t>(i);
  return layout;
}

const Lane* LaneLayout::laneAt(float y) const {
  auto it = std::upper_bound(lanes.begin(), lanes.end(), y, [](float v, const Lane& l) { return v < l.top; });
  if (it == lanes.begin()) return nullptr;
  const Lane& lane = *std::prev(it);
  return y < lane.top + lane.height ? &lane : nullptr;
}

int LaneLayout::rowAt(const Lane& lane, float y) const {
  float inner = y - lane.top - lane_padding;
  if (inner < 0) return -1;
  int row = static_cast<int>(inner / row_height);
  return row < lane.rows ? row : -1;
}

const LaneGroupHeader* LaneLayout::headerAt(float y) const {
  for (const LaneGroupHeader& h : headers)
    if (y >= h.top && y < h.top + h.height) return &h;
  return nullptr;
}

const LaneGroupHeader* LaneLayout::rankHeader(int rank) const {
  for (const LaneGroupHeader& h : headers)
    if (h.rank == rank) return &h;
  return nullptr;
}

const Lane* LaneLayout::laneOfTrack(uint32_t track) const {
  if (track < lane_of_track.size()) return lane_of_track[track] < 0 ? nullptr : &lanes[lane_of_track[track]];
  for (const Lane& l : lanes)  // a layout built by hand
    if (l.track == track) return &l;
  return nullptr;
}

}  // namespace fuselab::ui
