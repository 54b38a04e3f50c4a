#include "profiling/analysis/stacks/FoldedStacks.h"

#include <cmath>

namespace fuselab {

namespace {

std::string foldedName(std::string name) {
  for (char& c : name) {
    if (c == ';') c = ',';
    else if (c == '\n' || c == '\r') c = ' ';
  }
  return name;
}

}  // namespace

std::string foldedStacks(const Trace& trace, const FlameGraph& graph, FlameMetric metric) {
  std::string out;
  if (graph.frames.empty()) return out;
  std::vector<std::string> labels(graph.frames.size());
  // Depth first, so that a stack's lines come together and the running
  // rounding follows the order the lines are written in.
  std::vector<uint32_t> todo{0};
  int64_t running_ns = 0, written_us = 0;
  while (!todo.empty()) {
    const uint32_t f = todo.back();
    todo.pop_back();
    const FlameFrame& frame = graph.frames[f];
    if (f != 0) {
      const std::string name = foldedName(frameLabel(trace, frame));
      labels[f] = frame.parent == 0 ? name : labels[frame.parent] + ";" + name;
    }
    for (auto it = frame.children.rbegin(); it != frame.children.rend(); ++it)
      if (graph.frames[*it].total(metric) > 0) todo.push_back(*it);
    const int64_t self = frame.self(metric);
    if (f == 0 || self <= 0) continue;
    running_ns += self;
    const int64_t value = std::llround(double(running_ns) / 1000.0) - written_us;
    if (value <= 0) continue;
    written_us += value;
    out += labels[f];
    out += ' ';
    out += std::to_string(value);
    out += '\n';
  }
  return out;
}

}  // namespace fuselab
