// One communicator's events as the NCCL profiler plugin records them: its
// collectives and point-to-point operations with NCCL's descriptors (seq,
// algorithm, protocol, channels, warps), each channel's start and stop from
// the GPU's global timer (KernelCh), and, when asked, the proxy's operations
// and steps. Records live in bounded pools (NcclEventPool.h); what does not
// fit is counted as dropped. The handles given to NCCL point at records.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "profiling/nccl_profiler/NcclEventPool.h"
#include "profiling/nccl_profiler/NcclProfilerApi.h"
#include "profiling/nccl_profiler/NcclProfilerOptions.h"

namespace fuselab::nccl_profiler {

class CommRecorder;

enum class EventKind : uint8_t { None, Coll, P2p, KernelCh, ProxyOp, ProxyStep };

// NCCL's names (func, datatype, algo, proto) copied: its strings need not
// outlive the library.
struct ShortName {
  char text[24] = {};
  void set(const char* s);
};

struct EventHeader {
  EventKind kind = EventKind::None;
  CommRecorder* comm = nullptr;
  std::atomic<bool> ready{false};  // filled in (set last, read at finalize)
};

struct CollRecord : EventHeader {  // a collective or a p2p operation
  uint64_t seq = 0;
  ShortName func, datatype, algo, proto;
  uint64_t count = 0;
  int root_or_peer = 0;
  uint8_t channels = 0, warps = 0;
  int64_t host_start_ns = 0;
  std::atomic<int64_t> host_stop_ns{-1};
};

struct ChannelRecord : EventHeader {
  const CollRecord* parent = nullptr;
  uint8_t channel = 0;
  uint64_t start = 0;
  std::atomic<uint64_t> stop{0};  // 0 until KernelChStop
};

struct ProxyOpRecord : EventHeader {
  const CollRecord* parent = nullptr;  // nullptr when PXN ran it for another process
  uint8_t channel = 0;
  int peer = 0, steps = 0, chunk_size = 0, is_send = 0;
  int64_t host_start_ns = 0;
  std::atomic<int64_t> host_stop_ns{-1};
};

struct ProxyStepRecord : EventHeader {
  const ProxyOpRecord* parent = nullptr;
  int step = 0;
  std::atomic<uint64_t> trans_size{0};
  int64_t host_start_ns = 0;
  std::atomic<int64_t> host_stop_ns{-1};
};

// What startEvent says, whatever the interface version.
struct EventStart {
  uint64_t type = 0;
  void* parent = nullptr;
  const ncclProfilerCollDescr_v4* coll = nullptr;
  const ncclProfilerP2pDescr_v4* p2p = nullptr;
  const ncclProfilerProxyOpDescr* proxy_op = nullptr;
  const ncclProfilerProxyStepDescr* proxy_step = nullptr;
  const ncclProfilerKernelChDescr* kernel_ch = nullptr;
};

struct CommInfo {
  uint64_t comm_hash = 0;
  std::string comm_name;
  int nnodes = 0, nranks = 0, rank = 0;
};

class CommRecorder {
 public:
  CommRecorder(CommInfo info, const PluginOptions& options);

  // A handle for the event, or nullptr (not recorded: another type, no
  // parent of ours, or its pool is full).
  void* start(const EventStart& e);
  void stop(void* handle);
  void recordState(void* handle, ncclProfilerEventState_t state, const ncclProfilerEventStateArgs_t* args);

  const CommInfo& info() const { return info_; }
  int eventMask() const { return mask_; }
  const EventPool<CollRecord>& collectives() const { return colls_; }
  const EventPool<CollRecord>& p2ps() const { return p2ps_; }
  const EventPool<ChannelRecord>& channels() const { return channels_; }
  const EventPool<ProxyOpRecord>& proxyOps() const { return proxy_ops_; }
  const EventPool<ProxyStepRecord>& proxySteps() const { return proxy_steps_; }
  uint64_t orphans() const { return orphans_.load(std::memory_order_relaxed); }

 private:
  void* startColl(const EventStart& e, bool p2p);
  void* startChannel(const EventStart& e);
  void* startProxyOp(const EventStart& e);
  void* startProxyStep(const EventStart& e);
  template <class R>
  const R* ownParent(void* parent, EventKind a, EventKind b) const;
  // A fresh record of `kind` from `pool`, owned by this communicator; nullptr when the pool is full.
  template <class R>
  R* take(EventPool<R>& pool, EventKind kind);

  CommInfo info_;
  int mask_;
  EventPool<CollRecord> colls_, p2ps_;
  EventPool<ChannelRecord> channels_;
  EventPool<ProxyOpRecord> proxy_ops_;
  EventPool<ProxyStepRecord> proxy_steps_;
  std::atomic<uint64_t> orphans_{0};  // events whose parent was not recorded
};

// CLOCK_MONOTONIC in ns: the host times of the records.
int64_t monotonicNs();

}  // namespace fuselab::nccl_profiler
