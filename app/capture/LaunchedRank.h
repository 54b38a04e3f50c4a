// A rank started by another launcher (torchrun, or SLURM with the same
// variables): `torchrun --nproc-per-node G ... fuselab capture --workload
// tp_mlp ... --out DIR` runs fuselab once per rank, each with RANK,
// WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT set. Each captures
// itself (the workload joins the job from those variables) and writes
// DIR/rank-RANK.json.gz; `fuselab open DIR` shows the run once all wrote.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace fuselab {

struct LaunchedRank {
  int rank = 0;
  int world_size = 1;
};

// From RANK and WORLD_SIZE; nullopt when neither is set. Throws
// std::runtime_error naming a malformed or missing one.
std::optional<LaunchedRank> launchedRankFromEnvironment();

// DIR/rank-R.json.gz, DIR created when missing. Throws std::runtime_error
// when DIR is empty (a launched rank needs --out DIR), cannot be made, or
// already holds this rank's trace (an earlier run's: never overwritten).
std::filesystem::path launchedRankTraceFile(const std::string& dir, const LaunchedRank& rank);

}  // namespace fuselab
