// What the plugin keeps per process: the options (read once), the live
// communicators, the finished ones' records, and the side file they all go
// to, `rank-N.nccl.json` in the options' folder (N: RANK, else the first
// communicator's rank). The file is rewritten atomically at each finalize,
// and at the process' exit for communicators never finalized (a job that
// does not destroy its process groups still leaves its records).
#pragma once

#include <filesystem>

#include "profiling/nccl_profiler/NcclCommRecorder.h"

namespace fuselab::nccl_profiler {

// A recorder for a new communicator; sets the events NCCL should report.
// nullptr (and a logged reason) when nothing is to be recorded.
CommRecorder* openCommunicator(const CommInfo& info, int* event_mask, ncclDebugLogger_t log, const char* version);

// Its records into the side file, then the recorder is gone.
void finalizeCommunicator(CommRecorder* comm);

// The side file this process writes (empty before any communicator).
std::filesystem::path sideFilePath();

}  // namespace fuselab::nccl_profiler
