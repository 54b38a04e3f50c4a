#include "profiling/analysis/RunView.h"

namespace fuselab {

RunView makeRunView(std::shared_ptr<const Run> run, const RunAnalysisOptions& options) {
  RunView v;
  // The merge needs the alignment only: beside the per-rank figures.
  v.analysis = analyzeRun(*run, options,
                          [&](const RunAnalysis& aligned) { v.merged = mergeRun(*run, aligned.alignment.offsets_ns); });
  v.run = std::move(run);
  return v;
}

RunView realignRunView(const RunView& view, std::optional<AlignMethod> align) {
  RunView v;
  v.analysis = realignRun(*view.run, view.analysis, align);
  v.merged = mergeRun(*view.run, v.analysis.alignment.offsets_ns);
  v.run = view.run;
  return v;
}

RunView openRunView(const std::vector<std::filesystem::path>& files, const RunAnalysisOptions& options,
                    const RunLoadOptions& load) {
  return makeRunView(std::make_shared<const Run>(loadRun(expandRunPaths(files), load)), options);
}

}  // namespace fuselab
