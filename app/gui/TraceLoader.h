// Loads and analyses traces off the UI thread: a trace file (import +
// analysis), a run (a folder or several files: the ranks of one job, merged
// into one trace on the aligned axis; a run too large for memory keeps its
// summaries and loads a rank's lanes when asked) or a trace already in
// memory (a capture, or a new gap threshold). One job runs at a time; a newer request waiting replaces an
// older waiting one. Results are picked up with poll() from the UI thread.
#pragma once

#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/critical_path/CriticalPath.h"
#include "profiling/analysis/run/RunView.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

struct LoadedTrace {
  std::shared_ptr<const Trace> trace;
  std::shared_ptr<const TraceAnalysis> analysis;
  std::string label;       // file name or capture description
  std::string path;        // the file, empty for traces from memory
  bool keep_view = false;  // same trace, new analysis
  std::shared_ptr<const RunView> run;  // set for a run; `trace` is its merged trace
  std::shared_ptr<const CriticalPathAnalysis> critical_path;  // across ranks for a run; null with keep_view
};

struct LoadOutcome {
  std::optional<LoadedTrace> loaded;  // set on success
  std::string error;                  // what went wrong, for people
  bool cancelled = false;             // stopped by cancel(): not an error
  std::string what;                   // the job ("open mlp.json.gz")
};

class TraceLoader {
 public:
  ~TraceLoader();  // waits for the running job

  // A folder is opened as a run.
  void loadFile(const std::string& path, const AnalysisOptions& options);
  // Several files (or folders) as the ranks of one run.
  void loadRun(const std::vector<std::string>& paths, const AnalysisOptions& options);
  // A run whose events were dropped (RunView.h), with one more rank's lanes
  // loaded (the oldest loaded make room).
  void loadRankLanes(std::shared_ptr<const RunView> run, size_t rank_pos, std::string label,
                     const AnalysisOptions& options);
  // The same ranks aligned another way (a new merged trace and analysis).
  void realignRun(std::shared_ptr<const RunView> run, AlignMethod method, std::string label,
                  const AnalysisOptions& options);
  // `run`: the run `trace` is the merged trace of, if any (kept with the result).
  void analyze(std::shared_ptr<const Trace> trace, std::string label, std::string path,
               const AnalysisOptions& options, bool keep_view, std::shared_ptr<const RunView> run = nullptr);

  // Finished jobs, oldest first.
  std::vector<LoadOutcome> poll();
  bool busy() const { return running_.valid() || waiting_.has_value(); }
  const std::string& currentJob() const { return running_what_; }
  // Share of the running job's file(s) read so far (0 to 1); nullopt when it
  // reads no file (an analysis) or has not started reading.
  std::optional<double> progress() const;
  // For a run: "rank files read: 3 of 16, 1.2 GB of 6.3 GB"; "" otherwise.
  std::string progressDetail() const;
  // Stops the running job and drops the waiting one. The running job's
  // outcome is LoadOutcome::cancelled even if it finished meanwhile: what the
  // user cancelled never replaces the open trace.
  void cancel();
  // Blocks until every job has finished (results stay for poll()).
  void wait();

 private:
  struct Job {
    std::string what;
    std::string path;                    // load this file (a folder: a run), or
    std::vector<std::string> run_paths;  // these files as a run, or
    std::shared_ptr<const Trace> trace;  // analyse this trace
    std::shared_ptr<const RunView> run;  // ... the merged trace of this run (or realign it:)
    std::optional<AlignMethod> align;
    std::optional<size_t> lanes_of;      // ... or load this rank position's lanes
    std::string label;
    AnalysisOptions options;
    bool keep_view = false;
  };
  static LoadOutcome runJob(const Job& job, ImportProgress* progress, FilesReadProgress* run_progress);
  void submit(Job job);
  void start(Job job);
  void collect();  // moves a finished running job to done_, starts the waiting one

  std::future<LoadOutcome> running_;
  std::shared_ptr<ImportProgress> running_progress_;
  std::shared_ptr<FilesReadProgress> running_run_progress_;
  bool running_cancelled_ = false;
  std::string running_what_;
  std::optional<Job> waiting_;
  std::vector<LoadOutcome> done_;
};

}  // namespace fuselab
