#include "app/gui/TutorialPanels.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "app/AssetPaths.h"
#include "app/capture/CaptureModule.h"
#include "app/capture/GpuProbe.h"
#include "app/gui/TutorialViews.h"
#include "app/gui/Workspace.h"
#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/expectations/Expectations.h"
#include "profiling/analysis/expectations/ExpectationsRun.h"
#include "profiling/capture_api/WorkloadCatalog.h"
#include "profiling/analysis/run/TraceOrRun.h"

namespace fuselab {

namespace {

// Where a panel first opens: a fraction of the display from its top-left
// corner, so the three do not open on top of each other.
void first(float fx, float fy) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + fx * vp->WorkSize.x, vp->WorkPos.y + fy * vp->WorkSize.y),
                          ImGuiCond_FirstUseEver);
}

template <typename T>
bool ready(const std::future<T>& f) {
  return f.valid() && f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

}  // namespace

TutorialPanels::TutorialPanels(Workspace& workspace) : ws_(workspace) {
  try {
    presets_ = loadTutorialPresets(tutorialPresetsDir());
    for (const auto& p : presets_) step_views_.push_back(tutorialStepView(p));
  } catch (const std::exception& e) {  // PresetError, AssetsNotFound
    presets_error_ = e.what();
  }
  sweep_workloads_ = {"mlp", "linear"};
}

TutorialPanels::~TutorialPanels() {
  if (sweep_progress_) sweep_progress_->cancel = true;
  if (sweep_thread_.joinable()) sweep_thread_.join();
}

void TutorialPanels::draw() {
  pollCaptures();
  drawMenu();
  const ui::Theme th = ws_.theme();
  if (show_tutorial_) drawTutorial(th);
  if (show_compare_) drawCompare(th);
  if (show_sweep_) drawSweep(th);
}

void TutorialPanels::drawMenu() {
  // A second BeginMainMenuBar in the frame appends to the Workspace's bar.
  if (!ImGui::BeginMainMenuBar()) return;
  if (ImGui::BeginMenu("Learn")) {
    ImGui::MenuItem("Tutorial", nullptr, &show_tutorial_);
    ImGui::MenuItem("Compare A/B", nullptr, &show_compare_);
    ImGui::MenuItem("Sweep", nullptr, &show_sweep_);
    ImGui::EndMenu();
  }
  ImGui::EndMainMenuBar();
}

void TutorialPanels::pollCaptures() {
  if (auto r = worker_.poll()) {
    const std::string failure = r->cancelled ? "cancelled" : r->error;
    if (r->id == tutorial_job_) {
      tutorial_job_ = 0;
      if (r->run) {  // a run step (tp_mlp): checked on the run, shown as one
        const TutorialPreset& p = presets_[current_];
        ws_.showRun(r->run, "step " + std::to_string(p.step) + ": " + std::to_string(r->request.params.ranks) +
                                " ranks of " + r->request.params.workload);
        check_.results = evaluateRunExpectations(*r->run->run, *r->run->analysis, p.expectations);
        check_.checked = "live run of " + std::to_string(r->request.params.ranks) + " ranks";
        check_.error.clear();
        checked_trace_ = r->run->merged.trace;
      } else if (r->ok()) {
        awaiting_trace_ = r->trace;
        const TutorialPreset& p = presets_[current_];
        ws_.showTrace(r->trace, "step " + std::to_string(p.step) + ": " + r->trace->meta.trace_name);
        check_.error.clear();
        for (const auto& m : r->messages) check_.error += (check_.error.empty() ? "" : "\n") + m;
      } else if (r->no_gpu) {
        check_.error = "This machine has no CUDA GPU, so the step cannot run on cuda.";
        check_.offer_cpu = true;
      } else {
        check_.error = "Run failed: " + failure;
      }
    } else if (r->id == compare_job_) {
      compare_job_ = 0;
      const char* side = compare_job_side_a_ ? "A" : "B";
      if (r->ok()) {
        // A run compares as its ranks merged on the aligned axis.
        std::shared_ptr<const Trace> trace =
            r->run ? r->run->merged.trace : r->trace;
        compare_future_side_a_ = compare_job_side_a_;
        compare_b_ = std::async(std::launch::async, [trace] {
          return std::make_pair(trace, std::shared_ptr<const TraceAnalysis>(
                                           std::make_shared<TraceAnalysis>(analyzeTrace(*trace))));
        });
        compare_status_ = std::string("analysing ") + side;
      } else {
        compare_status_ = std::string(side) + " failed: " + failure;
        compare_queue_.clear();
      }
    }
  }
  if (tutorial_job_ || compare_job_) {
    const CaptureWorker::Status s = worker_.status();
    if (tutorial_job_) {
      check_.busy = true;
      check_.fraction = s.fraction;
      check_.phase = s.phase;
    }
  } else {
    check_.busy = false;
  }
  // A tutorial capture is checked once the Workspace has analysed it.
  if (awaiting_trace_ && ws_.trace() == awaiting_trace_ && ws_.analysis()) {
    checkAgainst(ws_.trace(), ws_.analysis(), "live capture: " + awaiting_trace_->meta.trace_name);
    awaiting_trace_.reset();
  }
  if (ready(compare_b_)) {
    try {
      auto [trace, analysis] = compare_b_.get();
      if (compare_future_side_a_)
        compare_.addRepeatA(trace, analysis);
      else if (compare_b_runs_++ == 0)
        compare_.setB(trace, analysis, compare_b_label_);
      else
        compare_.addRepeatB(trace, analysis);
      compare_status_.clear();
      ++compare_runs_done_;
      submitNextCompareRun();
    } catch (const std::exception& e) {
      compare_status_ = "B failed: " + std::string(e.what());
      compare_queue_.clear();
    }
  }
}

