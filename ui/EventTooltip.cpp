#include "ui/EventTooltip.h"

#include <imgui.h>

#include <algorithm>
#include <string>

#include "profiling/trace/DurationText.h"
#include "profiling/trace/TraceArgs.h"
#include "ui/layout/LaneLayout.h"

namespace fuselab::ui {

std::string_view gapCauseLabel(GapCause c) {
  switch (c) {
    case GapCause::HostWait: return "host wait";
    case GapCause::KernelWait: return "kernel wait";
    default: return "other";
  }
}

std::string_view gapCauseExplanation(GapCause c) {
  switch (c) {
    case GapCause::HostWait:
      return "The launch call of the next GPU op started only after the GPU had finished the previous one: "
             "the GPU waited for the CPU (overhead-bound).";
    case GapCause::KernelWait:
      return "A short pause between back-to-back GPU ops (below the gap threshold): the normal cost of "
             "starting the next kernel.";
    default:
      return "The next op was launched in time but started later: e.g. waiting for another stream, an "
             "event or a copy.";
  }
}

namespace {

const LaunchDelay* launchDelayOf(const TraceAnalysis& a, EventRef gpu_op) {
  // Entries are in (track, start) order of the GPU ops, i.e. (track, index).
  auto it = std::lower_bound(a.launch_delays.begin(), a.launch_delays.end(), gpu_op,
                             [](const LaunchDelay& d, EventRef e) {
                               return d.gpu_op.track != e.track ? d.gpu_op.track < e.track : d.gpu_op.index < e.index;
                             });
  return it != a.launch_delays.end() && it->gpu_op == gpu_op ? &*it : nullptr;
}

const StepStats* stepAt(const TraceAnalysis& a, int64_t t) {
  for (const StepStats& s : a.steps)
    if (t >= s.start_ns && t < s.end_ns) return &s;
  return nullptr;
}

void row(const char* key, const std::string& value) {
  ImGui::TextDisabled("%s", key);
  ImGui::SameLine(ImGui::GetFontSize() * 7);
  ImGui::TextUnformatted(value.c_str());
}

// Args a learner looks at first; bookkeeping ids are left out.
constexpr std::string_view kFirstArgs[] = {"grid",           "block",       "registers per thread",
                                           "shared memory",  "Input Dims",  "Input type",
                                           "blocks per SM",  "warps per SM", "est. achieved occupancy %",
                                           "bytes",          "memory bandwidth (GB/s)", "stream"};
constexpr std::string_view kHiddenArgs[] = {"External id", "Record function id", "Ev Idx", "correlation",
                                            "device", "context", "Sequence number", "Fwd thread id"};

bool contains(const std::string_view* begin, const std::string_view* end, std::string_view key) {
  return std::find(begin, end, key) != end;
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

void drawArgs(const Trace& trace, EventRef e) {
  auto args = argsForDisplay(trace, e);
  if (args.empty()) return;
  ImGui::Separator();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36);
  auto show = [&](const std::string& k, const std::string& v) {
    std::string value = v.size() > 160 ? v.substr(0, 157) + "..." : v;
    ImGui::TextDisabled("%s", k.c_str());
    ImGui::SameLine();
    ImGui::TextUnformatted(value.c_str());
  };
  for (std::string_view first : kFirstArgs)
    for (const auto& [k, v] : args)
      if (k == first) show(k, v);
  std::vector<int64_t> grid = argIntArray(trace, e, "grid"), block = argIntArray(trace, e, "block");
  if (!grid.empty() && !block.empty())
    ImGui::TextDisabled("= %lld blocks of %lld threads", static_cast<long long>(product(grid)),
                        static_cast<long long>(product(block)));
  for (const auto& [k, v] : args)
    if (!contains(std::begin(kFirstArgs), std::end(kFirstArgs), k) &&
        !contains(std::begin(kHiddenArgs), std::end(kHiddenArgs), k))
      show(k, v);
  ImGui::PopTextWrapPos();
}

}  // namespace

void drawEventDetailsTooltip(const Trace& trace, const TraceAnalysis* analysis, EventRef e, const Theme& theme,
                             bool before_recording) {
  const Track& t = trace.tracks[e.track];
  const uint32_t i = e.index;
  const Category cat = t.category[i];
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(categoryColor(theme, cat, trace.name(e))), "%s",
                     std::string(trace.name(e)).c_str());
  ImGui::PopTextWrapPos();
  ImGui::Separator();
  row("category", std::string(trace.strings.get(t.cat_id[i])));
  row("lane", laneLabel(trace, t));
  row("start", "+" + formatDuration(t.start_ns[i] - trace.beginNs()) + " from trace start");
  row("duration", formatDuration(t.dur_ns[i]));
  if (analysis)
    if (const StepStats* s = stepAt(*analysis, t.start_ns[i])) row("step", s->name);

  if (isLaunchCall(cat) && t.correlation[i] >= 0) {
    row("correlation", std::to_string(t.correlation[i]));
    if (const LaunchLink* l = trace.launchFor(t.correlation[i]); l && !l->gpu_ops.empty()) {
      std::string what = std::to_string(l->gpu_ops.size()) + " GPU op" + (l->gpu_ops.size() == 1 ? "" : "s");
      row("enqueued", what + ": " + std::string(trace.name(l->gpu_ops.front())).substr(0, 60));
    }
  }
  if (isGpuWork(cat)) {
    if (t.correlation[i] >= 0) row("correlation", std::to_string(t.correlation[i]));
    if (before_recording) {
      row("launched", "before recording began");
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36);
      ImGui::TextDisabled("Its launch call is not in the trace. Fit all and the compute / non-compute / idle split "
                          "leave it out, as HTA's temporal breakdown does.");
      ImGui::PopTextWrapPos();
    }
    if (analysis)
      if (const LaunchDelay* d = launchDelayOf(*analysis, e)) {
        row("launched by", std::string(trace.name(d->launch)));
        row("launch delay", formatDuration(d->delay_ns) + " (launch call end -> GPU start)");
      }
  }
  drawArgs(trace, e);
  ImGui::Spacing();
  ImGui::TextDisabled("click: select and show flows, double-click: zoom to it");
  ImGui::EndTooltip();
}

void drawFoldedTooltip(const Trace& trace, uint32_t track, uint32_t first, uint32_t last, uint32_t count) {
  const Track& t = trace.tracks[track];
  ImGui::BeginTooltip();
  ImGui::Text("%u events folded together", count);
  ImGui::TextDisabled("each is narrower than a few pixels at this zoom");
  row("span", formatDuration(t.end_ns(last) - t.start_ns[first]));
  row("first", std::string(trace.strings.get(t.name_id[first])).substr(0, 80));
  row("last", std::string(trace.strings.get(t.name_id[last])).substr(0, 80));
  ImGui::Spacing();
  ImGui::TextDisabled("click or zoom in (wheel, W) to see them one by one");
  ImGui::EndTooltip();
}

}  // namespace fuselab::ui
