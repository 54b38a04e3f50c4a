// The window loop, and how its events reach the trace. The parse side
// (simdjson, validation, each element's fields) takes about three fifths of
// the CPU time and the commit side (interning, tracks, args, pairing) the
// rest, so with ChromeImportOptions::parallel a reader thread parses the
// next windows into slots while run's thread commits the earlier ones. Events are
// committed in file order either way, and an error is raised only after every
// event read before it has been committed, so both ways give the same trace
// and the same first error.
#include <string>
#include <thread>

#include "profiling/trace/ChromeTraceImporter.h"

namespace fuselab::chrome_import {

void Importer::readWindows() {
  // The head window; it grows until at least one event (or everything) fits.
  bool head = true;
  size_t start = 0;
  while (true) {
    acquireSlot();
    WindowState saved = saveState();
    Outcome o = parseWindow(start, head);
    handOver();
    if (o == Outcome::Done) break;
    if (o == Outcome::Grow) {
      // Not even one event fitted: forget what the window read, retry larger.
      restoreState(std::move(saved));
      if (at_eof_ && window_bytes_ >= n_) throw TraceImportError(source_ + ": internal error: the parse window cannot grow");
      window_bytes_ = std::min(n_, window_bytes_ * 2);
      continue;
    }
    // Continue after the last committed event.
    head = false;
    start = resume_at_;
    forgetBefore(start);
  }
  events_array_done_ = true;
  text_ = std::string();
}

void Importer::readAll() {
  try {
    readWindows();
  } catch (...) {
    if (holding_) handOver();  // the events read before the error come first
    throw;
  }
}

void Importer::acquireSlot() {
  if (parallel_) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !filled_[current_] || stop_.load(); });
    if (stop_.load()) throw Stopped{};
  }
  slot_ = &slots_[current_];
  slot_->events.clear();
  holding_ = true;
}

void Importer::handOver() {
  holding_ = false;
  if (!parallel_) {
    commitSlot(*slot_);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    filled_[current_] = true;
  }
  changed_.notify_all();
  current_ = (current_ + 1) % kSlots;
}

void Importer::commitSlot(Slot& s) {
  commit_window_ = &s.window;
  for (const EventFields& f : s.events) commitEvent(f);
}

void Importer::stopReader() {
  stop_.store(true);
  std::lock_guard lock(mutex_);
  changed_.notify_all();
}

void Importer::commitAll() {
  std::thread reader([this] {
    std::exception_ptr error;
    try {
      readAll();
    } catch (const Stopped&) {
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(mutex_);
    reader_done_ = true;
    reader_error_ = error;
    changed_.notify_all();
  });
  try {
    for (int next = 0;; next = (next + 1) % kSlots) {
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return filled_[next] || reader_done_; });
        // Slots are handed over in turn: once the reader is done, an empty
        // `next` means every slot has been committed.
        if (!filled_[next]) break;
      }
      commitSlot(slots_[next]);
      {
        std::lock_guard lock(mutex_);
        filled_[next] = false;
      }
      changed_.notify_all();
    }
  } catch (...) {
    stopReader();
    reader.join();
    throw;
  }
  reader.join();
  if (reader_error_) std::rethrow_exception(reader_error_);
}

}  // namespace fuselab::chrome_import
