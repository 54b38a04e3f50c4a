#include "app/gui/Workspace.h"

#include <GLFW/glfw3.h>  // key codes only
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "app/gui/MainMenu.h"
#include "profiling/trace/DurationText.h"
#include "ui/panels/RooflinePanel.h"
#include "ui/WrappedText.h"
#include "ui/layout/LaneLayout.h"

namespace fuselab {

namespace {

constexpr ImGuiWindowFlags kHostFlags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                        ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                                        ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse;

// A title bar across the panel: what this panel is.
void panelTitle(const ui::Theme& th, const std::string& title) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 p = ImGui::GetCursorScreenPos();
  float w = ImGui::GetContentRegionAvail().x;
  float h = ImGui::GetTextLineHeight() + 6 * th.scale;
  dl->AddRectFilled(p, ImVec2(p.x + w, p.y + h), th.header_bg, 3);
  dl->AddText(ImVec2(p.x + 6 * th.scale, p.y + 3 * th.scale), th.header_text, title.c_str());
  ImGui::Dummy(ImVec2(w, h));
}

// A draggable bar between panels; returns the drag distance this frame.
float splitter(const char* id, ImVec2 size, bool vertical, const ui::Theme& th) {
  ImGui::InvisibleButton(id, size);
  bool active = ImGui::IsItemActive();
  if (ImGui::IsItemHovered() || active) {
    ImGui::SetMouseCursor(vertical ? ImGuiMouseCursor_ResizeEW : ImGuiMouseCursor_ResizeNS);
    ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    ImGui::GetWindowDrawList()->AddRectFilled(a, b, th.hover);
  }
  if (!active) return 0;
  return vertical ? ImGui::GetIO().MouseDelta.x : ImGui::GetIO().MouseDelta.y;
}

}  // namespace

Workspace::Workspace(Settings settings) : settings_(std::move(settings)) {
  settings_.clamp();
  threshold_us_ = static_cast<float>(settings_.gap_threshold_ns) / 1000.0f;
}

AnalysisOptions Workspace::analysisOptions() const {
  AnalysisOptions o;
  o.gap_threshold_ns = settings_.gap_threshold_ns;
  o.measured_ceilings = settings_.measured_ceilings;
  return o;
}

void Workspace::openTrace(const std::string& path) {
  loader_.loadFile(path, analysisOptions());
}

void Workspace::showTrace(std::shared_ptr<const Trace> trace, std::string label, bool unsaved) {
  if (!trace) return;
  if (unsaved) unsaved_ = trace;
  loader_.analyze(std::move(trace), std::move(label), "", analysisOptions(), false);
}

void Workspace::showRun(std::shared_ptr<const RunView> run, std::string label) {
  if (!run) return;
  std::shared_ptr<const Trace> merged = run->merged.trace;
  loader_.analyze(std::move(merged), std::move(label), "", analysisOptions(), false, std::move(run));
}

void Workspace::openPaths(const std::vector<std::string>& paths) {
  if (paths.size() == 1)
    openTrace(paths.front());
  else if (!paths.empty())
    loader_.loadRun(paths, analysisOptions());
}

void Workspace::requestOpen(const std::string& path) { requestOpenPaths({path}); }

void Workspace::requestOpenPaths(const std::vector<std::string>& paths) {
  if (hasUnsavedCapture())
    pending_discard_ = PendingDiscard{false, paths};
  else
    openPaths(paths);
}

void Workspace::requestQuit() {
  if (hasUnsavedCapture())
    pending_discard_ = PendingDiscard{true, {}};
  else
    quit_ = true;
}

void Workspace::answerDiscardPrompt(bool discard) {
  if (!pending_discard_) return;
  const PendingDiscard pending = *pending_discard_;
  pending_discard_.reset();
  if (!discard) return;
  unsaved_.reset();
  if (pending.quit)
    quit_ = true;
  else
    openPaths(pending.paths);
}

