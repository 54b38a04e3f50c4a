// The middle windows, parsed on two threads. Window by window, where a window
// starts depends on where the previous one's last whole element ended, known
// only once it is parsed: one thread parses while the other commits, and the
// committing thread waits about half the time (10M events: parse 3.8 s of
// CPU, commit 1.7 s). Here, after the head window, windows are cut where the
// text alone shows a boundary between two elements (elementBoundary), so
// each can be parsed without the one before it: the reader and a helper
// claim windows in turn and parse them at the same time, and run's thread
// commits them in order as before. On one line the cut is guessed (no string
// scan on the claiming thread) until a window fails its check.
//
// A parse checks the cuts: the window's array must close exactly at its
// synthetic "]". A cut that was not between two traceEvents elements (an
// array of objects inside args, printed over lines; the end of traceEvents)
// fails that check, or fails to parse, and so does any error in the text.
// Reading then goes on window by window from the start of the first window
// that failed (nothing of it or after it is committed), which gives the same
// events and the same first error as reading window by window from the start.
// So do the last windows, which hold the top-level fields after the events.
#include <algorithm>
#include <string>
#include <thread>

#include "profiling/trace/ChromeTraceImporter.h"
#include "profiling/trace/WindowCut.h"

namespace fuselab::chrome_import {

size_t Importer::readAhead(size_t start) {
  ahead_first_slot_ = current_;
  ahead_claimed_ = 0;
  ahead_next_start_ = start;
  ahead_scan_at_ = 0;  // a scan goes on only within one run of windows read ahead
  ahead_stop_ = false;
  ahead_events_ok_ = 0;
  ahead_error_ = nullptr;
  // The helper starts once there is a first window (none near the end of the
  // text, nor in text without such boundaries).
  Slot* first = claimAheadWindow();
  if (!first) {
    backOffReadingAhead();
    return start;
  }
  std::thread helper([this] { readAheadWorker(); });
  readAheadWorker(first);
  helper.join();

  // Every claimed window has been parsed. Reading goes on from the first one
  // that failed its check, else from the next one.
  const size_t oldest = ahead_claimed_ > size_t(kSlots) ? ahead_claimed_ - kSlots : 0;  // older ones are committed
  size_t restart_number = ahead_claimed_, restart = ahead_next_start_;
  for (size_t j = oldest; j < ahead_claimed_; ++j) {
    const Slot& s = slots_[aheadSlot(j)];
    if (s.check == Slot::Check::Failed) {
      restart_number = j;
      restart = s.window.file_begin;
      break;
    }
  }
  // The windows from there on are dropped: run's thread commits in order and
  // has not passed the one that failed, which was never handed over.
  size_t events = ahead_events_ok_;
  for (size_t j = restart_number; j < ahead_claimed_; ++j) {
    Slot& s = slots_[aheadSlot(j)];
    if (s.check == Slot::Check::Ok) events -= s.events.size();
    s.events.clear();
    s.check = Slot::Check::Pending;
    setSlotState(aheadSlot(j), SlotState::Free);
  }
  event_index_ += events;
  if (restart_number < ahead_claimed_) {
    backOffReadingAhead();
    if (stats_) ++stats_->ahead_failures;  // run's thread does not touch it
  } else {
    windows_before_ahead_ = 1;
  }
  current_ = aheadSlot(restart_number);
  resume_at_ = restart;
  if (ahead_error_) std::rethrow_exception(ahead_error_);
  return restart;
}

void Importer::backOffReadingAhead() {
  windows_before_ahead_ = size_t(4) << std::min<size_t>(ahead_failures_++, 20);
}

void Importer::readAheadWorker(Slot* claimed) {
  try {
    for (Slot* s = claimed ? claimed : claimAheadWindow(); s; s = claimAheadWindow())
      finishAheadWindow(*s, parseAheadWindow(*s));
  } catch (...) {
    {
      std::lock_guard claims(ahead_mutex_);
      if (!ahead_error_) ahead_error_ = std::current_exception();
    }
    stopReadingAhead();
  }
}

void Importer::stopReadingAhead() {
  ahead_stop_ = true;
  std::lock_guard lock(mutex_);
  changed_.notify_all();
}

Slot* Importer::claimAheadWindow() {
  std::lock_guard claims(ahead_mutex_);
  if (ahead_stop_) return nullptr;
  const size_t start = ahead_next_start_, limit = window_bytes_;
  const size_t available = fill(start + limit + 1);
  // The last windows are read one by one (they may hold top-level fields).
  size_t cut = std::string_view::npos;
  if (available - start > limit) {
    // The window before was cut where this one starts: its scan goes on.
    ScanState scan;
    if (ahead_scan_at_ > start && ahead_scan_at_ <= start + limit) {
      scan = ahead_scan_;
      scan.offset = ahead_scan_at_ - start;
    }
    // Guesses on one line until a window read ahead has failed its check.
    const OneLine one_line = ahead_failures_ == 0 ? OneLine::Guess : OneLine::Scan;
    cut = elementBoundary(textAt(start, start + limit), limit / 2, &scan, one_line);
    ahead_scan_ = scan;
    ahead_scan_at_ = start + scan.offset;
  }
  if (cut == std::string_view::npos) {
    stopReadingAhead();
    return nullptr;
  }

  const size_t number = ahead_claimed_;
  const int slot = aheadSlot(number);
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return state_[slot] == SlotState::Free || stop_.load() || ahead_stop_.load(); });
    if (stop_.load()) throw Stopped{};
    if (ahead_stop_.load()) return nullptr;
    state_[slot] = SlotState::Parsing;
  }
  Slot& s = slots_[slot];
  s.events.clear();
  s.check = Slot::Check::Pending;
  copyWindow(s, start, start + cut, /*head=*/false);
  ahead_next_start_ = start + cut;
  ++ahead_claimed_;
  // A restart can only be at a window not yet committed: the oldest of those
  // is at least number + 1 - kSlots (this claim waited for number - kSlots).
  if (number + 1 >= size_t(kSlots)) forgetBefore(slots_[aheadSlot(number + 1)].window.file_begin);
  return &s;
}

