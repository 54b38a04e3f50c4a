#include "app/tutorial/TutorialPresets.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "profiling/analysis/expectations/ExpectationsJson.h"
#include "profiling/capture_api/WorkloadCatalog.h"

namespace fuselab {

namespace {

constexpr int kMaxWarmup = 10000;
constexpr int kMaxSteps = 10000;

class Reader {
 public:
  Reader(const nlohmann::json& j, std::string where) : j_(j), where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw PresetError(where_ + (field.empty() ? "" : (where_.empty() ? "" : ": ") + field) + ": " + what);
  }
  static std::string shown(const nlohmann::json& v) {
    std::string s = v.dump();
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
  }

  bool has(const std::string& key) const { return j_.contains(key); }
  const nlohmann::json& at(const std::string& key, const std::string& field) const {
    if (!j_.contains(key)) fail(field, "missing");
    return j_.at(key);
  }

  std::string text(const std::string& key, const std::string& field) const {
    const auto& v = at(key, field);
    if (!v.is_string()) fail(field, "expected a string, got " + shown(v));
    std::string s = v.get<std::string>();
    if (s.empty()) fail(field, "is empty");
    return s;
  }

  int64_t integer(const std::string& key, const std::string& field, int64_t min, int64_t max) const {
    const auto& v = at(key, field);
    if (!v.is_number_integer())
      fail(field, "expected an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", got " + shown(v));
    int64_t x = v.get<int64_t>();
    if (x < min || x > max)
      fail(field, "expected an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", got " +
                      std::to_string(x));
    return x;
  }

  void onlyKeys(std::initializer_list<const char*> keys, const std::string& prefix) const {
    for (const auto& [key, value] : j_.items()) {
      (void)value;
      bool known = false;
      for (const char* k : keys) known |= key == k;
      if (!known) {
        std::string list;
        for (const char* k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
        fail(prefix + key, "unknown key (accepted: " + list + ")");
      }
    }
  }

 private:
  const nlohmann::json& j_;
  std::string where_;
};

const WorkloadInfo* findWorkload(const std::vector<WorkloadInfo>& all, const std::string& name) {
  for (const auto& w : all)
    if (w.name == name) return &w;
  return nullptr;
}

void readRun(const nlohmann::json& run, const std::string& src, TutorialPreset& p) {
  Reader r(run, src);
  if (!run.is_object()) r.fail("run", "expected an object, got " + Reader::shown(run));
  r.onlyKeys({"workload", "variant", "batch", "seq", "dim", "hidden", "out", "dtype", "graph", "warmup", "steps",
              "ranks", "delay_rank", "delay_us"},
             "run.");
  const std::string workload = r.text("workload", "run.workload");
  const auto& all = workloadCatalog();
  const WorkloadInfo* info = findWorkload(all, workload);
  if (!info) {
    std::string names;
    for (const auto& w : all) names += (names.empty() ? "" : ", ") + w.name;
    r.fail("run.workload", "unknown workload '" + workload + "' (this build has " + names + ")");
  }
  p.params = info->defaults;
  p.params.workload = workload;
  p.params.device = Device::Cuda;
  if (r.has("variant")) {
    p.params.variant = r.text("variant", "run.variant");
    if (std::find(info->variants.begin(), info->variants.end(), p.params.variant) == info->variants.end()) {
      std::string names;
      for (const auto& v : info->variants) names += (names.empty() ? "" : ", ") + v;
      r.fail("run.variant", "'" + p.params.variant + "' is not a variant of " + workload + " (choose " + names + ")");
    }
  }
  if (r.has("batch")) p.params.batch = r.integer("batch", "run.batch", SizeLimits::kMin, SizeLimits::kMaxBatch);
  if (r.has("seq")) p.params.seq = r.integer("seq", "run.seq", SizeLimits::kMin, SizeLimits::kMaxSeq);
  if (r.has("dim")) p.params.dim = r.integer("dim", "run.dim", SizeLimits::kMin, SizeLimits::kMaxDim);
  if (r.has("hidden")) p.params.hidden = r.integer("hidden", "run.hidden", SizeLimits::kMin, SizeLimits::kMaxHidden);
  if (r.has("out")) p.params.out = r.integer("out", "run.out", SizeLimits::kMin, SizeLimits::kMaxOut);
  if (r.has("dtype")) {
    const std::string d = r.text("dtype", "run.dtype");
    try {
      p.params.dtype = parseDType(d);
    } catch (const WorkloadError& e) {
      r.fail("run.dtype", e.what());
    }
  }
  if (r.has("graph")) {
    const auto& g = run.at("graph");
    if (!g.is_boolean()) r.fail("run.graph", "expected true or false, got " + Reader::shown(g));
    p.params.graph = g.get<bool>();
  }
  if (r.has("ranks")) p.params.ranks = int(r.integer("ranks", "run.ranks", 1, SizeLimits::kMaxRanks));
  if (r.has("delay_rank")) p.params.delay_rank = int(r.integer("delay_rank", "run.delay_rank", 0, SizeLimits::kMaxRanks));
  if (r.has("delay_us")) p.params.delay_us = r.integer("delay_us", "run.delay_us", 0, SizeLimits::kMaxDelayUs);
  p.warmup = int(r.integer("warmup", "run.warmup", 0, kMaxWarmup));
  p.steps = int(r.integer("steps", "run.steps", 1, kMaxSteps));
  try {
    checkSizes(p.params);
  } catch (const WorkloadError& e) {
    r.fail("run", e.what());
  }
}

}  // namespace

TutorialPreset parseTutorialPreset(const nlohmann::json& doc, const std::string& src) {
  Reader r(doc, src);
  if (!doc.is_object()) r.fail("", "expected a JSON object, got " + Reader::shown(doc));
  r.onlyKeys({"fuselab_tutorial_step", "id", "title", "part", "run", "explanation", "guess_first", "look_for",
              "compare_with", "expectations"},
             "");
  TutorialPreset p;
  p.step = int(r.integer("fuselab_tutorial_step", "fuselab_tutorial_step", 1, 1000));
  p.id = r.text("id", "id");
  p.title = r.text("title", "title");
  p.part = r.text("part", "part");
  p.explanation = r.text("explanation", "explanation");
  p.guess_first = r.text("guess_first", "guess_first");
  readRun(r.at("run", "run"), src, p);

  if (r.has("look_for")) {
    const auto& v = doc.at("look_for");
    if (!v.is_array()) r.fail("look_for", "expected an array of strings, got " + Reader::shown(v));
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string() || v[i].get<std::string>().empty())
        r.fail("look_for[" + std::to_string(i) + "]", "expected a non-empty string, got " + Reader::shown(v[i]));
      p.look_for.push_back(v[i].get<std::string>());
    }
  }
  if (r.has("compare_with")) {
    const auto& v = doc.at("compare_with");
    if (!v.is_array()) r.fail("compare_with", "expected an array of {\"step\": N}, got " + Reader::shown(v));
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string field = "compare_with[" + std::to_string(i) + "]";
      if (!v[i].is_object()) r.fail(field, "expected {\"step\": N}, got " + Reader::shown(v[i]));
      Reader e(v[i], src);
      e.onlyKeys({"step"}, field + ".");
      const int other = int(e.integer("step", field + ".step", 1, 1000));
      if (other == p.step) r.fail(field + ".step", "a step cannot be compared with itself");
      p.compare_with.push_back(other);
    }
  }

  const auto& list = r.at("expectations", "expectations");
  if (!list.is_array() || list.empty()) r.fail("expectations", "expected a non-empty array of expectations");
  for (size_t i = 0; i < list.size(); ++i) {
    try {
      p.expectations.push_back(parseExpectation(list[i], src + ": expectations[" + std::to_string(i) + "]"));
    } catch (const ExpectationParseError& e) {
      throw PresetError(e.what());
    }
  }
  return p;
}