void Workspace::drawDiscardPrompt() {
  constexpr const char* kTitle = "Discard the live capture?";
  if (!pending_discard_) return;
  if (!ImGui::IsPopupOpen(kTitle)) ImGui::OpenPopup(kTitle);
  if (!ImGui::BeginPopupModal(kTitle, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  ImGui::Text("\"%s\" has not been exported and exists nowhere else.", label_.c_str());
  ImGui::TextUnformatted(pending_discard_->quit ? "Quit and discard it?" : "Open the other trace and discard it?");
  if (ImGui::Button("Export first")) {
    pending_discard_.reset();
    openExportDialog();
    ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Discard")) {
    answerDiscardPrompt(true);
    ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel")) {
    answerDiscardPrompt(false);
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

void Workspace::loadRankLanes(size_t rank_pos) {
  if (run_ && run_->eventsDropped() && rank_pos < run_->run->ranks.size())
    loader_.loadRankLanes(run_, rank_pos, label_, analysisOptions());
}

void Workspace::realignRun(AlignMethod method) {
  if (run_) loader_.realignRun(run_, method, label_, analysisOptions());
}

void Workspace::setGapThreshold(int64_t ns) {
  settings_.gap_threshold_ns = std::clamp(ns, AnalysisOptions::kMinGapThresholdNs, AnalysisOptions::kMaxGapThresholdNs);
  threshold_us_ = static_cast<float>(settings_.gap_threshold_ns) / 1000.0f;
  if (trace_) loader_.analyze(trace_, label_, path_, analysisOptions(), true, run_);
}

void Workspace::setMeasuredCeilings(const Ceilings& ceilings) {
  settings_.setMeasuredCeilings(ceilings);
  if (trace_) loader_.analyze(trace_, label_, path_, analysisOptions(), true, run_);
}

void Workspace::poll() {
  if (auto pos = run_panels_.takeLanesRequest()) loadRankLanes(*pos);
  for (LoadOutcome& o : loader_.poll()) {
    if (o.cancelled) {
      notify("Cancelled: " + o.what);
      continue;
    }
    if (!o.loaded) {
      error_ = "Could not " + o.what + ": " + o.error;
      continue;
    }
    error_.clear();
    LoadedTrace& l = *o.loaded;
    if (l.keep_view && l.trace == trace_) {
      analysis_ = l.analysis;
      timeline_.setAnalysis(analysis_);  // the critical path stays: it does not depend on the options
      continue;
    }
    // A rank's lanes newly loaded into the run shown: the view stays, on that
    // rank (not after a realignment, which keeps the same lanes).
    const bool more_lanes = run_ && l.run && run_->run == l.run->run && !l.run->lanes.empty() &&
                            (run_->lanes.empty() || run_->lanes.back().rank_pos != l.run->lanes.back().rank_pos);
    const bool keep_range = more_lanes && trace_ && trace_->eventCount() > 0;
    const auto kept_axis = timeline_.axis();
    run_ = l.run;
    trace_ = l.trace;
    analysis_ = l.analysis;
    span_ns_ = trace_->endNs() - trace_->beginNs();
    label_ = l.label;
    path_ = l.path;
    timeline_.setTrace(trace_, analysis_);
    timeline_.setCriticalPath(l.critical_path);
    run_panels_.setRun(run_, timeline_);
    if (keep_range) timeline_.showRange(kept_axis.start_ns, kept_axis.endNs());
    if (more_lanes) timeline_.scrollToRank(run_->run->ranks[run_->lanes.back().rank_pos].rank);
    if (!path_.empty()) settings_.addRecentFile(path_);
  }
}

void Workspace::waitIdle() {
  loader_.wait();
  poll();
}

void Workspace::setWorkbenchPanel(std::string title, std::function<void()> draw) {
  workbench_title_ = std::move(title);
  workbench_ = std::move(draw);
}

ui::ThemeKind Workspace::themeKind() const {
  if (theme_override_) return *theme_override_;
  return ui::parseThemeKind(settings_.theme).value_or(ui::ThemeKind::Dark);
}

ui::Theme Workspace::theme() const { return ui::makeTheme(themeKind(), settings_.ui_scale); }

std::optional<ScreenshotRequest> Workspace::takeScreenshotRequest() {
  auto r = std::move(screenshot_request_);
  screenshot_request_.reset();
  return r;
}

void Workspace::notify(std::string message) {
  notice_ = std::move(message);
  notice_until_ = ImGui::GetCurrentContext() ? ImGui::GetTime() + 6.0 : 0;
}

void Workspace::openExportDialog() {
  std::string stem = label_.empty() ? "trace" : std::filesystem::path(label_).stem().stem().string();
  export_dialog_.open(stem + "-export.json.gz");
}

void Workspace::applyMenu(const MenuCommands& c) {
  if (c.open_trace) {
    std::string folder = path_.empty() ? std::string() : std::filesystem::path(path_).parent_path().string();
    open_dialog_.open(folder);
  }
  if (c.open_recent) requestOpen(*c.open_recent);
  if (c.clear_recent) settings_.recent_files.clear();
  if (c.screenshot) {
    std::string stem = label_.empty() ? "fuselab" : std::filesystem::path(label_).stem().stem().string();
    screenshot_dialog_.open(stem + "-timeline.png", themeKind());
  }
  if (c.export_trace && trace_) openExportDialog();
  if (c.quit) requestQuit();
  if (c.fit_all) timeline_.fitAll();
  if (c.theme) settings_.theme = std::string(ui::themeName(*c.theme));
  if (c.ui_scale) settings_.ui_scale = *c.ui_scale;
  if (c.keys_help) keys_help_requested_ = true;
  if (c.about) about_dialog_.open();
}

void Workspace::handleShortcuts() {
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;
  MenuCommands c;
  if (io.KeyCtrl) {
    c.open_trace = ImGui::IsKeyPressed(GLFW_KEY_O, false);
    c.quit = ImGui::IsKeyPressed(GLFW_KEY_Q, false);
    c.screenshot = ImGui::IsKeyPressed(GLFW_KEY_P, false);
    if (ImGui::IsKeyPressed(GLFW_KEY_EQUAL, false) || ImGui::IsKeyPressed(GLFW_KEY_KP_ADD, false))
      c.ui_scale = std::min(settings_.ui_scale + 0.125f, 3.0f);
    if (ImGui::IsKeyPressed(GLFW_KEY_MINUS, false) || ImGui::IsKeyPressed(GLFW_KEY_KP_SUBTRACT, false))
      c.ui_scale = std::max(settings_.ui_scale - 0.125f, 0.75f);
    if (ImGui::IsKeyPressed(GLFW_KEY_0, false)) c.ui_scale = 1.0f;
  }
  c.keys_help = ImGui::IsKeyPressed(GLFW_KEY_F1, false);
  applyMenu(c);
}

void Workspace::drawFrame(ScreenshotArea area) {
  poll();
  const ui::Theme th = theme();
  ui::applyImGuiStyle(th);
  const ImGuiViewport* vp = ImGui::GetMainViewport();

  if (area == ScreenshotArea::Timeline) {
    ImGui::SetNextWindowPos(vp->Pos);
    ImGui::SetNextWindowSize(vp->Size);
    ImGui::Begin("##timeline_only", nullptr, kHostFlags);
    timeline_.draw(th);
    ImGui::End();
    return;
  }
  if (area == ScreenshotArea::Flame || area == ScreenshotArea::Memory) {
    ImGui::SetNextWindowPos(vp->Pos);
    ImGui::SetNextWindowSize(vp->Size);
    ImGui::Begin("##panel_only", nullptr, kHostFlags);
    if (trace_ && area == ScreenshotArea::Flame) flame_panel_.drawContent(*trace_, analysis_.get(), th, timeline_);
    if (trace_ && analysis_ && area == ScreenshotArea::Memory) {
      if (analysis_->memory.empty()) ImGui::TextDisabled("This trace recorded no memory (profile_memory=True, or capture --memory).");
      else ui::drawMemoryPanel(*trace_, *analysis_, th, timeline_);
    }
    ImGui::End();
    return;
  }
  if (area == ScreenshotArea::Roofline) {
    ImGui::SetNextWindowPos(vp->Pos);
    ImGui::SetNextWindowSize(vp->Size);
    ImGui::Begin("##roofline_only", nullptr, kHostFlags);
    if (analysis_) ui::drawRooflinePanel(*analysis_, th, timeline_);
    ImGui::End();
    return;
  }

  applyMenu(drawMainMenu(settings_, trace_ != nullptr, true));
  handleShortcuts();

  const float status_h = ImGui::GetFrameHeight();
  const ImVec2 pos = vp->WorkPos;
  const ImVec2 size(vp->WorkSize.x, std::max(1.0f, vp->WorkSize.y - status_h));
  ImGui::SetNextWindowPos(pos);
  ImGui::SetNextWindowSize(size);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(0, 0));
  ImGui::Begin("##workspace", nullptr, kHostFlags);
  ImGui::PopStyleVar(2);

  const float s = settings_.ui_scale;
  const float gap = std::floor(6 * s);
  const float sidebar_w = std::floor(std::clamp(settings_.sidebar_width * s, 200.0f, std::max(200.0f, size.x * 0.5f)));
  const ImVec2 panel_padding(std::floor(8 * s), std::floor(6 * s));

  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, panel_padding);
  ImGui::BeginChild("##sidebar", ImVec2(sidebar_w, size.y), true);
  drawSidebar(th);
  ImGui::EndChild();
  ImGui::PopStyleVar();
  ImGui::SameLine(0, 0);
  if (float dx = splitter("##vsplit", ImVec2(gap, size.y), true, th); dx != 0)
    settings_.sidebar_width = std::clamp(settings_.sidebar_width + dx / s, 200.0f, 1200.0f);
  ImGui::SameLine(0, 0);

  ImGui::BeginGroup();
  const float right_w = std::max(1.0f, size.x - sidebar_w - gap);
  const float timeline_h = std::floor((size.y - gap) * settings_.timeline_fraction);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, panel_padding);
  ImGui::BeginChild("##timeline_panel", ImVec2(right_w, timeline_h), true,
                    ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  ImGui::PopStyleVar();
  drawTimelinePanel(th);
  ImGui::EndChild();
  if (float dy = splitter("##hsplit", ImVec2(right_w, gap), false, th); dy != 0)
    settings_.timeline_fraction = std::clamp(settings_.timeline_fraction + dy / (size.y - gap), 0.2f, 0.9f);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, panel_padding);
  ImGui::BeginChild("##tables_panel", ImVec2(right_w, std::max(1.0f, size.y - timeline_h - gap)), true);
  ImGui::PopStyleVar();
  if (ImGui::BeginTabBar("##details")) {
    run_panels_.drawTableTabs(th, timeline_);
    stats_.drawTableTabs(trace_.get(), analysis_.get(), th, timeline_);
    critical_path_panel_.drawTab(trace_.get(), th, timeline_);
    flame_panel_.drawTab(trace_.get(), analysis_.get(), th, timeline_);
    ui::drawMemoryTab(trace_.get(), analysis_.get(), th, timeline_);
    ImGui::EndTabBar();
  }
  ImGui::EndChild();
  ImGui::EndGroup();
  ImGui::End();

  drawStatusBar(th, status_h);

  if (auto chosen = open_dialog_.draw(settings_.recent_files)) requestOpen(*chosen);
  about_dialog_.draw();
  if (auto written = export_dialog_.draw(trace_.get())) {
    if (trace_ == unsaved_) unsaved_.reset();  // it exists in a file now
    notify(*written);
  }
  drawDiscardPrompt();
  if (auto request = screenshot_dialog_.draw()) screenshot_request_ = std::move(request);
  drawKeysHelp();
}

void Workspace::drawSidebar(const ui::Theme& th) {
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(8 * th.scale, 4 * th.scale));
  if (workbench_) {
    panelTitle(th, workbench_title_);
    workbench_();
    ImGui::Spacing();
  }

  panelTitle(th, "Trace");
  ImGui::PushTextWrapPos(0);  // long file and GPU names wrap in a narrow sidebar
  if (trace_) {
    ImGui::TextUnformatted(label_.c_str());
    if (!path_.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", path_.c_str());
    size_t cpu = 0, gpu = 0;
    for (const Track& t : trace_->tracks) {
      if (t.size() == 0) continue;
      cpu += t.kind == TrackKind::Cpu;
      gpu += t.kind == TrackKind::Gpu;
    }
    ImGui::TextDisabled("%zu events, %zu CPU thread%s, %zu GPU stream%s", trace_->eventCount(), cpu,
                        cpu == 1 ? "" : "s", gpu, gpu == 1 ? "" : "s");
    ImGui::TextDisabled("span %s", formatDuration(span_ns_).c_str());
    for (const DeviceProperties& d : trace_->meta.devices) ImGui::TextDisabled("GPU %d: %s", d.id, d.name.c_str());
    if (!trace_->meta.warnings.empty()) {
      std::string head = std::to_string(trace_->meta.warnings.size()) + " note" +
                         (trace_->meta.warnings.size() == 1 ? "" : "s") + " from reading it###notes";
      if (ImGui::TreeNode(head.c_str())) {
        for (const std::string& w : trace_->meta.warnings) ui::wrappedBullet(w);
        ImGui::TreePop();
      }
    }
  } else {
    ImGui::TextDisabled(loader_.busy() ? "Loading..." : "No trace open.");
    if (ImGui::Button("Open trace...")) open_dialog_.open("");
  }
  ImGui::PopTextWrapPos();

  ImGui::Spacing();
  ImGui::TextUnformatted("Gap threshold");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-1);
  // The whole range analysis accepts (up to 1 s), logarithmic so that the
  // usual 1-1000 us keep most of the slider.
  ImGui::SliderFloat("##gap_threshold", &threshold_us_, float(AnalysisOptions::kMinGapThresholdNs) / 1000.0f,
                     float(AnalysisOptions::kMaxGapThresholdNs) / 1000.0f, "%.0f us", ImGuiSliderFlags_Logarithmic);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Idle gaps shorter than this (and not host wait) count as kernel wait.\n"
                      "Ctrl+click to type a value.");
  if (ImGui::IsItemDeactivatedAfterEdit()) setGapThreshold(std::llround(static_cast<double>(threshold_us_) * 1000.0));
  ImGui::Spacing();

  if (run_panels_.hasRun()) {
    panelTitle(th, "Run");
    if (auto method = run_panels_.drawSummary(th, timeline_)) realignRun(*method);
    ImGui::Spacing();
  }
  panelTitle(th, "Summary");
  if (run_ && run_->eventsDropped())
    ImGui::TextDisabled("Of the lanes loaded: %zu of %zu ranks (the Run panel covers every rank).",
                        run_->lanes.size(), run_->run->ranks.size());
  stats_.drawSummary(trace_.get(), analysis_.get(), th, timeline_, run_panels_.verdict());
  ImGui::PopStyleVar();
}

