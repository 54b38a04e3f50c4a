#include "app/capture/CaptureWorker.h"

#include "app/capture/DistributedCapture.h"

#include <pthread.h>

#include <chrono>

#include "app/capture/WorkloadCapture.h"

namespace fuselab {

CaptureWorker::CaptureWorker() : progress_(std::make_unique<CaptureProgress>()) {
  thread_ = std::thread([this] { run(); });
}

CaptureWorker::~CaptureWorker() {
  {
    std::lock_guard lock(mutex_);
    quit_ = true;
    waiting_.reset();
    progress_->cancel = true;
  }
  wake_.notify_all();
  thread_.join();
}

uint64_t CaptureWorker::submit(CaptureRequest request) {
  uint64_t id;
  {
    std::lock_guard lock(mutex_);
    id = next_id_++;
    if (waiting_) {
      CaptureJobResult replaced;
      replaced.id = waiting_->first;
      replaced.request = std::move(waiting_->second);
      replaced.cancelled = true;
      replaced.messages.push_back("replaced by a newer capture request");
      if (!finished_ || finished_->id < replaced.id) finished_ = std::move(replaced);
    }
    waiting_.emplace(id, std::move(request));
  }
  wake_.notify_all();
  return id;
}

void CaptureWorker::cancel() {
  std::lock_guard lock(mutex_);
  if (waiting_) {
    CaptureJobResult dropped;
    dropped.id = waiting_->first;
    dropped.request = std::move(waiting_->second);
    dropped.cancelled = true;
    dropped.messages.push_back("capture cancelled");
    waiting_.reset();
    if (!finished_ || finished_->id < dropped.id) finished_ = std::move(dropped);
  }
  if (running_id_) progress_->cancel = true;
  idle_.notify_all();
}

std::optional<CaptureJobResult> CaptureWorker::poll() {
  std::lock_guard lock(mutex_);
  std::optional<CaptureJobResult> out = std::move(finished_);
  finished_.reset();
  return out;
}

void CaptureWorker::waitIdle() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [&] { return !waiting_ && running_id_ == 0; });
}

CaptureWorker::Status CaptureWorker::status() const {
  std::lock_guard lock(mutex_);
  Status s;
  s.busy = waiting_.has_value() || running_id_ != 0;
  s.job_id = running_id_;
  if (running_id_) {
    s.fraction = progress_->fraction.load();
    s.phase = progress_->phase();
    s.forward_s = progress_->forward_s.load();
    s.estimated_s = progress_->estimated_s.load();
    s.seconds_left = progress_->secondsLeft();
  }
  return s;
}

void CaptureWorker::run() {
  pthread_setname_np(pthread_self(), "fuselab-capture");
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return quit_ || waiting_.has_value(); });
    if (quit_) return;
    auto [id, request] = std::move(*waiting_);
    waiting_.reset();
    running_id_ = id;
    // Only this thread replaces progress_, and only while holding the lock.
    progress_ = std::make_unique<CaptureProgress>();
    lock.unlock();
    CaptureJobResult result = execute(id, request);
    lock.lock();
    running_id_ = 0;
    if (!finished_ || finished_->id < result.id) finished_ = std::move(result);
    idle_.notify_all();
  }
}

CaptureJobResult CaptureWorker::execute(uint64_t id, const CaptureRequest& request) {
  CaptureJobResult r;
  r.id = id;
  r.request = request;
  auto t0 = std::chrono::steady_clock::now();
  try {
    if (isDistributedWorkload(request.params.workload)) {
      progress_->setPhase(0.1, "running " + std::to_string(request.params.ranks) + " ranks");
      RunCaptureOptions run;
      run.cancel = &progress_->cancel;
      const RunFolder folder = captureRun(request.params, request.options, run);  // removed once read
      r.run = std::make_shared<const RunView>(openRunView({folder.path()}));
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return r;
    }
    CaptureResult c = captureWorkload(request.params, request.options, progress_.get());
    r.messages = std::move(c.messages);
    r.cancelled = c.cancelled;
    r.gpu_captured = c.gpu_captured;
    r.steps_wall_ns = c.steps_wall_ns;
    r.steps_done = c.steps_done;
    r.out_of_memory = !c.out_of_memory.empty();  // the trace holds the steps up to it
    if (!c.cancelled) r.trace = std::make_shared<const Trace>(std::move(c.trace));
  } catch (const WorkloadOutOfMemory& e) {
    r.error = e.what();
    r.out_of_memory = true;
  } catch (const NoGpuError& e) {
    r.error = e.what();
    r.no_gpu = true;
  } catch (const std::exception& e) {  // WorkloadError, CaptureError, LibTorch errors
    r.error = e.what();
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace fuselab