TutorialPreset loadTutorialPreset(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  std::ifstream in(file, std::ios::binary);
  if (!in) throw PresetError(file.string() + ": cannot open the file");
  std::stringstream buf;
  buf << in.rdbuf();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(buf.str());
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based; the library's text already names line and column.
    throw PresetError(name + ": not valid JSON: " + e.what());
  }
  TutorialPreset p = parseTutorialPreset(doc, name);
  p.source = file;
  return p;
}

std::vector<TutorialPreset> loadTutorialPresets(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) throw PresetError(dir.string() + ": no such folder");
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  if (ec) throw PresetError(dir.string() + ": cannot list the folder: " + ec.message());
  if (files.empty()) throw PresetError(dir.string() + ": no tutorial presets (*.json) in the folder");
  std::sort(files.begin(), files.end());

  std::vector<TutorialPreset> out;
  std::map<int, std::string> seen;
  for (const auto& f : files) {
    TutorialPreset p = loadTutorialPreset(f);
    if (auto it = seen.find(p.step); it != seen.end())
      throw PresetError(f.filename().string() + ": fuselab_tutorial_step: step " + std::to_string(p.step) +
                        " is also defined by " + it->second);
    seen.emplace(p.step, f.filename().string());
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(), [](const TutorialPreset& a, const TutorialPreset& b) { return a.step < b.step; });
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i].step != int(i) + 1)
      throw PresetError(out[i].source.filename().string() + ": fuselab_tutorial_step: steps must be numbered 1.." +
                        std::to_string(out.size()) + " without gaps, but step " + std::to_string(i + 1) +
                        " is missing");
  for (const auto& p : out)
    for (size_t i = 0; i < p.compare_with.size(); ++i)
      if (p.compare_with[i] > int(out.size()))
        throw PresetError(p.source.filename().string() + ": compare_with[" + std::to_string(i) + "].step: there is no step " +
                          std::to_string(p.compare_with[i]) + " (the tutorial has " + std::to_string(out.size()) + ")");
  return out;
}