void Workspace::drawTimelinePanel(const ui::Theme& th) {
  std::string title = "Timeline";
  if (!label_.empty()) title += "  -  " + label_;
  if (loader_.busy()) title += "   (" + loader_.currentJob() + "...)";
  panelTitle(th, title);
  if (!error_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::ColorConvertU32ToFloat4(IM_COL32(150, 40, 40, 255)));
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 1));
    float h = ImGui::GetTextLineHeightWithSpacing() * 2 + 8 * th.scale;
    ImGui::BeginChild("##error", ImVec2(0, h), false, ImGuiWindowFlags_NoScrollbar);
    ImGui::SetCursorPos(ImVec2(6 * th.scale, 4 * th.scale));
    ImGui::PushTextWrapPos(ImGui::GetContentRegionAvail().x - 90 * th.scale);
    ImGui::TextUnformatted(error_.c_str());
    ImGui::PopTextWrapPos();
    ImGui::SameLine(ImGui::GetWindowWidth() - 80 * th.scale);
    if (ImGui::SmallButton("Dismiss")) error_.clear();
    ImGui::EndChild();
    ImGui::PopStyleColor(2);
  }
  ImGui::Spacing();
  if (run_panels_.hasRun()) {
    run_panels_.drawOverview(th, timeline_);
    ImGui::Spacing();
  }
  timeline_.draw(th);
}

