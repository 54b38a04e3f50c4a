// Internal to the Chrome trace importer (see ChromeTraceImporter.h): what
// the commit side keeps of events it cannot place until the end (unended
// "B"s, flow ends, metadata, raw events) and the arena holding their text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "profiling/trace/Trace.h"

namespace fuselab::chrome_import {

struct PendingBegin {  // a "B" waiting for its "E"
  Trace::NewEvent ev;
  size_t begin, end;
  size_t text_at;  // its raw text in Importer::raw_text_
  size_t index;
  int64_t device, stream;  // from the "B"'s args
  bool has_args;           // the "B" had args (kept or not: ChromeImportOptions::keep_args)
};

struct FlowEnd {
  char phase;           // 's' or 'f'
  bool enclosing;       // binding point: enclosing slice (else next slice)
  bool name_is_ac2g;
  uint32_t cat_id, name_id;
  uint64_t id;
  uint32_t pid_id, tid_id;  // the thread it binds on (looked up at the end)
  int64_t ts;               // relative to baseTimeNanoseconds
  size_t begin, end;        // file offsets of its text, in case it stays unpaired
  size_t text_at;           // that text in Importer::raw_text_
};

struct MetaRecord {
  enum Kind { ProcessName, ProcessLabels, ProcessSort, ThreadName, ThreadSort } kind;
  uint32_t pid_id, tid_id;
  uint32_t name_id = 0;
  uint32_t text_id = 0;
  int64_t number = 0;
  size_t begin, end;
  size_t text_at;
  int64_t ts;
};

struct RawPending {
  size_t begin, end;
  size_t text_at;
  int64_t ts;  // relative to baseTimeNanoseconds
  uint32_t name_id;
  char phase;
};

// The raw text of events that may end up as RawEvents (flow ends, metadata,
// "B"s, other phases), copied when read: the file text is not kept. Blocks of
// a fixed size, so growing never copies what is stored.
class TextArena {
 public:
  size_t add(std::string_view s);  // returns where it went, for get()
  std::string_view get(size_t at, size_t length) const {
    return std::string_view(blocks_[at >> kShift].data() + (at & kMask), length);
  }

 private:
  static constexpr size_t kShift = 24, kMask = (size_t(1) << kShift) - 1;
  std::vector<std::string> blocks_;
  size_t used_ = 0;  // in the last block
};

}  // namespace fuselab::chrome_import
