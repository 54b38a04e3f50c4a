// The side files of fuselab's NCCL profiler plugin (profiling/nccl_profiler/):
// `rank-N.nccl.json` beside a rank's trace, one per process, holding each
// of its communicators (hash, name, rank, size) with their collectives and
// point-to-point operations as NCCL described them (seq, algorithm,
// protocol, channels, warps), each channel's start and stop on the GPU's
// global timer, and the host times of their enqueue on CLOCK_MONOTONIC.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fuselab {

inline constexpr const char* kNcclProfileFormat = "fuselab-nccl-profile";
inline constexpr int kNcclProfileVersion = 1;
inline constexpr const char* kNcclProfileSuffix = ".nccl.json";

struct NcclChannelTime {
  int channel = 0;
  int64_t start_ns = 0;  // GPU global timer
  int64_t stop_ns = 0;
};

struct NcclOperation {  // a collective, or a point-to-point operation
  bool p2p = false;
  uint64_t seq = 0;   // per communicator and func (collectives only)
  std::string func;   // NCCL's: "AllReduce", "AllGather", "Send", ...
  std::string datatype, algo, proto;
  int64_t count = 0;
  int root_or_peer = 0;
  int channels = 0, warps = 0;
  int64_t host_start_ns = -1;  // enqueue, CLOCK_MONOTONIC
  std::vector<NcclChannelTime> channel_times;  // by start
};

struct NcclDropped {  // what the plugin's pools could not hold, and what it could not finish
  uint64_t collectives = 0, p2p = 0, channels = 0, proxy_ops = 0, proxy_steps = 0, without_parent = 0,
           channels_unfinished = 0;
  uint64_t total() const {
    return collectives + p2p + channels + proxy_ops + proxy_steps + without_parent + channels_unfinished;
  }
};

struct NcclCommunicatorProfile {
  std::string comm_hash;  // as written, "0x..." (64 bits)
  std::string comm_name;
  int rank = 0, nranks = 0, nnodes = 0;
  std::string events;     // what was recorded ("coll,kernel")
  bool finalized = true;  // false: written at the process' exit
  NcclDropped dropped;
  std::vector<NcclOperation> collectives;  // by func, then seq
  std::vector<NcclOperation> p2p;          // in enqueue order
};

struct NcclProfile {
  std::filesystem::path file;
  std::string interface;  // "v5", "v4"
  int64_t pid = 0;
  int64_t realtime_minus_monotonic_ns = 0;  // CLOCK_REALTIME - CLOCK_MONOTONIC when the plugin started
  std::vector<NcclCommunicatorProfile> communicators;
  std::vector<std::string> warnings;  // records skipped and why, each naming the file
};

class NcclProfileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether the file's name says it is a side file (ends with .nccl.json).
bool isNcclProfileFile(const std::filesystem::path& file);

// Throws NcclProfileError (naming the file) when it cannot be read, is not
// JSON (a truncated file), or is not this format; bad records are skipped
// and named in warnings.
NcclProfile readNcclProfile(const std::filesystem::path& file);

}  // namespace fuselab
