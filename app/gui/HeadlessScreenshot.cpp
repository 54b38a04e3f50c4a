#include "app/gui/HeadlessScreenshot.h"

#include <stdexcept>

#include "app/gui/OffscreenContext.h"
#include "app/gui/OffscreenRenderer.h"
#include "app/gui/Workbench.h"
#include "app/gui/Workspace.h"

namespace fuselab {

RgbaImage writeHeadlessScreenshot(std::shared_ptr<const Trace> trace, const std::string& label,
                                  const HeadlessScreenshot& o) {
  OffscreenContext context;
  // Default settings: a screenshot must not depend on the user's config,
  // except for the ceilings measured on this machine in a roofline picture.
  Settings settings;
  if (o.area == ScreenshotArea::Roofline) settings.measured_ceilings = loadSettings(defaultSettingsFile()).measured_ceilings;
  Workspace ws(settings);
  Workbench workbench(ws);  // the window as the user sees it (the capture module stays unloaded)
  if (o.run) trace = o.run->merged.trace;
  if (trace) {
    if (o.run)
      ws.showRun(o.run, label);
    else
      ws.showTrace(trace, label);
    ws.waitIdle();
    if (!ws.trace()) throw std::runtime_error(ws.error());
    const bool ranged = o.range_begin_ns && o.range_end_ns;
    if (ranged) {
      double origin = static_cast<double>(trace->beginNs());
      ws.timeline().showRange(origin + *o.range_begin_ns, origin + *o.range_end_ns);
    }
    // With a range the view stays where asked; else it moves to the selection.
    if (!o.select.empty() && !ws.timeline().findNext(o.select, !ranged))
      throw std::runtime_error("no event named '" + o.select + "' in " + label);
    ws.timeline().showCriticalPath(o.critical_path);
    ws.timeline().showNcclChannels(o.nccl_channels);
    ws.flamePanel().setMetric(o.flame_gpu ? FlameMetric::Gpu : FlameMetric::Cpu);
  }
  OffscreenFrame frame;
  frame.width = o.width;
  frame.height = o.height;
  frame.pixel_scale = o.pixel_scale;
  frame.theme = o.theme;
  frame.area = o.area;
  RgbaImage image = renderOffscreen(ws, frame);
  writePng(o.out, image);
  return image;
}

}  // namespace fuselab
