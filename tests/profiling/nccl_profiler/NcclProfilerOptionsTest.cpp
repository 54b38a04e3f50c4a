#include <gtest/gtest.h>

#include <map>
#include <string>

#include "profiling/nccl_profiler/NcclProfilerApi.h"
#include "profiling/nccl_profiler/NcclProfilerOptions.h"

namespace fuselab::nccl_profiler {
namespace {

PluginOptions optionsOf(const std::map<std::string, std::string>& vars) {
  return pluginOptionsFrom([&](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

TEST(NcclProfilerOptions, DefaultsToCollectivesAndTheirChannels) {
  const PluginOptions o = optionsOf({});
  EXPECT_EQ(o.event_mask, ncclProfileColl | ncclProfileKernelCh);
  EXPECT_EQ(o.dir, ".");
  EXPECT_EQ(o.coll_capacity, 65536u);
  EXPECT_FALSE(o.process_rank);
  EXPECT_TRUE(o.warnings.empty());
}

TEST(NcclProfilerOptions, ReadsEventWordsFolderPoolAndRank) {
  const PluginOptions o = optionsOf({{"FUSELAB_NCCL_PROFILER_EVENTS", " p2p , proxy"},
                                     {"FUSELAB_NCCL_PROFILER_DIR", "/tmp/run"},
                                     {"FUSELAB_NCCL_PROFILER_POOL", "128"},
                                     {"RANK", "5"}});
  EXPECT_EQ(o.event_mask, ncclProfileP2p | ncclProfileProxyOp | ncclProfileProxyStep);
  EXPECT_EQ(eventWords(o.event_mask), "p2p,proxy");
  EXPECT_EQ(o.dir, "/tmp/run");
  EXPECT_EQ(o.coll_capacity, 128u);
  EXPECT_EQ(o.process_rank, 5);
  EXPECT_EQ(eventWords(optionsOf({{"FUSELAB_NCCL_PROFILER_EVENTS", "all"}}).event_mask), "coll,p2p,kernel,proxy");
}

TEST(NcclProfilerOptions, ChannelsAloneBringTheirCollectives) {
  EXPECT_EQ(optionsOf({{"FUSELAB_NCCL_PROFILER_EVENTS", "kernel"}}).event_mask,
            ncclProfileColl | ncclProfileKernelCh);
}

TEST(NcclProfilerOptions, BadValuesAreNamedAndReplaced) {
  const PluginOptions o = optionsOf({{"FUSELAB_NCCL_PROFILER_EVENTS", "coll,kernels"},
                                     {"FUSELAB_NCCL_PROFILER_POOL", "-3"},
                                     {"RANK", "two"}});
  EXPECT_EQ(o.event_mask, ncclProfileColl);
  EXPECT_EQ(o.coll_capacity, 65536u);
  EXPECT_FALSE(o.process_rank);
  ASSERT_EQ(o.warnings.size(), 2u);
  EXPECT_NE(o.warnings[0].find("unknown event \"kernels\""), std::string::npos);
  EXPECT_NE(o.warnings[1].find("\"-3\" is not a count"), std::string::npos);
  EXPECT_EQ(optionsOf({{"FUSELAB_NCCL_PROFILER_POOL", "99999999999"}}).warnings.size(), 1u);
}

}  // namespace
}  // namespace fuselab::nccl_profiler
