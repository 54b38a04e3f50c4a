// Headless pictures for the command line (GUI builds): a tutorial step's
// timeline with its checked expectations, two traces compared A/B, and a sweep
// plot. Each opens a hidden OpenGL context, renders offscreen and writes a PNG
// atomically. Throws GuiUnavailable (no display, no OpenGL) or
// std::runtime_error (rendering, writing).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "app/capture/Sweep.h"
#include "app/tutorial/TutorialPresets.h"
#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/expectations/Expectations.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

struct PictureTrace {
  std::shared_ptr<const Trace> trace;
  std::shared_ptr<const TraceAnalysis> analysis;
  std::string label;
};

// The step panel with its results (left) and the checked trace's timeline
// (right), the first unmet expectation's evidence selected.
void writeTutorialPicture(const std::filesystem::path& path, const TutorialPreset& preset, size_t step_count,
                          std::shared_ptr<const Trace> trace, std::shared_ptr<const TraceAnalysis> analysis,
                          const std::vector<ExpectationResult>& results);

// Both timelines, one above the other, aligned on step `align_step`
// (0-based), and the diff table.
void writeComparePicture(const std::filesystem::path& path, const PictureTrace& a, const PictureTrace& b,
                         size_t align_step);

// Time per forward and GPU utilization against tokens, crossovers marked.
void writeSweepPlot(const std::filesystem::path& path, const SweepResult& result);

}  // namespace fuselab
