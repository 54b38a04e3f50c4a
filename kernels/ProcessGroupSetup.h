// How a rank of a distributed workload joins its job, on LibTorch's c10d: the
// rendezvous from the environment the launcher sets (MASTER_ADDR,
// MASTER_PORT, RANK, WORLD_SIZE, as torchrun names them), a TCPStore, and
// ProcessGroupNCCL (device cuda, one GPU per rank) or ProcessGroupGloo (cpu).
#pragma once

#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <optional>
#include <string>

#include "profiling/capture_api/WorkloadParams.h"

namespace fuselab {

struct RankEnv {
  int rank = 0;
  int world_size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;  // 0: no store over TCP (a world of one, in this process)
  int local_rank = -1;  // LOCAL_RANK (torchrun: the rank on this node), -1: the rank; its GPU's index
};

// RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT, LOCAL_RANK; nullopt when RANK and
// WORLD_SIZE are both unset. Throws WorkloadError naming a malformed or
// missing variable.
std::optional<RankEnv> rankEnvFromEnvironment();

// The job a distributed workload's forward runs in: the environment's, else
// a world of one in this process when params.ranks is 1. Throws
// WorkloadError saying how to start more ranks (as processes).
RankEnv rankEnvOfJob(const WorkloadParams& params);

// How long joining and each collective may take before the rank gives up
// with an error (a peer that died or hangs), instead of c10d's 30 minutes.
inline constexpr std::chrono::seconds kProcessGroupTimeout{60};

struct ProcessGroup {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::Backend> backend;
  // The backend behind c10d's ProcessGroup, named "0" as torch.distributed
  // names the default group: its collectives go through the dispatcher
  // (c10d::allreduce_ ops in the trace, as PyTorch records them).
  c10::intrusive_ptr<c10d::ProcessGroup> group;
  std::string backend_name;  // "nccl" or "gloo"
  std::string nccl_version;  // "" for gloo
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;  // the GPU this rank uses on cuda
};

// Joins the job: a TCPStore (rank 0 serves it) or, for a world of one
// without a port, an in-process store; then NCCL on cuda:local_rank or Gloo over
// loopback. Throws WorkloadError with what failed.
ProcessGroup joinProcessGroup(const RankEnv& env, Device device);

// Kineto's "distributedInfo" object for this rank (one default group).
std::string distributedInfoJson(const ProcessGroup& pg);

// ProcessGroupNCCL for `pg` (ProcessGroupNccl.cpp; CUDA builds). Sets
// backend, backend_name and nccl_version.
void joinNccl(ProcessGroup& pg);

}  // namespace fuselab
