// The NCCL profiler plugin interface, versions 5 and 4, declared from NCCL's
// documentation of it (ext-profiler/README.md of NCCL 2.28, whose core looks
// for `ncclProfiler_v5`, then `_v4`, ... in the library). Only what this
// plugin uses is named; the layouts (field order and types) follow that
// document exactly, since NCCL passes these structs by pointer.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

extern "C" {

typedef enum {
  ncclSuccess = 0,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
} ncclResult_t;

typedef enum {
  NCCL_LOG_NONE = 0,
  NCCL_LOG_VERSION = 1,
  NCCL_LOG_WARN = 2,
  NCCL_LOG_INFO = 3,
  NCCL_LOG_ABORT = 4,
  NCCL_LOG_TRACE = 5
} ncclDebugLogLevel;
enum { NCCL_INIT = 1 };  // the subsystem flag our log lines use
typedef void (*ncclDebugLogger_t)(ncclDebugLogLevel level, unsigned long flags, const char* file, int line,
                                  const char* fmt, ...);

// Event types, as bits of the activation mask.
enum {
  ncclProfileGroup = 1 << 0,
  ncclProfileColl = 1 << 1,
  ncclProfileP2p = 1 << 2,
  ncclProfileProxyOp = 1 << 3,
  ncclProfileProxyStep = 1 << 4,
  ncclProfileProxyCtrl = 1 << 5,
  ncclProfileKernelCh = 1 << 6,
  ncclProfileNetPlugin = 1 << 7,
  ncclProfileGroupApi = 1 << 8,
  ncclProfileCollApi = 1 << 9,
  ncclProfileP2pApi = 1 << 10,
  ncclProfileKernelLaunch = 1 << 11,
};

// State transitions (recordEventState). The proxy step states are kept as
// they come; KernelChStop carries the channel's stop time.
typedef enum {
  ncclProfilerProxyStepSendGPUWait = 8,
  ncclProfilerProxyStepSendWait = 9,
  ncclProfilerProxyStepRecvWait = 10,
  ncclProfilerProxyStepRecvFlushWait = 11,
  ncclProfilerProxyStepRecvGPUWait = 12,
  ncclProfilerProxyOpInProgress_v4 = 19,
  ncclProfilerProxyStepSendPeerWait_v4 = 20,
  ncclProfilerKernelChStop = 22,
} ncclProfilerEventState_t;

// Descriptor members shared by v4 and v5 (the union after type/parent/rank).
struct ncclProfilerCollDescr_v4 {
  uint64_t seqNumber;
  const char* func;
  const void* sendBuff;
  void* recvBuff;
  size_t count;
  int root;
  const char* datatype;
  uint8_t nChannels;
  uint8_t nWarps;
  const char* algo;
  const char* proto;
};
struct ncclProfilerP2pDescr_v4 {
  const char* func;
  void* buff;
  const char* datatype;
  size_t count;
  int peer;
  uint8_t nChannels;
};
struct ncclProfilerProxyOpDescr {
  pid_t pid;
  uint8_t channelId;
  int peer;
  int nSteps;
  int chunkSize;
  int isSend;
};
struct ncclProfilerProxyStepDescr {
  int step;
};
struct ncclProfilerKernelChDescr {
  uint8_t channelId;
  uint64_t pTimer;  // the GPU's global timer at the channel's start
};
struct ncclProfilerNetPluginDescr {
  int64_t id;
  void* data;
};

// v5: the type is 64 bits wide, API events were added, and Coll/P2p carry
// their v4 group parent last.
struct ncclProfilerEventDescr_v5_t {
  uint64_t type;
  void* parentObj;
  int rank;
  union {
    struct {
      int graphCaptured;
      int groupDepth;
    } groupApi;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      int root;
      void* stream;
      bool graphCaptured;
    } collApi;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      void* stream;
      bool graphCaptured;
    } p2pApi;
    struct {
      void* stream;
    } kernelLaunch;
    struct {
      ncclProfilerCollDescr_v4 d;
      void* parentGroup;
    } coll;
    struct {
      ncclProfilerP2pDescr_v4 d;
      void* parentGroup;
    } p2p;
    ncclProfilerProxyOpDescr proxyOp;
    ncclProfilerProxyStepDescr proxyStep;
    ncclProfilerKernelChDescr kernelCh;
    ncclProfilerNetPluginDescr netPlugin;
  };
};

struct ncclProfilerEventDescr_v4_t {
  uint8_t type;
  void* parentObj;
  int rank;
  union {
    ncclProfilerCollDescr_v4 coll;
    ncclProfilerP2pDescr_v4 p2p;
    ncclProfilerProxyOpDescr proxyOp;
    ncclProfilerProxyStepDescr proxyStep;
    ncclProfilerKernelChDescr kernelCh;
    ncclProfilerNetPluginDescr netPlugin;
  };
};

// State arguments: the same union in v4 and v5.
typedef union {
  struct {
    size_t transSize;
  } proxyStep;
  struct {
    int appendedProxyOps;
  } proxyCtrl;
  struct {
    void* data;
  } netPlugin;
  struct {
    uint64_t pTimer;
  } kernelCh;
} ncclProfilerEventStateArgs_t;

struct ncclProfiler_v5_t {
  const char* name;
  ncclResult_t (*init)(void** context, uint64_t commId, int* eActivationMask, const char* commName, int nNodes,
                       int nranks, int rank, ncclDebugLogger_t logfn);
  ncclResult_t (*startEvent)(void* context, void** eHandle, ncclProfilerEventDescr_v5_t* eDescr);
  ncclResult_t (*stopEvent)(void* eHandle);
  ncclResult_t (*recordEventState)(void* eHandle, ncclProfilerEventState_t eState,
                                   ncclProfilerEventStateArgs_t* eStateArgs);
  ncclResult_t (*finalize)(void* context);
};

struct ncclProfiler_v4_t {
  const char* name;
  ncclResult_t (*init)(void** context, int* eActivationMask, const char* commName, uint64_t commHash, int nNodes,
                       int nranks, int rank, ncclDebugLogger_t logfn);
  ncclResult_t (*startEvent)(void* context, void** eHandle, ncclProfilerEventDescr_v4_t* eDescr);
  ncclResult_t (*stopEvent)(void* eHandle);
  ncclResult_t (*recordEventState)(void* eHandle, ncclProfilerEventState_t eState,
                                   ncclProfilerEventStateArgs_t* eStateArgs);
  ncclResult_t (*finalize)(void* context);
};

}  // extern "C"
