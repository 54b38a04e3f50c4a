#include "profiling/nccl_profiler/NcclCommRecorder.h"

#include <time.h>
#include <unistd.h>

#include <cstring>

namespace fuselab::nccl_profiler {

void ShortName::set(const char* s) {
  if (!s) s = "";
  std::strncpy(text, s, sizeof(text) - 1);
}

int64_t monotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

CommRecorder::CommRecorder(CommInfo info, const PluginOptions& options)
    : info_(std::move(info)),
      mask_(options.event_mask),
      colls_(options.event_mask & ncclProfileColl ? options.coll_capacity : 0),
      p2ps_(options.event_mask & ncclProfileP2p ? options.coll_capacity : 0),
      channels_(options.event_mask & ncclProfileKernelCh ? options.channelCapacity() : 0),
      proxy_ops_(options.event_mask & ncclProfileProxyOp ? options.proxyCapacity() : 0),
      proxy_steps_(options.event_mask & ncclProfileProxyStep ? options.proxyCapacity() : 0) {}

template <class R>
const R* CommRecorder::ownParent(void* parent, EventKind a, EventKind b) const {
  auto* h = static_cast<const EventHeader*>(parent);
  if (!h || h->comm != this || (h->kind != a && h->kind != b)) return nullptr;
  return static_cast<const R*>(h);
}

template <class R>
R* CommRecorder::take(EventPool<R>& pool, EventKind kind) {
  R* r = pool.acquire();
  if (r) r->kind = kind, r->comm = this;
  return r;
}

void* CommRecorder::start(const EventStart& e) {
  if (!(e.type & mask_)) return nullptr;
  switch (e.type) {
    case ncclProfileColl: return e.coll ? startColl(e, false) : nullptr;
    case ncclProfileP2p: return e.p2p ? startColl(e, true) : nullptr;
    case ncclProfileKernelCh: return e.kernel_ch ? startChannel(e) : nullptr;
    case ncclProfileProxyOp: return e.proxy_op ? startProxyOp(e) : nullptr;
    case ncclProfileProxyStep: return e.proxy_step ? startProxyStep(e) : nullptr;
    default: return nullptr;
  }
}

void* CommRecorder::startColl(const EventStart& e, bool p2p) {
  CollRecord* r = p2p ? take(p2ps_, EventKind::P2p) : take(colls_, EventKind::Coll);
  if (!r) return nullptr;
  r->host_start_ns = monotonicNs();
  if (p2p) {
    r->func.set(e.p2p->func);
    r->datatype.set(e.p2p->datatype);
    r->count = e.p2p->count;
    r->root_or_peer = e.p2p->peer;
    r->channels = e.p2p->nChannels;
  } else {
    r->seq = e.coll->seqNumber;
    r->func.set(e.coll->func);
    r->datatype.set(e.coll->datatype);
    r->algo.set(e.coll->algo);
    r->proto.set(e.coll->proto);
    r->count = e.coll->count;
    r->root_or_peer = e.coll->root;
    r->channels = e.coll->nChannels;
    r->warps = e.coll->nWarps;
  }
  r->ready.store(true, std::memory_order_release);
  return r;
}

void* CommRecorder::startChannel(const EventStart& e) {
  const CollRecord* parent = ownParent<CollRecord>(e.parent, EventKind::Coll, EventKind::P2p);
  if (!parent) {
    orphans_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  ChannelRecord* r = take(channels_, EventKind::KernelCh);
  if (!r) return nullptr;
  r->parent = parent;
  r->channel = e.kernel_ch->channelId;
  r->start = e.kernel_ch->pTimer;
  r->ready.store(true, std::memory_order_release);
  return r;
}

void* CommRecorder::startProxyOp(const EventStart& e) {
  // Under PXN another process' proxy may run the op: its parent pointer is
  // not ours to read (NCCL's documentation says to compare the pid).
  const bool local = e.proxy_op->pid == getpid();
  const CollRecord* parent = local ? ownParent<CollRecord>(e.parent, EventKind::Coll, EventKind::P2p) : nullptr;
  if (local && !parent) {
    orphans_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  ProxyOpRecord* r = take(proxy_ops_, EventKind::ProxyOp);
  if (!r) return nullptr;
  r->parent = parent;
  r->channel = e.proxy_op->channelId;
  r->peer = e.proxy_op->peer;
  r->steps = e.proxy_op->nSteps;
  r->chunk_size = e.proxy_op->chunkSize;
  r->is_send = e.proxy_op->isSend;
  r->host_start_ns = monotonicNs();
  r->ready.store(true, std::memory_order_release);
  return r;
}

void* CommRecorder::startProxyStep(const EventStart& e) {
  const ProxyOpRecord* parent = ownParent<ProxyOpRecord>(e.parent, EventKind::ProxyOp, EventKind::ProxyOp);
  if (!parent) {
    orphans_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  ProxyStepRecord* r = take(proxy_steps_, EventKind::ProxyStep);
  if (!r) return nullptr;
  r->parent = parent;
  r->step = e.proxy_step->step;
  r->host_start_ns = monotonicNs();
  r->ready.store(true, std::memory_order_release);
  return r;
}

void CommRecorder::stop(void* handle) {
  auto* h = static_cast<EventHeader*>(handle);
  if (!h || h->comm != this) return;
  switch (h->kind) {
    case EventKind::Coll:
    case EventKind::P2p:
      static_cast<CollRecord*>(h)->host_stop_ns.store(monotonicNs(), std::memory_order_relaxed);
      break;
    case EventKind::ProxyOp:
      static_cast<ProxyOpRecord*>(h)->host_stop_ns.store(monotonicNs(), std::memory_order_relaxed);
      break;
    case EventKind::ProxyStep:
      static_cast<ProxyStepRecord*>(h)->host_stop_ns.store(monotonicNs(), std::memory_order_relaxed);
      break;
    default: break;  // a channel stops with its KernelChStop state
  }
}

void CommRecorder::recordState(void* handle, ncclProfilerEventState_t state, const ncclProfilerEventStateArgs_t* args) {
  auto* h = static_cast<EventHeader*>(handle);
  if (!h || h->comm != this || !args) return;
  if (h->kind == EventKind::KernelCh && state == ncclProfilerKernelChStop)
    static_cast<ChannelRecord*>(h)->stop.store(args->kernelCh.pTimer, std::memory_order_relaxed);
  else if (h->kind == EventKind::ProxyStep && args->proxyStep.transSize > 0)
    static_cast<ProxyStepRecord*>(h)->trans_size.store(args->proxyStep.transSize, std::memory_order_relaxed);
}

}  // namespace fuselab::nccl_profiler
