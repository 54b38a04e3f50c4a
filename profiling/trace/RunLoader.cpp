#include "profiling/trace/RunLoader.h"

#include <algorithm>
#include <optional>

#include "profiling/trace/NcclProfile.h"
#include "profiling/trace/RunJobCheck.h"
#include "profiling/trace/RunNcclProfiles.h"
#include "profiling/trace/TraceFileReader.h"

namespace fuselab {

namespace fs = std::filesystem;

namespace {

bool isTraceFileName(const std::string& name) {
  auto ends = [&](std::string_view suffix) {
    return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return (ends(".json") || ends(".json.gz")) && !isNcclProfileFile(name);  // side files are not ranks
}

std::string nameOf(const fs::path& p) { return p.filename().string(); }

}  // namespace

std::vector<fs::path> traceFilesIn(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw RunLoadError(dir.string() + ": not a folder");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::error_code entry_ec;
    if (entry.is_regular_file(entry_ec) && isTraceFileName(entry.path().filename().string()))
      files.push_back(entry.path());
  }
  if (ec) throw RunLoadError(dir.string() + ": cannot list the folder: " + ec.message());
  if (files.empty()) throw RunLoadError(dir.string() + ": no trace files (*.json, *.json.gz) in this folder");
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<fs::path> expandRunPaths(const std::vector<fs::path>& paths) {
  std::vector<fs::path> files;
  for (const fs::path& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      auto inside = traceFilesIn(p);
      files.insert(files.end(), inside.begin(), inside.end());
    } else {
      files.push_back(p);
    }
  }
  return files;
}

RankTrace rankTraceOf(const fs::path& file, Trace trace, size_t file_count) {
  RankTrace r;
  r.file = file.string();
  r.trace = std::move(trace);
  r.info = distributedInfoOf(r.trace);
  std::optional<int> rank = r.info.rank ? r.info.rank : rankFromFileName(nameOf(file));
  if (!rank && file_count == 1) rank = 0;  // a lone trace is rank 0 of its own run
  if (!rank)
    throw RunLoadError(nameOf(file) + ": cannot tell which rank it is (no distributedInfo.rank, no rank-N in the file name)");
  r.rank = *rank;
  return r;
}

Run assembleRun(std::vector<RankTrace> ranks, std::vector<std::string> errors, size_t file_count) {
  Run run;
  run.ranks = std::move(ranks);
  if (run.ranks.empty()) {
    std::string message = "none of the " + std::to_string(file_count) + " file(s) could be read";
    for (const std::string& e : errors) message += "\n  " + e;
    throw RunLoadError(message);
  }
  run.warnings = std::move(errors);
  std::stable_sort(run.ranks.begin(), run.ranks.end(),
                   [](const RankTrace& a, const RankTrace& b) { return a.rank < b.rank; });
  for (size_t i = 1; i < run.ranks.size(); ++i)
    if (run.ranks[i].rank == run.ranks[i - 1].rank)
      throw RunLoadError(nameOf(run.ranks[i - 1].file) + " and " + nameOf(run.ranks[i].file) + " are both rank " +
                         std::to_string(run.ranks[i].rank));
  if (auto mismatch = findJobMismatch(run.ranks)) throw RunLoadError(*mismatch);

  for (const RankTrace& r : run.ranks) {
    if (r.info.world_size && run.world_size == 0) run.world_size = *r.info.world_size;
    if (!r.info.backend.empty() && run.backend.empty()) run.backend = r.info.backend;
  }
  if (run.world_size <= run.ranks.back().rank) {
    if (run.world_size > 0)
      run.warnings.push_back(nameOf(run.ranks.back().file) + " is rank " + std::to_string(run.ranks.back().rank) +
                             " but world_size is " + std::to_string(run.world_size));
    run.world_size = run.ranks.back().rank + 1;
  }
  for (int rank = 0; rank < run.world_size; ++rank)
    if (run.indexOfRank(rank) < 0) run.missing_ranks.push_back(rank);
  attachNcclProfiles(run);
  return run;
}

Run loadRun(const std::vector<fs::path>& files, const RunLoadOptions& options) {
  if (files.empty()) throw RunLoadError("no trace files given");
  std::vector<std::optional<RankTrace>> read(files.size());
  TraceFilesReadOptions reading;
  reading.import = options.import;
  reading.threads = options.threads;
  const std::vector<std::string> errors = readTraceFiles(
      files, reading, [&](size_t i, Trace&& t) { read[i] = rankTraceOf(files[i], std::move(t), files.size()); });
  std::vector<RankTrace> ranks;
  std::vector<std::string> unreadable;
  for (size_t i = 0; i < files.size(); ++i) {
    if (read[i]) ranks.push_back(std::move(*read[i]));
    else unreadable.push_back(errors[i]);
  }
  return assembleRun(std::move(ranks), std::move(unreadable), files.size());
}

}  // namespace fuselab
