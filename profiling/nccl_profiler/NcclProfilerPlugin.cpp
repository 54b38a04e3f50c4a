// The entry points NCCL looks up in the plugin: ncclProfiler_v5 (NCCL 2.27
// and later, torch 2.11's NCCL 2.28) and ncclProfiler_v4 (NCCL 2.25-2.26),
// both over one recorder. Errors never reach NCCL: a failed event is a
// null handle, which NCCL skips.
#include <exception>

#include "profiling/nccl_profiler/NcclCommRecorder.h"
#include "profiling/nccl_profiler/NcclProfilerApi.h"
#include "profiling/nccl_profiler/NcclProfilerProcess.h"

using namespace fuselab::nccl_profiler;

namespace {

ncclResult_t initComm(void** context, const CommInfo& info, int* mask, ncclDebugLogger_t log, const char* version) {
  if (!context || !mask) return ncclInvalidArgument;
  try {
    *context = openCommunicator(info, mask, log, version);
  } catch (const std::exception&) {
    *context = nullptr;
  }
  // No recorder: NCCL disables the plugin for this communicator.
  return *context ? ncclSuccess : ncclInternalError;
}

ncclResult_t startEvent(void* context, void** handle, const EventStart& e) {
  if (!handle) return ncclSuccess;
  *handle = nullptr;
  if (context) *handle = static_cast<CommRecorder*>(context)->start(e);
  return ncclSuccess;
}

ncclResult_t stopEvent(void* handle) {
  if (handle) static_cast<EventHeader*>(handle)->comm->stop(handle);
  return ncclSuccess;
}

ncclResult_t recordEventState(void* handle, ncclProfilerEventState_t state, ncclProfilerEventStateArgs_t* args) {
  if (handle) static_cast<EventHeader*>(handle)->comm->recordState(handle, state, args);
  return ncclSuccess;
}

ncclResult_t finalize(void* context) {
  try {
    finalizeCommunicator(static_cast<CommRecorder*>(context));
  } catch (const std::exception&) {
  }
  return ncclSuccess;
}

ncclResult_t initV5(void** context, uint64_t comm_id, int* mask, const char* name, int nnodes, int nranks, int rank,
                    ncclDebugLogger_t log) {
  return initComm(context, CommInfo{comm_id, name ? name : "", nnodes, nranks, rank}, mask, log, "v5");
}

ncclResult_t initV4(void** context, int* mask, const char* name, uint64_t comm_hash, int nnodes, int nranks, int rank,
                    ncclDebugLogger_t log) {
  return initComm(context, CommInfo{comm_hash, name ? name : "", nnodes, nranks, rank}, mask, log, "v4");
}

template <class Descr>
EventStart eventStart(const Descr& d, const ncclProfilerCollDescr_v4* coll, const ncclProfilerP2pDescr_v4* p2p) {
  EventStart e;
  e.type = d.type;
  e.parent = d.parentObj;
  switch (d.type) {
    case ncclProfileColl: e.coll = coll; break;
    case ncclProfileP2p: e.p2p = p2p; break;
    case ncclProfileProxyOp: e.proxy_op = &d.proxyOp; break;
    case ncclProfileProxyStep: e.proxy_step = &d.proxyStep; break;
    case ncclProfileKernelCh: e.kernel_ch = &d.kernelCh; break;
    default: break;
  }
  return e;
}

ncclResult_t startV5(void* context, void** handle, ncclProfilerEventDescr_v5_t* d) {
  if (!d) return startEvent(context, handle, EventStart{});
  return startEvent(context, handle, eventStart(*d, &d->coll.d, &d->p2p.d));
}

ncclResult_t startV4(void* context, void** handle, ncclProfilerEventDescr_v4_t* d) {
  if (!d) return startEvent(context, handle, EventStart{});
  return startEvent(context, handle, eventStart(*d, &d->coll, &d->p2p));
}

}  // namespace

extern "C" {
__attribute__((visibility("default"))) ncclProfiler_v5_t ncclProfiler_v5 = {
    "fuselab", initV5, startV5, stopEvent, recordEventState, finalize};
__attribute__((visibility("default"))) ncclProfiler_v4_t ncclProfiler_v4 = {
    "fuselab", initV4, startV4, stopEvent, recordEventState, finalize};
}
