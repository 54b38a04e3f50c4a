// Colours and sizes of the fuselab UI, dark or light, at a scale factor (for
// crisp teaching screenshots). Event colours follow the category so CPU and
// GPU work read apart at a glance; names shade them so neighbours differ.
#pragma once

#include <imgui.h>

#include <optional>
#include <string_view>

#include "profiling/analysis/single/AnalysisGaps.h"
#include "profiling/trace/Trace.h"

namespace fuselab::ui {

enum class ThemeKind : uint8_t { Dark, Light };

std::string_view themeName(ThemeKind k);  // "dark", "light"
std::optional<ThemeKind> parseThemeKind(std::string_view name);

struct Theme {
  ThemeKind kind = ThemeKind::Dark;
  float scale = 1;

  ImU32 canvas_bg = 0;
  ImU32 lane_bg[2] = {0, 0};  // alternating lanes
  ImU32 header_bg = 0;        // CPU / GPU group title rows
  ImU32 header_text = 0;
  ImU32 label_bg = 0;         // the lane label column
  ImU32 label_text = 0;
  ImU32 text = 0;             // text drawn on events
  ImU32 text_dim = 0;
  ImU32 ruler_bg = 0;
  ImU32 ruler_tick = 0;
  ImU32 grid = 0;             // vertical lines at major ticks
  ImU32 step_line = 0;        // ProfilerStep#k boundaries
  ImU32 step_band[2] = {0, 0};
  ImU32 event_border = 0;
  ImU32 selection = 0;
  ImU32 hover = 0;
  ImU32 flow = 0;

  // Event categories.
  ImU32 user_annotation = 0;
  ImU32 cpu_op = 0;
  ImU32 launch = 0;      // cuda_runtime / cuda_driver launch calls
  ImU32 sync_call = 0;   // synchronize calls and cuda_sync events
  ImU32 kernel = 0;
  ImU32 memcpy = 0;
  ImU32 memset = 0;
  ImU32 gpu_annotation = 0;
  ImU32 other = 0;

  // GPU idle gaps, indexed by GapCause, drawn translucent over GPU lanes.
  ImU32 gap[3] = {0, 0, 0};
  ImU32 gap_sync_mark = 0;  // stripe on gaps covered by a synchronize call

  // Runs: a collective's link across ranks, its late arrival, and the
  // overview strip's cells (idle, busy, communicating).
  ImU32 collective = 0;
  ImU32 late_arrival = 0;
  // The critical path drawn over the timeline (events on it outlined, the
  // hand-offs between lanes).
  ImU32 critical_path = 0;
  ImU32 activity[3] = {0, 0, 0};
};

Theme makeTheme(ThemeKind kind, float scale = 1.0f);

// Sets ImGui's colours and sizes to match (call with the context current).
void applyImGuiStyle(const Theme& theme);

// Base colour of a category (what a legend shows).
ImU32 categoryColor(const Theme& theme, Category c, std::string_view name = {});
// The colour an event is filled with: its category colour, shaded by name.
ImU32 eventColor(const Theme& theme, Category c, std::string_view name);
// Legible text colour over `fill`.
ImU32 textColorOn(const Theme& theme, ImU32 fill);

}  // namespace fuselab::ui
