#include "profiling/trace/ParallelFor.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace fuselab {

namespace {

struct Loop {
  size_t n = 0;
  const std::function<void(size_t)>* f = nullptr;
  std::atomic<size_t> next{0}, done{0};
  std::mutex mutex;
  std::condition_variable finished;
  std::exception_ptr error;

  // Runs items until none is left to take; true if it ran the last one.
  void work() {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) {
      try {
        (*f)(i);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
      }
      if (done.fetch_add(1) + 1 == n) {
        std::lock_guard lock(mutex);
        finished.notify_all();
      }
    }
  }
};

// Started once and never stopped: its workers wait for loops until the
// process ends, so leaving the process never waits for them (an item still
// running, a loop begun during exit).
class WorkerPool {
 public:
  WorkerPool() {
    const unsigned workers = std::max(1u, std::thread::hardware_concurrency()) - 1;
    for (unsigned w = 0; w < workers; ++w) std::thread([this] { serve(); }).detach();
    has_workers_ = workers > 0;
  }

  void run(const std::shared_ptr<Loop>& loop) {
    if (has_workers_) {
      {
        std::lock_guard lock(mutex_);
        loops_.push_back(loop);
      }
      wake_.notify_all();
    }
    loop->work();
    std::unique_lock lock(loop->mutex);
    loop->finished.wait(lock, [&] { return loop->done.load() == loop->n; });
    if (loop->error) std::rethrow_exception(loop->error);
  }

 private:
  void serve() {
    while (true) {
      std::shared_ptr<Loop> loop;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return !loops_.empty(); });
        loop = loops_.front();
        // A loop with nothing left to take leaves the queue.
        if (loop->next.load() >= loop->n) {
          loops_.pop_front();
          continue;
        }
      }
      loop->work();
    }
  }

  bool has_workers_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Loop>> loops_;
};

}  // namespace

void parallelForEach(size_t n, const std::function<void(size_t)>& f) {
  static WorkerPool* const pool = new WorkerPool;  // never destroyed: see WorkerPool
  auto loop = std::make_shared<Loop>();
  loop->n = n;
  loop->f = &f;
  pool->run(loop);
}

}  // namespace fuselab
