// The window loop, and how its events reach the trace. The parse side
// (simdjson, validation, each element's fields) takes about three fifths of
// the CPU time and the commit side (interning, tracks, args, pairing) the
// rest, so with ChromeImportOptions::parallel a reader thread parses the
// next windows into slots while run's thread commits the earlier ones (and
// from the second window on, a helper parses too: ChromeImportSpeculation.cpp).
// Events are committed in file order either way, and an error is raised only
// after every event read before it has been committed, so both ways give the
// same trace and the same first error.
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
    start = resume_at_;
    head = false;
    if (parallel_) {
      if (windows_before_ahead_ == 0) start = readAhead(start);  // sets the next countdown
      else --windows_before_ahead_;
    }
    forgetBefore(start);
  }
  events_array_done_ = true;
  text_ = TextBuffer();
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
    changed_.wait(lock, [&] { return state_[current_] == SlotState::Free || stop_.load(); });
    if (stop_.load()) throw Stopped{};
    state_[current_] = SlotState::Parsing;
  }
  slot_ = &slots_[current_];
  slot_->events.clear();
  slot_->check = Slot::Check::Pending;
  holding_ = true;
}

void Importer::handOver() {
  holding_ = false;
  if (!parallel_) {
    commitSlot(*slot_);
    return;
  }
  setSlotState(current_, SlotState::Filled);
  current_ = (current_ + 1) % kSlots;
}

void Importer::setSlotState(int slot, SlotState state) {
  {
    std::lock_guard lock(mutex_);
    state_[slot] = state;
  }
  changed_.notify_all();
}

void Importer::commitSlot(Slot& s) {
  commit_window_ = &s.window;
  if (stats_) {
    ++stats_->windows;
    if (s.check == Slot::Check::Ok) ++stats_->read_ahead;
  }
  // An event's index is its place in traceEvents: the events committed before
  // it (windows read ahead do not know theirs).
  for (EventFields& f : s.events) {
    f.index = committed_events_++;
    commitEvent(f);
  }
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
        changed_.wait(lock, [&] { return state_[next] == SlotState::Filled || reader_done_; });
        // Slots are handed over in turn: once the reader is done, an unfilled
        // `next` means every slot has been committed.
        if (state_[next] != SlotState::Filled) break;
      }
      commitSlot(slots_[next]);
      setSlotState(next, SlotState::Free);
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
