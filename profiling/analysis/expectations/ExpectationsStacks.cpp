// flame_share_under: in the flame graph of the steps, the CPU time under the
// frames matching `ops` (the outermost of each nest) and the part of it in
// frames matching `pattern` (the outermost below them): "how much of
// aten::linear is launch calls".
#include "profiling/analysis/expectations/ExpectationKinds.h"
#include "profiling/analysis/stacks/FlameGraph.h"
#include "profiling/trace/DurationText.h"

namespace fuselab::expectation_kinds {

ExpectationResult flameShareUnder(const Context& c, const Expectation& e) {
  const FlameGraph g = buildFlameGraph(c.trace, {c.a.scope.start_ns, c.a.scope.end_ns, c.a.scope.gpu_ops});
  NameMatcher under(c.trace, e.ops, false);
  NameMatcher part(c.trace, {e.pattern}, true);
  int64_t total = 0, matched = 0;
  // Frames come after their parents: each knows whether a frame above it
  // matched already.
  std::vector<uint8_t> below_under(g.frames.size(), 0), below_part(g.frames.size(), 0);
  for (uint32_t f = 1; f < g.frames.size(); ++f) {
    const FlameFrame& fr = g.frames[f];
    below_under[f] = below_under[fr.parent];
    below_part[f] = below_part[fr.parent];
    if (fr.kind != FrameKind::Event) continue;
    if (!below_under[f] && under.matches(fr.name_id)) {
      total += fr.cpu_total_ns;
      below_under[f] = 1;
    } else if (below_under[f] && !below_part[f] && part.matches(fr.name_id)) {
      matched += fr.cpu_total_ns;
      below_part[f] = 1;
    }
  }
  if (total == 0) return unavailable("No CPU time in the steps under " + joinNames(e.ops, ", ") + ".");
  const double share = double(matched) / double(total);
  ExpectationResult r = decided(inRange(share, e.min, e.max));
  r.value = share;
  r.measured = formatPercent(share);
  r.explanation = "Of " + formatDuration(total) + " of CPU time under " + joinNames(e.ops, ", ") + ", " +
                  formatDuration(matched) + " (" + formatPercent(share) + ") is in frames matching '" + e.pattern +
                  "' (expected " + rangeText(e.min, e.max, true) + "). The Flame graph tab shows it.";
  return r;
}

}  // namespace fuselab::expectation_kinds
