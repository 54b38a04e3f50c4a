// CPU side of a live capture: an at::RecordFunction global callback (ATen ops
// = FUNCTION scope, annotations = USER_SCOPE) that writes every op into
// preallocated per-thread buffers. See ../shared/DESIGN.md ("DispatchCollector").
//
// Hot path: no allocation, lock or string copy per event. Each thread gets
// its buffers once (on its first op after start()); names are interned by
// their const char* (checked against the stored text, since annotation names
// live in the RecordFunction and their storage is reused); events past a
// buffer's capacity are counted as dropped, never reallocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "profiling/trace/Trace.h"

namespace fuselab {

struct DispatchOptions {
  bool record_shapes = false;                 // "Input Dims" per op (costs about 1.6 us per op)
  size_t events_per_thread = size_t(1) << 17;  // records preallocated per thread
  size_t shape_values_per_thread = size_t(1) << 20;  // int64 slots for input dims per thread
  size_t names_per_thread = 4096;             // distinct op/annotation names per thread
  size_t name_bytes_per_thread = size_t(1) << 18;
  size_t max_depth = 256;                     // open (nested) events per thread
};

// One recorded op, as returned by DispatchCollector::events().
struct DispatchEvent {
  std::string name;
  bool user_scope = false;  // USER_SCOPE annotation (else an ATen op)
  int64_t tid = 0;          // OS thread id (gettid)
  int64_t start_ns = 0;     // CLOCK_REALTIME
  int64_t end_ns = 0;       // the stop time for events still open at stop()
  bool closed = true;       // false when stop() came before the event ended
  uint16_t depth = 0;       // open events on the thread when it started
  bool has_shapes = false;
  std::vector<std::vector<int64_t>> input_dims;  // one per input; [] for non-tensors and tensor lists
  // record_param_comms: its args as JSON, with the communication fields
  // torch.profiler writes ("Collective name", "Process Group Name", ...); "" otherwise.
  std::string comms_args;
};

// One collector may record at a time in a process (the callback is global).
// start()/stop()/appendTo() are for one controlling thread; the ops recorded
// may run on any thread.
class DispatchCollector {
 public:
  DispatchCollector();
  ~DispatchCollector();  // stops if still recording
  DispatchCollector(const DispatchCollector&) = delete;
  DispatchCollector& operator=(const DispatchCollector&) = delete;

  // Installs the callback. Discards what an earlier run recorded. false + a
  // message when another collector is recording.
  bool start(const DispatchOptions& options, std::string* error);
  // Removes the callback and waits until no thread is inside it. Idempotent.
  void stop();
  bool recording() const;

  // CPU tracks (pid = getpid(), tid = gettid(), process/thread names) with
  // cpu_op and user_annotation events; args {"Input Dims": ...} when shapes
  // were recorded, and on record_param_comms the communication fields
  // torch.profiler writes (from LibTorch's saveNcclMeta). Call after stop(); the trace still needs finalize().
  // Events that start before from_ns (a warm-up recorded so that the first
  // recorded step does not pay for first-time costs) are left out, and so is
  // a thread with nothing after it.
  void appendTo(Trace& trace, int64_t from_ns = std::numeric_limits<int64_t>::min()) const;
  std::vector<DispatchEvent> events() const;  // after stop(), per thread in start order

  uint64_t droppedEvents() const;   // past events_per_thread or max_depth
  uint64_t droppedShapes() const;   // events kept without their input dims
  uint64_t unnamedEvents() const;   // kept as "(unnamed)": the name table was full
  size_t eventCount() const;
  size_t threadCount() const;

  static int64_t nowNs();  // CLOCK_REALTIME in ns, the clock of the CUPTI records

  struct Session;

 private:
  std::unique_ptr<Session> session_;
};

}  // namespace fuselab
