#include "profiling/analysis/collectives/CollectiveEvents.h"

#include <gtest/gtest.h>

#include "tests/support/RankTraceBuilder.h"

namespace fuselab {
namespace {

using test::RankTraceBuilder;

TEST(CollectiveKind, FromNcclKernelsOfBothNamingSchemesGlooAndTorchNames) {
  EXPECT_EQ(collectiveKindFromText("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"),
            CollectiveKind::AllReduce);
  EXPECT_EQ(collectiveKindFromText("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
            CollectiveKind::AllGather);
  EXPECT_EQ(collectiveKindFromText("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"), CollectiveKind::ReduceScatter);
  EXPECT_EQ(collectiveKindFromText("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"),
            CollectiveKind::SendRecv);
  EXPECT_EQ(collectiveKindFromText("ncclKernel_Broadcast_RING_LL_Sum_int8_t"), CollectiveKind::Broadcast);
  EXPECT_EQ(collectiveKindFromText("ncclDevKernel_Reduce_Sum_f32_RING_LL"), CollectiveKind::Reduce);
  EXPECT_EQ(collectiveKindFromText("all_reduce"), CollectiveKind::AllReduce);
  EXPECT_EQ(collectiveKindFromText("allreduce"), CollectiveKind::AllReduce);
  EXPECT_EQ(collectiveKindFromText("_allgather_base"), CollectiveKind::AllGather);
  EXPECT_EQ(collectiveKindFromText("reduce_scatter_tensor"), CollectiveKind::ReduceScatter);
  EXPECT_EQ(collectiveKindFromText("all_to_allv"), CollectiveKind::AllToAll);
  EXPECT_EQ(collectiveKindFromText("barrier"), CollectiveKind::Barrier);
  EXPECT_EQ(collectiveKindFromText("ncclDevKernel_Generic"), CollectiveKind::Other);
  EXPECT_TRUE(isCollectiveKernelName("ncclKernel_AllReduce_RING_LL_Sum_float"));
  EXPECT_TRUE(isCollectiveKernelName("ncclDevKernel_Generic"));
  EXPECT_TRUE(isCollectiveKernelName("rccl_AllReduce_RING_LL_Sum_float"));
  EXPECT_FALSE(isCollectiveKernelName("nvjet_sm90_tst_128x64"));
  EXPECT_TRUE(isCpuCollectiveName("gloo:all_reduce"));
  EXPECT_FALSE(isCpuCollectiveName("nccl:all_reduce"));  // the CPU side of a GPU collective
}

TEST(CollectiveKind, NcclTestsBusBandwidthFactors) {
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(CollectiveKind::AllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(CollectiveKind::AllGather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(CollectiveKind::ReduceScatter, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(CollectiveKind::AllToAll, 2), 1.0 / 2);
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(CollectiveKind::Broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(CollectiveKind::Reduce, 8), 1.0);
  EXPECT_DOUBLE_EQ(*busBandwidthFactor(CollectiveKind::SendRecv, 2), 1.0);
  EXPECT_FALSE(busBandwidthFactor(CollectiveKind::Barrier, 8));
  EXPECT_FALSE(busBandwidthFactor(CollectiveKind::Other, 8));
  // nccl-tests sizes: the whole output of an all-gather, the input otherwise.
  EXPECT_EQ(collectiveBytes(CollectiveKind::AllGather, 1024, -1, 8), 8192);
  EXPECT_EQ(collectiveBytes(CollectiveKind::AllGather, 1024, 8192, 8), 8192);
  EXPECT_EQ(collectiveBytes(CollectiveKind::ReduceScatter, 8192, 1024, 8), 8192);
  EXPECT_EQ(collectiveBytes(CollectiveKind::AllReduce, -1, -1, 8), -1);
}

TEST(CollectiveKind, DtypeSizes) {
  EXPECT_EQ(dtypeBytes("Float"), 4);
  EXPECT_EQ(dtypeBytes("float"), 4);
  EXPECT_EQ(dtypeBytes("c10::BFloat16"), 2);
  EXPECT_EQ(dtypeBytes("Half"), 2);
  EXPECT_EQ(dtypeBytes("long"), 8);
  EXPECT_EQ(dtypeBytes("signed char"), 1);
  EXPECT_EQ(dtypeBytes("TensorList"), std::nullopt);
}

TEST(FindCollectives, NcclKernelsTakeTheirCpuSideMetadata) {
  RankTrace r = RankTraceBuilder()
                    .compute("gemm", 0, 50'000)
                    .nccl("ncclDevKernel_Generic", "allreduce", 1'000'000, 10'000, 60'000, 90'000, 8, "BFloat16")
                    .nccl("ncclKernel_AllGather_RING_LL_Sum_int8_t", "all_gather_into_tensor", 500, 100'000,
                          120'000, 130'000)
                    .bareKernel("ncclDevKernel_ReduceScatter_Sum_f32_RING_LL", 200'000, 210'000)
                    .build(0);
  auto found = findCollectives(r.trace);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].name, "all_reduce");  // from "Collective name": the kernel is ncclDevKernel_Generic
  EXPECT_EQ(found[0].group, "pg 0");
  EXPECT_EQ(found[0].group_size, 8);
  EXPECT_EQ(found[0].in_bytes, 2'000'000);
  EXPECT_TRUE(found[0].on_gpu);
  ASSERT_TRUE(found[0].launch.has_value());
  EXPECT_EQ(found[0].start_ns, 60'000);
  EXPECT_EQ(found[0].end_ns, 90'000);
  EXPECT_EQ(found[1].name, "all_gather");
  EXPECT_EQ(found[1].in_bytes, 2000);
  EXPECT_EQ(found[2].name, "reduce_scatter");  // no CPU side: the kernel's name says it
  EXPECT_EQ(found[2].group, "stream 20");
  EXPECT_EQ(found[2].in_bytes, -1);
  EXPECT_FALSE(found[2].launch.has_value());
}

TEST(FindCollectives, GlooOpsOnTheCpu) {
  RankTrace r = RankTraceBuilder().cpuOp("aten::mm", 0, 1000).gloo("all_reduce", 65536, 2000, 9000).build(0);
  auto found = findCollectives(r.trace);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].name, "all_reduce");
  EXPECT_EQ(found[0].group, "gloo");
  EXPECT_FALSE(found[0].on_gpu);
  EXPECT_EQ(found[0].in_bytes, 65536 * 4);
}

}  // namespace
}  // namespace fuselab
