// Vertical layout of the timeline: one lane per track, CPU threads above GPU
// streams (then tracks of other kinds), each lane split into sub-rows by
// event depth, with a header row per group. A merged run (tracks with
// Track::rank) is grouped by rank instead: a header per rank, then its CPU
// and GPU lanes; a collapsed rank shows its header only. Positions are in content
// coordinates (0 = top of the lane area, before scrolling).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiling/trace/Trace.h"

namespace fuselab::ui {

enum class LaneGroup : uint8_t { Cpu, Gpu, Other };

struct Lane {
  uint32_t track = 0;
  LaneGroup group = LaneGroup::Cpu;
  std::string label;  // "thread 644 (python3)", "GPU 0 stream 7"
  float top = 0;
  float height = 0;
  uint16_t rows = 1;  // max depth + 1
  uint16_t sub_rows = 0;  // thin rows under the events (a NCCL kernel's channels)
  float sub_row_height = 0;
  float subRowsTop() const { return top + height - float(sub_rows) * sub_row_height; }
};

struct LaneGroupHeader {
  LaneGroup group = LaneGroup::Cpu;
  std::string title;  // "CPU", "GPU", "Other"; "rank 3" for a rank header
  float top = 0;
  float height = 0;
  int rank = -1;           // a rank header's rank
  bool collapsed = false;  // a rank header whose lanes are hidden
  size_t cpu_lanes = 0, gpu_lanes = 0, other_lanes = 0;  // lanes under the header (hidden ones too)
};

struct LaneLayoutOptions {
  float row_height = 18;
  float lane_padding = 4;   // above and below the rows of one lane
  float header_height = 20;  // group title row
  std::vector<int> collapsed_ranks;  // ranks whose lanes are hidden (merged runs)
  // One memory lane per label (device memory the trace recorded: "cuda:0",
  // "cpu"), under a "Memory" header after the GPU lanes.
  std::vector<std::string> memory_lanes;
  float memory_lane_height = 60;
  // Thin rows under a track's events, by track (missing or 0: none).
  std::vector<uint16_t> sub_rows;
  float sub_row_height = 5;
};

// A memory lane's band: device `device` of the analysis' memory summary.
struct MemoryLaneSlot {
  size_t device = 0;
  std::string label;
  float top = 0;
  float height = 0;
};

struct LaneLayout {
  std::vector<Lane> lanes;  // top to bottom
  std::vector<LaneGroupHeader> headers;
  std::vector<MemoryLaneSlot> memory_lanes;  // top to bottom
  std::vector<int32_t> lane_of_track;  // index into lanes per track, -1 without a lane
  float row_height = 18;
  float lane_padding = 4;
  float total_height = 0;

  // The lane whose band contains y, or nullptr (headers, below the end).
  const Lane* laneAt(float y) const;
  // Sub-row (depth) at y inside `lane`, or -1 on its padding.
  int rowAt(const Lane& lane, float y) const;
  float rowTop(const Lane& lane, int depth) const { return lane.top + lane_padding + depth * row_height; }
  float rowCenter(const Lane& lane, int depth) const { return rowTop(lane, depth) + row_height * 0.5f; }
  const Lane* laneOfTrack(uint32_t track) const;
  // The header whose row contains y, or nullptr.
  const LaneGroupHeader* headerAt(float y) const;
  // A rank's header, or nullptr.
  const LaneGroupHeader* rankHeader(int rank) const;
};

// Tracks with no events get no lane.
LaneLayout layoutLanes(const Trace& trace, const LaneLayoutOptions& options = {});

LaneGroup laneGroupOf(const Track& track);
std::string laneLabel(const Trace& trace, const Track& track);
std::string_view laneGroupTitle(LaneGroup g);

}  // namespace fuselab::ui
