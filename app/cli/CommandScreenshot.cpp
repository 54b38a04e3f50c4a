// `fuselab screenshot --out FILE.png [--trace T] [--range START:END]
// [--width W --height H] [--theme light|dark] [--scale S] [--area window|timeline|roofline]
// [--select NAME] [--critical-path]`:
// renders the window's UI offscreen (a hidden OpenGL window; under Xvfb
// where there is no display) and writes a PNG. Without --trace it shows the
// empty workbench.
#include <filesystem>
#include <iostream>
#include <memory>

#include "app/cli/Commands.h"
#include "app/cli/TimeRangeArg.h"
#include "profiling/analysis/run/TraceOrRun.h"

#ifdef FUSELAB_HAVE_GUI
#include "app/gui/GlfwWindow.h"
#include "app/gui/HeadlessScreenshot.h"
#endif

namespace fuselab {

namespace {

struct ScreenshotArgs {
  std::string out;
  std::string trace;
  std::string range;
  int width = 1600;
  int height = 900;
  std::string theme = "dark";
  float scale = 1.0f;
  std::string area = "window";
  std::string select;
  bool critical_path = false;
  bool nccl_channels = false;
  std::string metric = "cpu";
};

int runScreenshot(const ScreenshotArgs& a) {
#ifndef FUSELAB_HAVE_GUI
  (void)a;
  std::cerr << "fuselab screenshot: this build has no GUI (configured with FUSELAB_GUI=OFF)\n";
  return 2;
#else
  HeadlessScreenshot o;
  if (!a.range.empty()) {
    std::string why;
    auto range = parseTimeRange(a.range, &why);
    if (!range) {
      std::cerr << "fuselab screenshot: --range: " << why << "\n";
      return 1;
    }
    o.range_begin_ns = range->begin_ns;
    o.range_end_ns = range->end_ns;
  }
  if ((!a.range.empty() || !a.select.empty()) && a.trace.empty()) {
    std::cerr << "fuselab screenshot: --range and --select need --trace\n";
    return 1;
  }
  std::shared_ptr<const Trace> trace;
  std::string label;
  if (!a.trace.empty()) {  // a trace, or a run: its ranks, merged on the aligned axis
    try {
      OpenedTraceOrRun opened = openTraceOrRun({std::filesystem::path(a.trace)});
      if (opened.run)
        o.run = std::move(opened.run);
      else
        trace = std::move(opened.trace);
    } catch (const RunLoadError& e) {  // names the file
      std::cerr << "fuselab screenshot: " << e.what() << "\n";
      return 1;
    } catch (const std::exception& e) {  // TraceImportError says what and where
      std::cerr << "fuselab screenshot: cannot read " << a.trace << ": " << e.what() << "\n";
      return 1;
    }
    label = std::filesystem::path(a.trace).filename().string();
  }
  o.out = a.out;
  o.width = a.width;
  o.height = a.height;
  o.pixel_scale = a.scale;
  o.theme = *ui::parseThemeKind(a.theme);
  o.area = a.area == "timeline"   ? ScreenshotArea::Timeline
           : a.area == "roofline" ? ScreenshotArea::Roofline
           : a.area == "flame"    ? ScreenshotArea::Flame
           : a.area == "memory"   ? ScreenshotArea::Memory
                                  : ScreenshotArea::Window;
  o.select = a.select;
  o.critical_path = a.critical_path;
  o.nccl_channels = a.nccl_channels;
  o.flame_gpu = a.metric == "gpu";
  try {
    RgbaImage image = writeHeadlessScreenshot(trace, label, o);
    std::cout << "wrote " << a.out << " (" << image.width << "x" << image.height << ")\n";
  } catch (const GuiUnavailable& e) {
    std::cerr << "fuselab screenshot: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "fuselab screenshot: " << e.what() << "\n";
    return 1;
  }
  return 0;
#endif
}

}  // namespace

void addScreenshotCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("screenshot", "Render the window offscreen (optionally with a trace) to a PNG");
  auto args = std::make_shared<ScreenshotArgs>();
  cmd->add_option("--out", args->out, "PNG file to write")->required();
  cmd->add_option("--trace", args->trace, "Chrome/Kineto trace (.json / .json.gz), or a folder of rank traces, to show")
      ->check(CLI::ExistingPath);
  cmd->add_option("--range", args->range,
                  "START:END since the trace start, units ns/us/ms/s (default us), e.g. 1.2ms:2.5ms");
  cmd->add_option("--width", args->width, "Layout width in logical pixels")
      ->check(CLI::Range(16, 8192))
      ->capture_default_str();
  cmd->add_option("--height", args->height, "Layout height in logical pixels")
      ->check(CLI::Range(16, 8192))
      ->capture_default_str();
  cmd->add_option("--theme", args->theme, "dark or light (light suits slides and print)")
      ->check(CLI::IsMember({"dark", "light"}))
      ->capture_default_str();
  cmd->add_option("--scale", args->scale, "Image pixels per logical pixel (2: same layout, twice as sharp)")
      ->check(CLI::Range(0.5f, 4.0f))
      ->capture_default_str();
  cmd->add_option("--area", args->area,
                  "window, timeline (only the timeline, filling the image) or roofline (the Roofline tab, with the "
                  "ceilings measured on the trace's GPU when `fuselab ceilings` kept them), flame (the flame "
                  "graph of the captured steps; --metric gpu for GPU time) or memory (memory over time and the ops "
                  "that allocated most)")
      ->check(CLI::IsMember({"window", "timeline", "roofline", "flame", "memory"}))
      ->capture_default_str();
  cmd->add_option("--select", args->select,
                  "Select the first event with this name (e.g. aten::linear) to show its flow arrows");
  cmd->add_option("--metric", args->metric, "--area flame: cpu (CPU time by stack) or gpu (GPU time under its launch's stack)")
      ->check(CLI::IsMember({"cpu", "gpu"}))
      ->capture_default_str();
  cmd->add_flag("--critical-path", args->critical_path,
                "Draw the critical path over the timeline (what set each step's time)");
  cmd->add_flag("--nccl-channels", args->nccl_channels,
                "A run with NCCL side files: each NCCL kernel's channels as thin rows under its lane");
  cmd->callback([args, &exit_code] { exit_code = runScreenshot(*args); });
}

}  // namespace fuselab
