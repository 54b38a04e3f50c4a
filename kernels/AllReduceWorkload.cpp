// allreduce: one all-reduce per forward of a [batch, seq, dim] tensor on
// c10d (NCCL on cuda, one GPU per rank; Gloo on the cpu), the message
// nccl-tests times: with the NCCL profiler plugin loaded (capture --ranks
// does), each point of a sweep says which algorithm and protocol NCCL chose
// at that size. Joins its job as tp_mlp does (ProcessGroupSetup.h).
#include <ATen/DeviceAccelerator.h>
#include <ATen/ops/full.h>
#include <c10/core/InferenceMode.h>

#include <sstream>

#include "kernels/ProcessGroupSetup.h"
#include "kernels/TorchWorkload.h"
#include "kernels/WorkloadRegistry.h"
#include "profiling/capture_api/WorkloadCatalog.h"

namespace fuselab {

namespace {

int64_t elements(const WorkloadParams& p) { return p.batch * p.seq * p.dim; }

class AllReduceWorkload final : public TorchWorkload {
 public:
  AllReduceWorkload(const WorkloadParams& p, ProcessGroup pg) : p_(p), pg_(std::move(pg)) {
    const at::Device dev = p.device == Device::Cuda
                               ? at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(pg_.local_rank))
                               : at::Device(at::kCPU);
    translateOutOfMemory("creating the all-reduce's tensor", [&] {
      x_ = at::full({p.batch, p.seq, p.dim}, 1.0, at::TensorOptions().dtype(scalarType(p.dtype)).device(dev));
    });
  }
  ~AllReduceWorkload() override {
    try {
      pg_.group->shutdown();
    } catch (...) {  // a peer already gone
    }
  }

  std::string name() const override { return "allreduce"; }
  std::string regionLabel() const override { return "allreduce_fwd"; }
  std::string describe() const override {
    std::ostringstream o;
    o << "allreduce: rank " << pg_.rank << " of " << pg_.world_size << " (" << pg_.backend_name
      << (pg_.nccl_version.empty() ? "" : " " + pg_.nccl_version) << "), one all-reduce (sum) of [" << p_.batch
      << ", " << p_.seq << ", " << p_.dim << "] " << dtypeName(p_.dtype) << " on " << deviceName(p_.device) << ", "
      << elements(p_) * elementBytes(p_.dtype) << " bytes";
    return o.str();
  }
  void forward() override {
    translateOutOfMemory("running the all-reduce", [&] {
      c10::InferenceMode guard;
      std::vector<at::Tensor> tensors{x_};
      pg_.group->allreduce(tensors)->wait();  // on NCCL the stream waits, not the host
    });
  }
  void synchronize() override {
    if (p_.device == Device::Cuda) at::accelerator::synchronizeDevice(static_cast<c10::DeviceIndex>(pg_.local_rank));
  }
  // The sum's additions: (n-1) per element, over the job.
  double flopsPerForward() const override { return double(elements(p_)) * double(pg_.world_size - 1); }
  double weightBytes() const override { return 0; }
  std::string distributedInfoJson() const override { return fuselab::distributedInfoJson(pg_); }
  at::Tensor input() const override { return x_; }
  at::Tensor output() const override { return x_; }
  std::vector<at::Tensor> weights() const override { return {}; }

 private:
  WorkloadParams p_;
  ProcessGroup pg_;
  at::Tensor x_;
};

double estimateBytes(const WorkloadParams& p) { return double(elements(p)) * double(elementBytes(p.dtype)); }

std::unique_ptr<Workload> make(const WorkloadParams& p) {
  const RankEnv env = rankEnvOfJob(p);
  if (p.ranks != env.world_size)
    throw WorkloadError("allreduce was asked for " + std::to_string(p.ranks) + " ranks but runs in a job of " +
                        std::to_string(env.world_size));
  return std::make_unique<AllReduceWorkload>(p, joinProcessGroup(env, p.device));
}

}  // namespace

WorkloadEntry allReduceEntry() { return {catalogWorkload("allreduce"), estimateBytes, make}; }

}  // namespace fuselab