void TutorialPanels::checkAgainst(std::shared_ptr<const Trace> trace, std::shared_ptr<const TraceAnalysis> analysis,
                                  std::string what) {
  if (presets_.empty() || !trace || !analysis) return;
  check_.results = evaluateExpectations(*trace, *analysis, presets_[current_].expectations);
  check_.checked = std::move(what);
  check_.error.clear();
  checked_trace_ = std::move(trace);
}

void TutorialPanels::drawTutorial(const ui::Theme& th) {
  ImGui::SetNextWindowSize(ImVec2(520 * th.scale, 760 * th.scale), ImGuiCond_FirstUseEver);
  first(0.60f, 0.06f);
  if (!ImGui::Begin("Tutorial", &show_tutorial_)) {
    ImGui::End();
    return;
  }
  if (!gpu_checked_) {  // without loading the capture module (LibTorch) just to ask
    tutorial_panel_.setGpuAvailable(captureModuleLoaded() ? captureBackend().gpuAvailable() : nvidiaGpuVisible());
    gpu_checked_ = true;
  }
  if (!presets_error_.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(presets_error_.c_str());
    ImGui::PopTextWrapPos();
    ImGui::End();
    return;
  }
  const bool results_shown = checked_trace_ && checked_trace_ == ws_.trace();
  const bool has_open = ws_.trace() && ws_.analysis();
  const ui::TutorialActions act = tutorial_panel_.draw(step_views_, current_, check_,
                                                       results_shown ? checked_trace_.get() : nullptr, has_open, th,
                                                       ws_.timeline());
  if (!check_.results.empty() && !results_shown)
    ImGui::TextDisabled("(the checked trace is no longer in the timeline: evidence cannot be shown)");
  ImGui::End();

  if (act.go_to && *act.go_to != current_ && *act.go_to < presets_.size()) {
    current_ = *act.go_to;
    check_ = {};
    checked_trace_.reset();
  }
  if (act.run && !worker_.status().busy) {
    try {
      const TutorialPreset& p = presets_[current_];
      last_device_ = parseDevice(*act.run);
      tutorial_job_ = worker_.submit({presetParams(p, last_device_), presetCaptureOptions(p)});
      check_.results.clear();
      check_.error.clear();
      check_.offer_cpu = false;
      check_.busy = true;
      check_.fraction = 0;
    } catch (const std::exception& e) {
      check_.error = e.what();
    }
  }
  if (act.check_open_trace) checkAgainst(ws_.trace(), ws_.analysis(), ws_.traceLabel());
  if (act.cancel) worker_.cancel();
  if (act.compare_with) {
    show_compare_ = true;
    if (ws_.trace() && ws_.analysis()) compare_.setA(ws_.trace(), ws_.analysis(), ws_.traceLabel());
    startCompareRun(*act.compare_with);
  }
}

