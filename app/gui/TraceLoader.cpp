#include "app/gui/TraceLoader.h"

#include <chrono>
#include <exception>
#include <algorithm>
#include <filesystem>

#include "profiling/analysis/critical_path/AnalysisWithPath.h"
#include "profiling/analysis/run/RunCriticalPath.h"
#include "profiling/analysis/run/TraceOrRun.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/TracePaths.h"

namespace fuselab {

LoadOutcome TraceLoader::runJob(const Job& job, ImportProgress* progress, FilesReadProgress* run_progress) {
  LoadOutcome out;
  out.what = job.what;
  std::shared_ptr<const Trace> trace = job.trace;
  std::shared_ptr<const RunView> run = job.run;
  try {
    std::error_code ec;
    if (run && (job.align || job.lanes_of)) {
      ChromeImportOptions import;
      import.progress = progress;
      auto view = std::make_shared<const RunView>(job.align ? realignRunView(*run, job.align)
                                                            : withRankLanes(*run, *job.lanes_of, import));
      trace = view->merged.trace;
      run = std::move(view);
    }
    if (!trace && (!job.run_paths.empty() || !job.path.empty())) {
      std::vector<std::filesystem::path> files(job.run_paths.begin(), job.run_paths.end());
      if (files.empty()) files.push_back(job.path);
      if (!pathsNameRun(files) && !std::filesystem::is_regular_file(files.front(), ec)) {
        out.error = files.front().string() + ": no such file";
        return out;
      }
      OpenOptions open;
      open.run.trace = job.options;
      open.import.progress = progress;
      open.run_progress = run_progress;
      open.allow_dropped_events = true;
      OpenedTraceOrRun opened = openTraceOrRun(files, open);
      trace = std::move(opened.trace);
      run = std::move(opened.run);
    }
    // The path does not depend on the analysis options: a new analysis of
    // the same trace (keep_view) keeps the one the window has. A run whose
    // events were dropped has none: it crosses every rank's events.
    std::shared_ptr<const TraceAnalysis> analysis;
    std::shared_ptr<const CriticalPathAnalysis> critical_path;
    if (job.keep_view || (run && run->eventsDropped())) {
      analysis = std::make_shared<const TraceAnalysis>(analyzeTrace(*trace, job.options));
    } else {
      AnalysisWithPath both = analyzeTraceWithPath(
          *trace, job.options,
          run ? collectiveDependencies(*run->analysis, run->merged) : std::vector<CollectiveDependency>{});
      analysis = std::make_shared<const TraceAnalysis>(std::move(both.analysis));
      critical_path = std::make_shared<const CriticalPathAnalysis>(std::move(both.critical_path));
    }
    out.loaded = LoadedTrace{std::move(trace), std::move(analysis), job.label,     job.path,
                             job.keep_view,    std::move(run),      std::move(critical_path)};
  } catch (const TraceImportCancelled& e) {
    out.cancelled = true;
    out.error = e.what();
  } catch (const std::exception& e) {  // TraceImportError names the place
    out.error = e.what();
  }
  return out;
}

TraceLoader::~TraceLoader() {
  if (running_.valid()) running_.wait();
}

void TraceLoader::loadFile(const std::string& path, const AnalysisOptions& options) {
  Job j;
  j.what = "open " + std::filesystem::path(path).filename().string();
  j.path = path;
  j.label = std::filesystem::path(path).filename().string();
  j.options = options;
  submit(std::move(j));
}

void TraceLoader::loadRun(const std::vector<std::string>& paths, const AnalysisOptions& options) {
  Job j;
  j.what = "open a run of " + std::to_string(paths.size()) + " files";
  j.run_paths = paths;
  j.label = "run: " + std::filesystem::path(paths.front()).parent_path().filename().string();
  j.options = options;
  submit(std::move(j));
}

void TraceLoader::loadRankLanes(std::shared_ptr<const RunView> run, size_t rank_pos, std::string label,
                                const AnalysisOptions& options) {
  Job j;
  j.what = "load the lanes of rank " + std::to_string(run->run->ranks.at(rank_pos).rank);
  j.run = std::move(run);
  j.lanes_of = rank_pos;
  j.label = std::move(label);
  j.options = options;
  submit(std::move(j));
}

void TraceLoader::realignRun(std::shared_ptr<const RunView> run, AlignMethod method, std::string label,
                             const AnalysisOptions& options) {
  Job j;
  j.what = "align the ranks by " + std::string(alignMethodName(method));
  j.run = std::move(run);
  j.align = method;
  j.label = std::move(label);
  j.options = options;
  submit(std::move(j));
}

void TraceLoader::analyze(std::shared_ptr<const Trace> trace, std::string label, std::string path,
                          const AnalysisOptions& options, bool keep_view, std::shared_ptr<const RunView> run) {
  Job j;
  j.run = std::move(run);
  j.what = "analyse " + label;
  j.trace = std::move(trace);
  j.label = std::move(label);
  j.path = std::move(path);
  j.options = options;
  j.keep_view = keep_view;
  submit(std::move(j));
}

void TraceLoader::submit(Job job) {
  collect();
  if (running_.valid())
    waiting_ = std::move(job);
  else
    start(std::move(job));
}

void TraceLoader::start(Job job) {
  running_what_ = job.what;
  running_progress_ = std::make_shared<ImportProgress>();
  running_run_progress_ = std::make_shared<FilesReadProgress>();
  running_ = std::async(std::launch::async,
                        [j = std::move(job), progress = running_progress_, run_progress = running_run_progress_] {
                          return runJob(j, progress.get(), run_progress.get());
                        });
}

void TraceLoader::collect() {
  if (!running_.valid() || running_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  LoadOutcome outcome = running_.get();
  if (running_cancelled_ && !outcome.cancelled) {
    outcome.cancelled = true;
    outcome.loaded.reset();
    outcome.error = "cancelled";
  }
  done_.push_back(std::move(outcome));
  running_what_.clear();
  running_progress_.reset();
  running_run_progress_.reset();
  running_cancelled_ = false;
  if (waiting_) {
    Job next = std::move(*waiting_);
    waiting_.reset();
    start(std::move(next));
  }
}

std::optional<double> TraceLoader::progress() const {
  if (!running_.valid() || !running_progress_) return std::nullopt;
  if (running_run_progress_ && running_run_progress_->fileCount() > 0) {
    const uint64_t total = running_run_progress_->bytesTotal();
    if (total == 0) return std::nullopt;
    return std::min(1.0, double(running_run_progress_->bytesDone()) / double(total));
  }
  uint64_t total = running_progress_->total.load();
  if (total == 0) return std::nullopt;
  return std::min(1.0, double(running_progress_->done.load()) / double(total));
}

std::string TraceLoader::progressDetail() const {
  if (!running_.valid() || !running_run_progress_ || running_run_progress_->fileCount() == 0) return {};
  return "rank " + running_run_progress_->text();
}

void TraceLoader::cancel() {
  waiting_.reset();
  if (!running_.valid()) return;
  running_cancelled_ = true;
  if (running_progress_) running_progress_->cancel.store(true);
  if (running_run_progress_) running_run_progress_->cancel();
}

std::vector<LoadOutcome> TraceLoader::poll() {
  collect();
  std::vector<LoadOutcome> out;
  out.swap(done_);
  return out;
}

void TraceLoader::wait() {
  while (running_.valid()) {
    running_.wait();
    collect();
  }
}

}  // namespace fuselab
