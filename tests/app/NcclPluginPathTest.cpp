// `fuselab --nccl-plugin-path` names a plugin NCCL can load (what a user
// puts in NCCL_PROFILER_PLUGIN), and nothing else on stdout.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "app/cli/Cli.h"
#include "tests/app/CliRun.h"

namespace fuselab {
namespace {

TEST(NcclPluginPath, PrintsAPluginWithNcclsEntryPoints) {
  const test::CliRun r = test::runFuselab({"--nccl-plugin-path"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_FALSE(r.out.empty());
  ASSERT_EQ(r.out.back(), '\n');
  const std::filesystem::path plugin = r.out.substr(0, r.out.size() - 1);
  EXPECT_TRUE(plugin.is_absolute()) << plugin;
  EXPECT_EQ(plugin.filename(), "libfuselab_nccl_profiler.so");
  void* handle = dlopen(plugin.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  EXPECT_NE(dlsym(handle, "ncclProfiler_v5"), nullptr);
  EXPECT_NE(dlsym(handle, "ncclProfiler_v4"), nullptr);
  dlclose(handle);
}

}  // namespace
}  // namespace fuselab