void TutorialPanels::startCompareRun(int other_step) {
  if (other_step < 1 || size_t(other_step) > presets_.size()) return;
  if (worker_.status().busy) {
    compare_status_ = "a capture is running; try again when it is done";
    return;
  }
  const TutorialPreset& self = presets_[current_];
  const TutorialPreset& other = presets_[size_t(other_step - 1)];
  const WorkloadParams params = compareParams(self, other, last_device_);
  const CaptureOptions options = presetCaptureOptions(self);
  compare_queue_.clear();
  for (int i = 0; i < compare_runs_; ++i) compare_queue_.push_back({false, {params, options}});
  for (int i = 1; i < compare_runs_; ++i) compare_queue_.push_back({true, {presetParams(self, last_device_), options}});
  compare_runs_total_ = compare_queue_.size();
  compare_runs_done_ = 0;
  compare_b_runs_ = 0;
  compare_b_label_ = "step " + std::to_string(other.step) + "'s " + params.workload +
                     (params.variant.empty() ? "" : " (" + params.variant + ")") + " at step " +
                     std::to_string(self.step) + "'s sizes";
  submitNextCompareRun();
}

void TutorialPanels::submitNextCompareRun() {
  if (compare_queue_.empty()) return;
  const CompareRun run = compare_queue_.front();
  compare_queue_.pop_front();
  compare_job_side_a_ = run.side_a;
  compare_job_ = worker_.submit(run.request);
  compare_status_ = std::string("running ") + (run.side_a ? "A again" : "B: " + compare_b_label_) + " (run " +
                    std::to_string(compare_runs_done_ + 1) + " of " + std::to_string(compare_runs_total_) + ")";
}

