// Builds one rank's trace in memory for the run tests: compute kernels,
// NCCL collectives (record_param_comms op + launch + kernel, or a bare
// kernel), Gloo ops on a worker thread and plain CPU ops. Times in ns.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "profiling/trace/Run.h"
#include "tests/support/AddEvent.h"

namespace fuselab::test {

class RankTraceBuilder {
 public:
  static constexpr int64_t kCommStream = 20;
  static constexpr int64_t kComputeStream = 7;

  RankTraceBuilder() {
    cpu_ = trace_.trackFor("100", "100");
    worker_ = trace_.trackFor("100", "101");
  }

  RankTraceBuilder& cpuOp(const std::string& name, int64_t start, int64_t dur) {
    addEvent(trace_, cpu_, name, start, dur, Category::CpuOp);
    return *this;
  }
  // A compute kernel on its own stream, launched just before it starts.
  RankTraceBuilder& compute(const std::string& name, int64_t start, int64_t dur) {
    const int64_t corr = next_corr_++;
    addEvent(trace_, cpu_, "cudaLaunchKernel", start - 2000, 1000, Category::CudaRuntime, corr);
    addEvent(trace_, gpu(kComputeStream), name, start, dur, Category::Kernel, corr);
    return *this;
  }
  // record_param_comms [issue, issue + 10 us] around the launch, then the
  // kernel [start, end) on the communication stream.
  RankTraceBuilder& nccl(const std::string& kernel, const std::string& collective, int64_t nelems, int64_t issue,
                         int64_t start, int64_t end, int group_size = 2, const std::string& dtype = "Float") {
    const int64_t corr = next_corr_++;
    nlohmann::json args = {{"Collective name", collective}, {"In msg nelems", nelems}, {"Out msg nelems", nelems},
                           {"dtype", dtype},           {"Group size", group_size},  {"Process Group Name", "0"}};
    Trace::NewEvent op = newEvent(trace_, "record_param_comms", issue, 10'000);
    op.args = trace_.addArgs(args.dump());
    trace_.append(cpu_, op);
    addEvent(trace_, cpu_, "cudaLaunchKernel", issue + 2000, 5000, Category::CudaRuntime, corr);
    addEvent(trace_, gpu(kCommStream), kernel, start, end - start, Category::Kernel, corr);
    return *this;
  }
  // An NCCL kernel with no CPU side captured.
  RankTraceBuilder& bareKernel(const std::string& kernel, int64_t start, int64_t end) {
    addEvent(trace_, gpu(kCommStream), kernel, start, end - start, Category::Kernel, next_corr_++);
    return *this;
  }
  // "gloo:all_reduce" on the Gloo worker thread, float input of `nelems`.
  RankTraceBuilder& gloo(const std::string& op, int64_t nelems, int64_t start, int64_t end) {
    nlohmann::json args = {{"Input Dims", {{nelems}}}, {"Input type", {"float"}}};
    Trace::NewEvent e = newEvent(trace_, "gloo:" + op, start, end - start, Category::UserAnnotation);
    e.args = trace_.addArgs(args.dump());
    trace_.append(worker_, e);
    return *this;
  }

  RankTrace build(int rank, int64_t base_time_ns = 0) {
    trace_.meta.base_time_ns = base_time_ns;
    trace_.finalize();
    RankTrace r;
    r.rank = rank;
    r.file = "rank-" + std::to_string(rank) + ".json";
    r.trace = std::move(trace_);
    return r;
  }

 private:
  uint32_t gpu(int64_t stream) { return trace_.trackFor("0", std::to_string(stream)); }

  Trace trace_;
  uint32_t cpu_ = 0;
  uint32_t worker_ = 0;
  int64_t next_corr_ = 1;
};

inline Run runOf(std::vector<RankTrace> ranks) {
  Run run;
  run.ranks = std::move(ranks);
  run.world_size = static_cast<int>(run.ranks.size());
  return run;
}

}  // namespace fuselab::test
