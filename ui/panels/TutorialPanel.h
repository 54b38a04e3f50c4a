// The tutorial panel: the step list with Prev/Next, the step's explanation,
// the "guess first" question (asked before anything runs), Run / Check the
// open trace, and each expectation as met / not met with its measured value,
// explanation and evidence (click to find it on the timeline). ImGui only:
// the caller owns the presets, runs captures and evaluates the expectations,
// and acts on what draw() returns.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "profiling/analysis/expectations/Expectations.h"
#include "profiling/trace/Trace.h"
#include "ui/Theme.h"
#include "ui/TimelineView.h"

namespace fuselab::ui {

// What the panel shows of one step (built from a tutorial preset).
struct TutorialStepView {
  int step = 0;
  std::string title;
  std::string part;
  std::string run_text;  // "mlp (geglu), batch 64, ..."
  std::string explanation;
  std::string guess_first;
  std::vector<std::string> look_for;
  std::vector<std::string> expectation_texts;
  std::vector<std::string> expectation_hints;
  std::vector<int> compare_with;
};

// The state of the last check of the current step.
struct TutorialCheck {
  bool busy = false;        // a capture is running
  double fraction = 0;      // its progress
  std::string phase;        // "step 2/3"
  std::string error;        // the capture or the check failed
  bool offer_cpu = false;   // the run failed for want of a GPU: offer the CPU
  std::string checked;      // what was checked: "live capture on cuda", a file name
  // One per expectation of the current step; empty until a check ran.
  std::vector<ExpectationResult> results;
};

struct TutorialActions {
  std::optional<size_t> go_to;       // index into the step list
  std::optional<std::string> run;    // run the step's workload on this device ("cuda", "cpu")
  bool check_open_trace = false;     // check the trace shown in the timeline
  bool cancel = false;
  std::optional<int> compare_with;   // open the A/B comparison with this step
};

class TutorialPanel {
 public:
  // `trace` is the one the results refer to (for evidence labels; may be
  // null); `has_open_trace` enables "Check the open trace"; evidence clicks
  // select and reveal events in `timeline`.
  TutorialActions draw(const std::vector<TutorialStepView>& steps, size_t current, const TutorialCheck& check,
                       const Trace* trace, bool has_open_trace, const Theme& theme, TimelineView& timeline);

  // Without a GPU the device choice starts at cpu and cuda says it has none.
  void setGpuAvailable(bool available);

 private:
  void drawResults(const TutorialStepView& step, const TutorialCheck& check, const Trace* trace, const Theme& theme,
                   TimelineView& timeline);

  size_t guess_for_ = SIZE_MAX;  // the step the guess box belongs to
  char guess_[512] = {};
  int device_ = 0;               // 0 cuda, 1 cpu
  bool gpu_available_ = true;
};

}  // namespace fuselab::ui