void Workspace::drawStatusBar(const ui::Theme& th, float height) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(vp->Pos.x, vp->Pos.y + vp->Size.y - height));
  ImGui::SetNextWindowSize(ImVec2(vp->Size.x, height));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(8 * th.scale, 2 * th.scale));
  ImGui::PushStyleColor(ImGuiCol_WindowBg, ImGui::ColorConvertU32ToFloat4(th.header_bg));
  ImGui::Begin("##status", nullptr, kHostFlags);
  ImGui::PopStyleColor();
  ImGui::PopStyleVar();
  ImGui::AlignTextToFramePadding();
  if (loader_.busy()) {
    static const char spinner[] = "|/-\\";
    ImGui::Text("%c %s...", spinner[static_cast<int>(ImGui::GetTime() * 8) % 4], loader_.currentJob().c_str());
    if (const std::string detail = loader_.progressDetail(); !detail.empty()) {
      ImGui::SameLine();
      ImGui::TextUnformatted(detail.c_str());
    }
    if (std::optional<double> done = loader_.progress()) {
      // A large trace takes seconds to read: how far it is, and a way out.
      ImGui::SameLine();
      ImGui::ProgressBar(static_cast<float>(*done), ImVec2(200 * th.scale, 0));
      ImGui::SameLine();
      if (ImGui::SmallButton("Cancel")) cancelLoading();
    }
  } else if (!notice_.empty() && ImGui::GetTime() < notice_until_) {
    ImGui::TextUnformatted(notice_.c_str());
  } else if (trace_) {
    ImGui::Text("%s: %zu events  |  wheel: zoom, drag: pan, click: select, F: fit all, 1-9: step", label_.c_str(),
                trace_->eventCount());
  } else {
    ImGui::TextUnformatted("Ready. File > Open trace (Ctrl+O), or drop a trace file onto the window.");
  }
  ImGui::End();
}

void Workspace::drawKeysHelp() {
  if (keys_help_requested_) {
    ImGui::OpenPopup("Keys and mouse");
    keys_help_requested_ = false;
  }
  if (!ImGui::BeginPopupModal("Keys and mouse", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  const char* rows[][2] = {
      {"mouse wheel", "zoom around the pointer"},
      {"Shift + wheel", "scroll the lanes"},
      {"drag", "pan (and scroll)"},
      {"click", "select an event: shows its flows (launch <-> GPU op)"},
      {"double-click", "zoom to the event"},
      {"W / S", "zoom in / out"},
      {"A / D", "pan left / right"},
      {"F", "fit the whole trace"},
      {"1 .. 9", "fit step k (ProfilerStep#k in time order)"},
      {"Ctrl+O", "open a trace"},
      {"Ctrl+P", "screenshot"},
      {"Ctrl +/-/0", "text size"},
  };
  if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg)) {
    for (auto& r : rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r[0]);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r[1]);
    }
    ImGui::EndTable();
  }
  if (ImGui::Button("Close") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

}  // namespace fuselab
