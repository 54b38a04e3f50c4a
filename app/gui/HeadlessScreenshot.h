// One call for a PNG of a trace without a window: `fuselab screenshot` and
// `fuselab capture --screenshot` use it. Creates a hidden OpenGL context
// (needs an X display: Xvfb on machines without one), shows the trace in a
// Workspace with default settings, renders offscreen, writes the PNG.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "app/gui/Screenshot.h"
#include "app/gui/ScreenshotRequest.h"
#include "profiling/analysis/run/RunView.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

struct HeadlessScreenshot {
  std::filesystem::path out;  // PNG to write (atomically)
  int width = 1600;           // layout size in logical pixels
  int height = 900;
  float pixel_scale = 1.0f;
  ui::ThemeKind theme = ui::ThemeKind::Dark;
  ScreenshotArea area = ScreenshotArea::Window;
  // Times since the trace start to show (default: the whole trace).
  std::optional<double> range_begin_ns, range_end_ns;
  std::string select;  // name of an event to select (its flows are drawn); "" for none
  bool critical_path = false;  // draw the critical path over the timeline
  bool nccl_channels = false;  // a run: NCCL kernels' channels under their lanes (from side files)
  bool flame_gpu = false;      // area Flame: GPU time instead of CPU time
  std::shared_ptr<const RunView> run;  // a run to show instead of `trace` (its merged trace)
};

// `trace` may be null (the empty workbench, or options.run). Returns the image written.
// Throws GuiUnavailable (no display: exit code 2 in the CLI) or
// std::runtime_error (unknown --select name, render or write failure).
RgbaImage writeHeadlessScreenshot(std::shared_ptr<const Trace> trace, const std::string& label,
                                  const HeadlessScreenshot& options);

}  // namespace fuselab
