#include "app/gui/TraceLoader.h"

#include <chrono>
#include <exception>
#include <algorithm>
#include <filesystem>

#include "profiling/analysis/AnalysisWithPath.h"
#include "profiling/analysis/RunCriticalPath.h"
#include "profiling/analysis/TraceOrRun.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/TracePaths.h"

namespace fuselab {

namespace {

LoadOutcome runJob(const std::string& what, const std::string& path, const std::vector<std::string>& run_paths,
                   std::shared_ptr<const Trace> trace, std::shared_ptr<const RunView> run,
                   std::optional<AlignMethod> align, const std::string& label, const AnalysisOptions& options,
                   bool keep_view, ImportProgress* progress) {
  LoadOutcome out;
  out.what = what;
  try {
    std::error_code ec;
    if (run && align) {
      auto view = std::make_shared<const RunView>(realignRunView(*run, align));
      trace = std::shared_ptr<const Trace>(view, &view->merged.trace);
      run = std::move(view);
    }
    if (!trace && (!run_paths.empty() || !path.empty())) {
      std::vector<std::filesystem::path> files(run_paths.begin(), run_paths.end());
      if (files.empty()) files.push_back(path);
      if (!pathsNameRun(files) && !std::filesystem::is_regular_file(files.front(), ec)) {
        out.error = files.front().string() + ": no such file";
        return out;
      }
      OpenOptions open;
      open.run.trace = options;
      open.import.progress = progress;
      OpenedTraceOrRun opened = openTraceOrRun(files, open);
      trace = std::move(opened.trace);
      run = std::move(opened.run);
    }
    // The path does not depend on the analysis options: a new analysis of
    // the same trace (keep_view) keeps the one the window has.
    std::shared_ptr<const TraceAnalysis> analysis;
    std::shared_ptr<const CriticalPathAnalysis> critical_path;
    if (keep_view) {
      analysis = std::make_shared<const TraceAnalysis>(analyzeTrace(*trace, options));
    } else {
      AnalysisWithPath both = analyzeTraceWithPath(
          *trace, options, run ? collectiveDependencies(run->analysis, run->merged) : std::vector<CollectiveDependency>{});
      analysis = std::make_shared<const TraceAnalysis>(std::move(both.analysis));
      critical_path = std::make_shared<const CriticalPathAnalysis>(std::move(both.critical_path));
    }
    out.loaded = LoadedTrace{std::move(trace), std::move(analysis), label, path, keep_view, std::move(run),
                             std::move(critical_path)};
  } catch (const TraceImportCancelled& e) {
    out.cancelled = true;
    out.error = e.what();
  } catch (const std::exception& e) {  // TraceImportError names the place
    out.error = e.what();
  }
  return out;
}

}  // namespace

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
  running_ = std::async(std::launch::async, [j = std::move(job), progress = running_progress_] {
    return runJob(j.what, j.path, j.run_paths, j.trace, j.run, j.align, j.label, j.options, j.keep_view,
                  progress.get());
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
  running_cancelled_ = false;
  if (waiting_) {
    Job next = std::move(*waiting_);
    waiting_.reset();
    start(std::move(next));
  }
}

std::optional<double> TraceLoader::progress() const {
  if (!running_.valid() || !running_progress_) return std::nullopt;
  uint64_t total = running_progress_->total.load();
  if (total == 0) return std::nullopt;
  return std::min(1.0, double(running_progress_->done.load()) / double(total));
}

void TraceLoader::cancel() {
  waiting_.reset();
  if (!running_.valid()) return;
  running_cancelled_ = true;
  if (running_progress_) running_progress_->cancel.store(true);
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
