#include "profiling/capture/KernelCounterMatch.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <tuple>

namespace fuselab {

namespace {

constexpr std::string_view kStepPrefix = "ProfilerStep#";

// "void at::native::foo<4, bar>(int, float)" -> "foo".
std::string_view functionName(std::string_view name) {
  const size_t cut = name.find_first_of("<(");
  if (cut != std::string_view::npos) name = name.substr(0, cut);
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  const size_t start = name.find_last_of(": ");
  return start == std::string_view::npos ? name : name.substr(start + 1);
}

bool carriesNoName(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) || std::isspace(c); });
}

// (start, end) of the last ProfilerStep#k annotation.
std::optional<std::pair<int64_t, int64_t>> lastStep(const Trace& trace) {
  std::optional<std::pair<int64_t, int64_t>> last;
  for (const Track& t : trace.tracks) {
    if (t.kind != TrackKind::Cpu) continue;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t.category[i] != Category::UserAnnotation) continue;
      if (!trace.strings.get(t.name_id[i]).starts_with(kStepPrefix)) continue;
      if (!last || t.start_ns[i] > last->first) last = std::make_pair(t.start_ns[i], t.end_ns(i));
    }
  }
  return last;
}

}  // namespace

std::vector<EventRef> lastStepKernels(const Trace& trace) {
  const auto step = lastStep(trace);
  if (!step) return {};
  std::vector<std::tuple<int64_t, int64_t, EventRef>> found;  // (correlation, gpu start, kernel)
  for (const LaunchLink& link : trace.launches()) {
    if (!link.launch) continue;
    const int64_t launched = trace.tracks[link.launch->track].start_ns[link.launch->index];
    if (launched < step->first || launched > step->second) continue;
    for (EventRef op : link.gpu_ops) {
      const Track& t = trace.tracks[op.track];
      if (t.category[op.index] == Category::Kernel) found.emplace_back(link.correlation, t.start_ns[op.index], op);
    }
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
  });
  std::vector<EventRef> out;
  for (const auto& f : found) out.push_back(std::get<2>(f));
  return out;
}

bool kernelNamesAgree(std::string_view range_name, std::string_view kernel_name) {
  if (carriesNoName(range_name) || range_name == kernel_name) return true;
  const std::string_view a = functionName(range_name);
  return !a.empty() && a == functionName(kernel_name);
}

bool attachKernelCounters(Trace& trace, const std::vector<KernelCounterReading>& readings, std::string* why) {
  const std::vector<EventRef> kernels = lastStepKernels(trace);
  if (kernels.size() != readings.size()) {
    if (why)
      *why = "the counter pass ran " + std::to_string(readings.size()) + " kernels, the last recorded step " +
             std::to_string(kernels.size());
    return false;
  }
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (kernelNamesAgree(readings[i].name, trace.name(kernels[i]))) continue;
    if (why)
      *why = "kernel " + std::to_string(i + 1) + " of the counter pass is " + readings[i].name +
             ", of the last recorded step " + std::string(trace.name(kernels[i]));
    return false;
  }
  for (size_t i = 0; i < kernels.size(); ++i) {
    Track& t = trace.tracks[kernels[i].track];
    const std::string args = withMeasuredCounters(trace.argsJson(t.args[kernels[i].index]), readings[i].counters);
    t.args[kernels[i].index] = trace.addArgs(args);
  }
  return true;
}

}  // namespace fuselab