bool Importer::parseAheadWindow(Slot& s) {
  const Window& w = s.window;
  try {
    od::document doc;
    if (s.parser.iterate(simdjson::padded_string_view(w.text, w.text_len, s.text.capacity())).get(doc)) return false;
    od::array elements;
    if (form_ == Form::Object) {
      od::object root;
      od::value events;
      if (doc.get_object().get(root) || root.find_field("traceEvents").get(events) || events.get_array().get(elements))
        return false;
    } else if (doc.get_array().get(elements)) {
      return false;
    }
    bool dummy = true;
    const char* after_last = nullptr;
    for (auto element : elements) {
      od::value v;
      if (element.get(v)) return false;
      if (dummy) {
        int64_t ignored;
        if (v.get_int64().get(ignored)) return false;
        dummy = false;
        continue;
      }
      EventFields& f = s.events.emplace_back();
      readEvent(v, w, f, s.events.size() - 1);
      if (f.close > w.copiedEnd() || v.current_location().get(after_last)) return false;
    }
    return !s.events.empty() && after_last == w.copiedEnd();
  } catch (...) {
    // Anything the text holds is found again, and reported, when this window
    // is read on its own.
    return false;
  }
}

void Importer::finishAheadWindow(Slot& s, bool ok) {
  s.check = ok ? Slot::Check::Ok : Slot::Check::Failed;
  if (!ok) {
    stopReadingAhead();
    return;
  }
  ahead_events_ok_ += s.events.size();
  setSlotState(int(&s - slots_), SlotState::Filled);
}

}  // namespace fuselab::chrome_import