WorkloadParams presetParams(const TutorialPreset& preset, Device device) {
  WorkloadParams p = preset.params;
  p.device = device;
  return p;
}

CaptureOptions presetCaptureOptions(const TutorialPreset& preset) {
  CaptureOptions o;
  o.warmup = preset.warmup;
  o.steps = preset.steps;
  return o;
}

WorkloadParams compareParams(const TutorialPreset& self, const TutorialPreset& other, Device device) {
  WorkloadParams p = presetParams(self, device);
  p.workload = other.params.workload;
  p.variant = other.params.variant;
  p.graph = other.params.graph;
  if (self.params.workload != other.params.workload) {
    // Sizes that only one of the workloads uses come from the other preset.
    p.out = other.params.out;
  }
  return p;
}

std::string describePresetRun(const TutorialPreset& preset) {
  const WorkloadParams& p = preset.params;
  std::ostringstream o;
  o << p.workload;
  if (!p.variant.empty()) o << " (" << p.variant << ")";
  if (p.workload == "matmul_add") {
    o << ", size " << p.dim;
  } else if (p.workload == "linear") {
    o << ", batch " << p.batch << ", in " << p.dim << ", out " << p.out;
  } else {
    o << ", batch " << p.batch << ", seq " << p.seq << ", dim " << p.dim << ", hidden " << p.hidden;
  }
  o << ", " << dtypeName(p.dtype);
  if (p.graph) o << ", CUDA graph";
  if (p.ranks > 1) o << ", " << p.ranks << " ranks";
  if (p.delay_rank >= 0) o << ", rank " << p.delay_rank << " delayed " << p.delay_us << " us";
  o << ", warmup " << preset.warmup << ", " << preset.steps << " step" << (preset.steps == 1 ? "" : "s");
  return o.str();
}

}  // namespace fuselab