void TutorialPanels::drawCompare(const ui::Theme& th) {
  ImGui::SetNextWindowSize(ImVec2(1100 * th.scale, 700 * th.scale), ImGuiCond_FirstUseEver);
  first(0.10f, 0.12f);
  if (!ImGui::Begin("Compare A/B", &show_compare_)) {
    ImGui::End();
    return;
  }
  const bool has_open = ws_.trace() && ws_.analysis();
  ImGui::BeginDisabled(!has_open);
  // Picking a side by hand ends a live compare's remaining runs (they would land on the new side).
  auto dropLiveRuns = [this] {
    compare_queue_.clear();
    compare_job_ = 0;
  };
  if (ImGui::Button("Pin open trace as A")) {
    dropLiveRuns();
    compare_.setA(ws_.trace(), ws_.analysis(), ws_.traceLabel());
  }
  ImGui::SameLine();
  if (ImGui::Button("Use open trace as B")) {
    dropLiveRuns();
    compare_.setB(ws_.trace(), ws_.analysis(), ws_.traceLabel());
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::SetNextItemWidth(280 * th.scale);
  ImGui::InputTextWithHint("##b_path", "trace file for B (.json / .json.gz)", compare_path_, sizeof compare_path_);
  ImGui::SameLine();
  ImGui::BeginDisabled(compare_path_[0] == '\0' || compare_b_.valid());
  if (ImGui::Button("Open as B")) {
    const std::string path = compare_path_;
    compare_b_label_ = path;
    compare_status_ = "reading " + path;
    dropLiveRuns();
    compare_future_side_a_ = false;
    compare_b_runs_ = 0;
    compare_b_ = std::async(std::launch::async, [path] {
      std::shared_ptr<const Trace> trace = openTraceOrRun({std::filesystem::path(path)}).trace;  // a folder: merged
      return std::make_pair(std::shared_ptr<const Trace>(trace), std::shared_ptr<const TraceAnalysis>(
                                                                     std::make_shared<TraceAnalysis>(analyzeTrace(*trace))));
    });
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::SetNextItemWidth(90 * th.scale);
  if (ImGui::InputInt("runs per side", &compare_runs_)) compare_runs_ = std::clamp(compare_runs_, 1, 10);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("A tutorial step's \"compare with\" captures B this many times, and A as many times in all "
                      "(the open trace is A's first run): every recorded step is a sample, so the table can tell "
                      "a change from noise.");
  if (!compare_status_.empty()) ImGui::TextDisabled("%s", compare_status_.c_str());
  compare_.draw(th, 460 * th.scale);
  ImGui::End();
}

void TutorialPanels::startSweep() {
  const ui::SweepSettings& st = sweep_panel_.settings();
  SweepOptions o;
  try {
    const std::string name = sweep_workloads_.at(size_t(std::clamp(st.workload, 0, int(sweep_workloads_.size()) - 1)));
    for (const auto& info : workloadCatalog())
      if (info.name == name) o.base = info.defaults;
    o.base.workload = name;
    o.base.device = st.device == 0 ? Device::Cuda : Device::Cpu;
    o.measured_ceilings = ws_.settings().measured_ceilings;
    if (st.eager) o.variants.push_back("eager");
    if (st.graph) o.variants.push_back("graph");
    if (st.fused) o.variants.push_back("fused");
    if (o.variants.empty()) throw SweepError("pick at least one variant");
    o.tokens = parseTokenRange(st.tokens);
  } catch (const std::exception& e) {
    sweep_status_.error = e.what();
    return;
  }
  sweep_status_ = {};
  sweep_status_.busy = true;
  sweep_title_ = sweepTitle(o.base);
  {
    std::lock_guard lock(sweep_mutex_);
    sweep_partial_ = {};
    sweep_done_ = false;
    sweep_thread_error_.clear();
  }
  sweep_progress_ = std::make_unique<SweepProgress>();
  o.on_point = [this](const SweepSeries& s, const SweepPoint& p) {
    std::lock_guard lock(sweep_mutex_);
    auto it = std::find_if(sweep_partial_.series.begin(), sweep_partial_.series.end(),
                           [&](const SweepSeries& x) { return x.variant == s.variant; });
    if (it == sweep_partial_.series.end()) {
      SweepSeries copy = s;
      copy.points.clear();
      sweep_partial_.series.push_back(std::move(copy));
      it = sweep_partial_.series.end() - 1;
    }
    it->points.push_back(p);
  };
  SweepProgress* progress = sweep_progress_.get();
  sweep_thread_ = std::thread([this, o, progress] {
    SweepResult r;
    std::string error;
    try {
      r = runSweep(o, progress);
    } catch (const std::exception& e) {
      error = e.what();
    }
    std::lock_guard lock(sweep_mutex_);
    if (error.empty()) sweep_partial_ = std::move(r);
    sweep_thread_error_ = error;
    sweep_done_ = true;
  });
}

void TutorialPanels::drawSweep(const ui::Theme& th) {
  ImGui::SetNextWindowSize(ImVec2(900 * th.scale, 760 * th.scale), ImGuiCond_FirstUseEver);
  first(0.20f, 0.08f);
  if (!ImGui::Begin("Sweep", &show_sweep_)) {
    ImGui::End();
    return;
  }
  ui::SweepPlotData data;
  {
    std::lock_guard lock(sweep_mutex_);
    if (sweep_thread_.joinable() && sweep_done_) {
      sweep_thread_.join();
      sweep_result_ = sweep_partial_;
      sweep_status_.busy = false;
      sweep_status_.error = sweep_thread_error_;
      if (sweep_status_.error.empty()) sweep_status_.message = sweep_partial_.cancelled ? "cancelled" : "done";
    }
    data = sweepPlotData(sweep_partial_, sweep_title_);
  }
  if (sweep_status_.busy && sweep_progress_) {
    sweep_status_.fraction = sweep_progress_->fraction.load();
    sweep_status_.phase = sweep_progress_->phase();
  }
  const ui::SweepActions act = sweep_panel_.draw(sweep_workloads_, data, sweep_status_, th);
  ImGui::End();

  if (act.run && !sweep_thread_.joinable()) startSweep();
  if (act.cancel && sweep_progress_) sweep_progress_->cancel = true;
  if (act.export_csv) {
    try {
      std::lock_guard lock(sweep_mutex_);
      writeSweepCsv(sweep_result_ ? *sweep_result_ : sweep_partial_, sweep_panel_.settings().csv_path);
      sweep_status_.message = std::string("wrote ") + sweep_panel_.settings().csv_path;
    } catch (const std::exception& e) {
      sweep_status_.error = e.what();
    }
  }
}

}  // namespace fuselab
