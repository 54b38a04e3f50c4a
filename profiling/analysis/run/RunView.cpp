#include "profiling/analysis/run/RunView.h"

#include <algorithm>

#include "profiling/trace/MemoryBudget.h"
#include "profiling/trace/TraceTextStream.h"

namespace fuselab {

namespace {

// The merge of the ranks' own events, or of the lanes loaded again.
MergedRun mergeView(const RunView& v) {
  const std::vector<int64_t>& offsets = v.analysis->alignment.offsets_ns;
  if (!v.eventsDropped()) return mergeRun(*v.run, offsets);
  // One rank loaded, on the run's alignment: its merge alone is the view's.
  if (v.lanes.size() == 1 && v.lanes[0].offset_ns == offsets[v.lanes[0].rank_pos]) return v.lanes[0].alone;
  std::vector<MergeSource> sources(v.run->ranks.size());
  for (const RunView::LoadedLanes& l : v.lanes) sources[l.rank_pos] = {l.alone.trace.get(), true, l.offset_ns};
  return mergeRun(*v.run, sources, offsets);
}

// `view` without its merged trace, to redo it.
RunView sameRanks(const RunView& view) {
  RunView v;
  v.run = view.run;
  v.analysis = view.analysis;
  v.dropped_reason = view.dropped_reason;
  v.memory_bytes = view.memory_bytes;
  v.lanes = view.lanes;
  return v;
}

}  // namespace

RunView realignRunView(const RunView& view, std::optional<AlignMethod> align) {
  RunView v = sameRanks(view);
  v.analysis = std::make_shared<const RunAnalysis>(realignRun(*view.run, *view.analysis, align));
  v.merged = mergeView(v);
  return v;
}

RunView openRunView(const std::vector<std::filesystem::path>& files, const RunStreamOptions& options) {
  StreamedRun streamed = streamRun(expandRunPaths(files), options);
  RunView v;
  v.run = std::move(streamed.run);
  v.analysis = std::make_shared<const RunAnalysis>(std::move(streamed.analysis));
  v.dropped_reason = std::move(streamed.dropped_reason);
  v.memory_bytes = streamed.memory_bytes;
  v.merged = mergeView(v);
  return v;
}

RunView withRankLanes(const RunView& view, size_t rank_pos, const ChromeImportOptions& import) {
  auto loaded = [&](const RunView::LoadedLanes& l) { return l.rank_pos == rank_pos; };
  if (!view.eventsDropped() || rank_pos >= view.run->ranks.size() ||
      std::any_of(view.lanes.begin(), view.lanes.end(), loaded))
    return view;
  RunView v = sameRanks(view);
  const RankTrace& rank = v.run->ranks[rank_pos];
  const uint64_t peak = importPeakEstimate(traceTextSizeHint(rank.file));
  uint64_t held = peak;
  for (const RunView::LoadedLanes& l : v.lanes) held += l.import_peak;
  // The oldest lanes make room (the new rank's own always loads).
  while (!v.lanes.empty() && held > streamingImportBudget(v.memory_bytes)) {
    held -= v.lanes.front().import_peak;
    v.lanes.erase(v.lanes.begin());
  }
  Trace trace = importChromeTrace(rank.file, import);
  // The analysis points at events by index: the file must be the one summarised.
  if (trace.eventCount() != v.analysis->ranks[rank_pos].events)
    throw TraceImportError(rank.file + ": changed since the run was opened (" + std::to_string(trace.eventCount()) +
                           " events, " + std::to_string(v.analysis->ranks[rank_pos].events) +
                           " then); open the run again");
  const int64_t offset = v.analysis->alignment.offsets_ns[rank_pos];
  v.lanes.push_back(
      {rank_pos, mergeRankAlone(*v.run, rank_pos, std::move(trace), v.analysis->alignment.offsets_ns), offset, peak});
  v.merged = mergeView(v);
  return v;
}

}  // namespace fuselab
