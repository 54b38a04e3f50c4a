#include "app/report/CriticalPathReport.h"

#include <algorithm>
#include <string>

#include "profiling/trace/DurationText.h"
#include "ui/layout/EventNames.h"

namespace fuselab {

namespace {

std::string segmentName(const PathTraces& traces, const PathSegment& s) {
  return s.event ? std::string(traces.name(*s.event)) : std::string();
}

// The text's label: short kernel names; an annotation's own time is code
// outside recorded ops.
std::string segmentLabel(const PathTraces& traces, const PathSegment& s) {
  std::string name = s.event ? ui::shortEventName(traces.name(*s.event)) : std::string();
  if (s.event && traces.track(s.event->track).category[s.event->index] == Category::UserAnnotation)
    name += " (outside recorded ops)";
  return name;
}

std::string rankPrefix(int rank) { return rank >= 0 ? "rank " + std::to_string(rank) + "'s " : std::string(); }

// The step whose wall time is the median (the path a reader should look at).
const StepPath& medianStep(const CriticalPathAnalysis& path) {
  std::vector<const StepPath*> by_wall;
  for (const StepPath& p : path.steps) by_wall.push_back(&p);
  std::nth_element(by_wall.begin(), by_wall.begin() + by_wall.size() / 2, by_wall.end(),
                   [](const StepPath* a, const StepPath* b) { return a->wall_ns < b->wall_ns; });
  return *by_wall[by_wall.size() / 2];
}

}  // namespace

void writeCriticalPathText(std::ostream& out, const PathTraces& traces, const CriticalPathAnalysis& path) {
  out << "Critical path:";
  if (path.steps.empty()) {
    out << " no events\n";
    return;
  }
  const StepPath& p = medianStep(path);
  out << " " << p.name << " (" << (path.steps.size() > 1 ? "median step, " : "") << formatDuration(p.wall_ns) << ")\n  ";
  bool first = true;
  for (size_t k = 0; k < kPathKinds; ++k) {
    if (p.by_kind[k] == 0) continue;
    out << (first ? "" : ", ") << pathKindName(static_cast<PathKind>(k)) << " "
        << formatPercent(static_cast<double>(p.by_kind[k]) / static_cast<double>(std::max<int64_t>(p.wall_ns, 1)));
    first = false;
  }
  out << "\n";
  if (p.by_rank.size() > 1) {
    out << "  by rank:";
    for (const auto& [rank, ns] : p.by_rank) out << " " << rank << " " << formatDuration(ns);
    out << "\n";
  }
  std::vector<const PathSegment*> longest;
  for (const PathSegment& s : p.segments) longest.push_back(&s);
  std::sort(longest.begin(), longest.end(), [](const auto* a, const auto* b) { return a->dur_ns > b->dur_ns; });
  if (longest.size() > 5) longest.resize(5);
  for (const PathSegment* s : longest) {
    const std::string name = segmentLabel(traces, *s);
    out << "  " << formatDuration(s->dur_ns) << "  " << pathKindName(s->kind);
    if (s->rank >= 0) out << "  rank " << s->rank;
    if (!name.empty()) out << "  " << name;
    out << "\n";
  }
  for (const WhatIf& w : path.what_if)
    out << "  what if " << rankPrefix(w.rank) << ui::shortEventName(w.name) << " (" << pathKindName(w.kind) << ", "
        << formatDuration(w.on_path_ns) << " on the path) were 2x faster: steps " << formatSignedPercent(w.change())
        << "\n";
}

nlohmann::ordered_json criticalPathJson(const PathTraces& traces, const CriticalPathAnalysis& path, int64_t origin_ns) {
  using json = nlohmann::ordered_json;
  json steps = json::array();
  for (const StepPath& p : path.steps) {
    json segments = json::array();
    for (const PathSegment& s : p.segments)
      segments.push_back({{"kind", std::string(pathKindName(s.kind))},
                          {"rank", s.rank >= 0 ? json(s.rank) : json(nullptr)},
                          {"track", s.track},
                          {"name", segmentName(traces, s)},
                          {"start_ns", s.start_ns - origin_ns},
                          {"dur_ns", s.dur_ns}});
    json by_kind = json::object();
    for (size_t k = 0; k < kPathKinds; ++k) by_kind[std::string(pathKindName(static_cast<PathKind>(k)))] = p.by_kind[k];
    json by_rank = json::array();
    for (const auto& [rank, ns] : p.by_rank) by_rank.push_back({{"rank", rank >= 0 ? json(rank) : json(nullptr)}, {"ns", ns}});
    steps.push_back({{"name", p.name},
                     {"start_ns", p.start_ns - origin_ns},
                     {"wall_ns", p.wall_ns},
                     {"segments", std::move(segments)},
                     {"by_kind", std::move(by_kind)},
                     {"by_rank", std::move(by_rank)}});
  }
  json what_if = json::array();
  for (const WhatIf& w : path.what_if)
    what_if.push_back({{"name", w.name},
                       {"kind", std::string(pathKindName(w.kind))},
                       {"rank", w.rank >= 0 ? json(w.rank) : json(nullptr)},
                       {"on_path_ns", w.on_path_ns},
                       {"speedup", 2},
                       {"steps_ns_before", w.steps_ns_before},
                       {"steps_ns_after", w.steps_ns_after},
                       {"change", w.change()}});
  return {{"steps", std::move(steps)}, {"what_if", std::move(what_if)}};
}

}  // namespace fuselab
