#include "app/Settings.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/trace/AtomicFile.h"

namespace fuselab {

void Settings::addRecentFile(const std::string& path) {
  std::error_code ec;
  std::string abs = std::filesystem::absolute(path, ec).lexically_normal().string();
  if (ec) abs = path;
  recent_files.erase(std::remove(recent_files.begin(), recent_files.end(), abs), recent_files.end());
  recent_files.insert(recent_files.begin(), abs);
  if (recent_files.size() > kMaxRecentFiles) recent_files.resize(kMaxRecentFiles);
}

void Settings::setMeasuredCeilings(const Ceilings& c) {
  std::erase_if(measured_ceilings, [&](const Ceilings& have) { return have.gpu == c.gpu; });
  measured_ceilings.push_back(c);
}

namespace {

nlohmann::json ceilingsToJson(const Ceilings& c) {
  return {{"gpu", c.gpu},         {"bf16_tflops", c.bf16_tflops}, {"fp16_tflops", c.fp16_tflops},
          {"tf32_tflops", c.tf32_tflops}, {"fp32_tflops", c.fp32_tflops}, {"copy_gbps", c.copy_gbps}};
}

// Entries without a GPU name or with a negative or non-numeric value are dropped.
std::vector<Ceilings> ceilingsFromJson(const nlohmann::json& list) {
  std::vector<Ceilings> out;
  if (!list.is_array()) return out;
  for (const auto& j : list) {
    if (!j.is_object() || !j.contains("gpu") || !j["gpu"].is_string() || j["gpu"].get<std::string>().empty()) continue;
    Ceilings c;
    c.source = "measured";
    c.gpu = j["gpu"].get<std::string>();
    bool ok = true;
    auto take = [&](const char* key, double& field) {
      auto it = j.find(key);
      if (it == j.end()) return;
      if (it->is_number() && it->get<double>() >= 0) field = it->get<double>();
      else ok = false;
    };
    take("bf16_tflops", c.bf16_tflops);
    take("fp16_tflops", c.fp16_tflops);
    take("tf32_tflops", c.tf32_tflops);
    take("fp32_tflops", c.fp32_tflops);
    take("copy_gbps", c.copy_gbps);
    // An entry without a single value (a misspelt or nested form) would pass
    // for measured ceilings of zero and draw no roof.
    const bool any = c.bf16_tflops > 0 || c.fp16_tflops > 0 || c.tf32_tflops > 0 || c.fp32_tflops > 0 || c.copy_gbps > 0;
    if (ok && any) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

std::filesystem::path defaultSettingsFile() {
  const std::filesystem::path dir = settingsDir();
  return dir.empty() ? std::filesystem::path() : dir / "settings.json";
}

void Settings::clamp() {
  if (theme != "dark" && theme != "light") theme = "dark";
  if (!(ui_scale >= 0.75f && ui_scale <= 3.0f)) ui_scale = 1.0f;
  gap_threshold_ns =
      std::clamp(gap_threshold_ns, AnalysisOptions::kMinGapThresholdNs, AnalysisOptions::kMaxGapThresholdNs);
  window_width = std::clamp(window_width, 640, 16384);
  window_height = std::clamp(window_height, 400, 16384);
  if (!(sidebar_width >= 200 && sidebar_width <= 1200)) sidebar_width = 340;
  if (!(timeline_fraction >= 0.2f && timeline_fraction <= 0.9f)) timeline_fraction = 0.64f;
  if (recent_files.size() > kMaxRecentFiles) recent_files.resize(kMaxRecentFiles);
}

std::filesystem::path settingsDir() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "fuselab";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".config" / "fuselab";
  return {};
}

Settings loadSettings(const std::filesystem::path& file, std::string* warning) {
  Settings s;
  std::error_code ec;
  if (file.empty() || !std::filesystem::exists(file, ec)) return s;
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) {
    if (warning) *warning = "cannot read " + file.string() + "; using default settings";
    return s;
  }
  nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    if (warning) *warning = file.string() + " is not a JSON object; using default settings";
    return s;
  }
  // Each field on its own: one bad value does not cost the others.
  auto take = [&](const char* key, auto& field) {
    auto it = j.find(key);
    if (it == j.end()) return;
    try {
      field = it->template get<std::remove_reference_t<decltype(field)>>();
    } catch (const nlohmann::json::exception&) {
      if (warning) *warning = file.string() + ": ignored '" + key + "' (wrong type)";
    }
  };
  take("theme", s.theme);
  take("ui_scale", s.ui_scale);
  take("gap_threshold_ns", s.gap_threshold_ns);
  take("recent_files", s.recent_files);
  take("window_width", s.window_width);
  take("window_height", s.window_height);
  take("sidebar_width", s.sidebar_width);
  take("timeline_fraction", s.timeline_fraction);
  if (auto it = j.find("measured_ceilings"); it != j.end()) s.measured_ceilings = ceilingsFromJson(*it);
  s.clamp();
  return s;
}

void saveSettings(const Settings& s, const std::filesystem::path& file) {
  nlohmann::json j = {
      {"theme", s.theme},
      {"ui_scale", s.ui_scale},
      {"gap_threshold_ns", s.gap_threshold_ns},
      {"recent_files", s.recent_files},
      {"window_width", s.window_width},
      {"window_height", s.window_height},
      {"sidebar_width", s.sidebar_width},
      {"timeline_fraction", s.timeline_fraction},
  };
  j["measured_ceilings"] = nlohmann::json::array();
  for (const Ceilings& c : s.measured_ceilings) j["measured_ceilings"].push_back(ceilingsToJson(c));
  std::error_code ec;
  if (!file.parent_path().empty()) std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) throw FileWriteError("cannot create " + file.parent_path().string() + ": " + ec.message());
  writeFileAtomically(file, j.dump(2) + "\n");
}

}  // namespace fuselab
