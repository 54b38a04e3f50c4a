// What the tutorial panels (ui/panels/TutorialPanel, ui/panels/SweepPanel) show, built from
// the app's data: a tutorial preset as a step view, a sweep result as plot
// data.
#pragma once

#include "app/capture/Sweep.h"
#include "app/tutorial/TutorialPresets.h"
#include "ui/panels/SweepPanel.h"
#include "ui/panels/TutorialPanel.h"

namespace fuselab {

ui::TutorialStepView tutorialStepView(const TutorialPreset& preset);

// Plot series from a (possibly partial) sweep; `title` names the workload.
ui::SweepPlotData sweepPlotData(const SweepResult& result, const std::string& title);

// "mlp (dim 768, hidden 3072, bf16) on cuda"
std::string sweepTitle(const WorkloadParams& base);

}  // namespace fuselab
