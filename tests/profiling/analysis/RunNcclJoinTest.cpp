// NCCL side files joined to a run's collectives (NcclJoin.h, RunNccl.h), on
// the real two-GPU torch.profiler run (tests/data/nccl-2gpu-torch) with side
// files made from its traces here: each NCCL kernel's collective as the
// plugin records it (seq, algo, proto, two channels on a GPU timer offset
// from the trace's clock, an enqueue before the launch), after warm-up
// collectives the trace does not hold, as in a real job. The join must find
// the recorded ones among them, the clock offset, and survive bad files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "profiling/analysis/run/RunAnalysis.h"
#include "profiling/analysis/run/RunNcclChannels.h"
#include "profiling/analysis/run/RunView.h"
#include "profiling/trace/RunLoader.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int64_t kGpuTimerBehind = 1'234'567'890;  // trace clock - GPU timer
constexpr int64_t kFirstChannelAfterKernel = 700;

const char* ncclFunc(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::AllReduce: return "AllReduce";
    case CollectiveKind::AllGather: return "AllGather";
    case CollectiveKind::ReduceScatter: return "ReduceScatter";
    case CollectiveKind::Broadcast: return "Broadcast";
    default: return "SendRecv";
  }
}

struct SideFileRecipe {
  std::map<std::string, int> warmups = {{"pg 0", 5}, {"pg 1", 2}};  // per kind, before the recording
  std::string proto = "LL";
  int world_rank_shift = 0;   // writes another rank into the world communicator
  int nranks = 2;
  size_t drop_last = 0;       // recorded collectives left out of each kind
  bool scramble = false;      // channel times of another run: off by up to a few ms
};

json op(uint64_t seq, const char* func, int64_t kernel_start, int64_t kernel_end, int64_t launch,
       const SideFileRecipe& recipe) {
  const std::string& proto = recipe.proto;
  const int64_t off = recipe.scramble ? int64_t((seq * 7919) % 5) * 1'000'000 : 0;
  kernel_start += off, kernel_end += off;
  const int64_t t0 = kernel_start - kGpuTimerBehind + kFirstChannelAfterKernel + int64_t(seq % 3) * 40;
  const int64_t t1 = kernel_end - kGpuTimerBehind - 300;
  return {{"seq", seq}, {"func", func}, {"count", 1024}, {"datatype", "ncclBfloat16"}, {"root", 0},
          {"algo", "RING"}, {"proto", proto}, {"channels", 2}, {"warps", 16},
          {"host_start_ns", launch + 5'000'000 + int64_t(seq % 2) * 300},  // another host clock
          {"channel_times", json::array({{0, t0, t1}, {1, t0 + 900, t1 - 100}})}};
}

// rank-N.nccl.json for each rank of the run copied into `dir`.
void writeSideFiles(const Run& run, const fs::path& dir, const SideFileRecipe& recipe) {
  for (const RankTrace& r : run.ranks) {
    std::map<std::string, std::map<CollectiveKind, std::vector<const CollectiveEvent*>>> by_group;
    const std::vector<CollectiveEvent> cs = findCollectives(r.trace);
    for (const CollectiveEvent& c : cs)
      if (c.on_gpu) by_group[c.group][c.kernel_kind].push_back(&c);
    json comms = json::array();
    uint64_t hash = 0xa0;
    for (const auto& [group, kinds] : by_group) {
      json ops = json::array();
      for (const auto& [kind, list] : kinds) {
        const int w = recipe.warmups.at(group);
        for (int j = 0; j < w; ++j) {  // a millisecond apart, before the first recorded one
          const int64_t s = list.front()->start_ns - (w - j) * 1'000'000;
          ops.push_back(op(uint64_t(j), ncclFunc(kind), s, s + 50'000, s - 20'000, recipe));
        }
        for (size_t i = 0; i + recipe.drop_last < list.size(); ++i)
          ops.push_back(op(uint64_t(w) + i, ncclFunc(kind), list[i]->start_ns, list[i]->end_ns,
                           list[i]->launch_ns, recipe));
      }
      comms.push_back({{"comm_hash", "0x" + std::to_string(hash++)}, {"comm_name", ""},
                       {"rank", (r.rank + recipe.world_rank_shift) % 2}, {"nranks", recipe.nranks}, {"nnodes", 1},
                       {"events", "coll,kernel"}, {"finalized", true}, {"collectives", ops}, {"p2p", json::array()}});
    }
    const json file = {{"format", "fuselab-nccl-profile"}, {"version", 1}, {"interface", "v5"}, {"pid", 1},
                       {"clock", {{"realtime_ns", 2000}, {"monotonic_ns", 1000}}}, {"communicators", comms}};
    std::ofstream(dir / ("rank-" + std::to_string(r.rank) + ".nccl.json")) << file.dump();
  }
}

fs::path runWithSideFiles(const std::string& name, const SideFileRecipe& recipe) {
  const fs::path dir = test::scratchDir(name);
  for (const fs::path& f : traceFilesIn(test::dataDir("nccl-2gpu-torch") / "run")) fs::copy_file(f, dir / f.filename());
  writeSideFiles(loadRun(traceFilesIn(dir)), dir, recipe);
  return dir;
}

TEST(RunNcclJoin, EveryCollectiveJoinsItsRecordPastTheWarmUp) {
  const fs::path dir = runWithSideFiles("nccl_join_all", {});
  const fuselab::Run run = loadRun(traceFilesIn(dir));  // the side files are not taken for ranks
  ASSERT_EQ(run.ranks.size(), 2u);
  EXPECT_TRUE(run.warnings.empty()) << run.warnings.front();
  const RunAnalysis a = analyzeRun(run);
  ASSERT_EQ(a.nccl.size(), 2u);
  for (size_t r = 0; r < 2; ++r) {
    const RankNcclJoin& j = a.nccl[r];
    EXPECT_TRUE(j.warnings.empty()) << j.warnings.front();
    EXPECT_EQ(j.gpu_collectives, 24u);
    EXPECT_EQ(j.joined, 24u);
    ASSERT_TRUE(j.clock_offset_ns);
    EXPECT_NEAR(double(*j.clock_offset_ns), double(kGpuTimerBehind - kFirstChannelAfterKernel), 100);
    EXPECT_LE(j.residual_ns, 40);
    EXPECT_EQ(j.channels_outside, 0u);
    // The n-th recorded collective of a kind is seq warm-up + n.
    std::map<std::pair<std::string, CollectiveKind>, uint64_t> next;
    const auto& cs = a.collectives_per_rank[r];
    for (size_t i = 0; i < cs.size(); ++i) {
      if (!cs[i].on_gpu) continue;
      ASSERT_TRUE(j.details[i]) << i;
      const uint64_t warm = cs[i].group == "pg 0" ? 5 : 2;
      const uint64_t nth = next[std::make_pair(cs[i].group, cs[i].kernel_kind)]++;
      EXPECT_EQ(j.details[i]->seq, warm + nth) << i;
      ASSERT_EQ(j.details[i]->channel_times.size(), 2u);
      EXPECT_GE(j.details[i]->channel_times[0].start_ns, cs[i].start_ns - j.max_residual_ns);
      EXPECT_LE(j.details[i]->channel_times[0].stop_ns, cs[i].end_ns);
    }
  }
  size_t with_figures = 0;
  for (const CollectiveStats& s : a.collectives) {
    if (!s.nccl) continue;
    ++with_figures;
    EXPECT_EQ(s.nccl->algo, "RING");
    EXPECT_EQ(s.nccl->proto, "LL");
    EXPECT_EQ(s.nccl->ranks_joined, 2);
    EXPECT_EQ(s.nccl->channels, 2);
    EXPECT_LE(s.nccl->channel_min_ns, s.nccl->channel_median_ns);
    EXPECT_LE(s.nccl->channel_median_ns, s.nccl->channel_max_ns);
    EXPECT_GE(s.nccl->channel_spread_ns, 900);
  }
  EXPECT_EQ(with_figures, a.collectives.size());
  // LL on the 16 and 64 MiB all-reduces (the kernels' names say the same here).
  EXPECT_NE(a.verdict.explanation.find("12 all_reduce of 17 MB to 67 MB"), std::string::npos) << a.verdict.explanation;
  EXPECT_NE(a.verdict.explanation.find("on the LL protocol"), std::string::npos) << a.verdict.explanation;
}

TEST(RunNcclJoin, EachJoinedKernelsChannelsLandUnderItInTheMergedTrace) {
  const RunView view = openRunView(traceFilesIn(runWithSideFiles("nccl_join_lanes", {})));
  const std::vector<NcclKernelChannels> kernels = ncclChannelsOnLanes(view);
  ASSERT_EQ(kernels.size(), 48u);  // 24 collectives on each of the two ranks
  const Trace& merged = *view.merged.trace;
  for (const NcclKernelChannels& k : kernels) {
    ASSERT_EQ(k.channels.size(), 2u);
    EXPECT_EQ(k.channels[0].channel, 0);
    EXPECT_EQ(k.channels[1].channel, 1);
    const Track& t = merged.tracks[k.kernel.track];
    EXPECT_NE(merged.strings.get(t.name_id[k.kernel.index]).find("ncclDevKernel"), std::string::npos);
    // The first channel starts 700-780 ns after its kernel, less the fitted 740.
    EXPECT_NEAR(double(k.channels[0].start_ns - t.start_ns[k.kernel.index]), 0.0, 50.0);
    EXPECT_LE(k.channels[0].stop_ns, t.end_ns(k.kernel.index));
    EXPECT_NE(k.label.find(", RING LL"), std::string::npos) << k.label;
    EXPECT_EQ(k.begin_ns, std::min(k.channels[0].start_ns, k.channels[1].start_ns));
    EXPECT_EQ(k.end_ns, std::max(k.channels[0].stop_ns, k.channels[1].stop_ns));
  }
  for (size_t i = 1; i < kernels.size(); ++i) EXPECT_LE(kernels[i - 1].begin_ns, kernels[i].begin_ns);
}

TEST(RunNcclJoin, MissingRecordsAreNamedAndTheRestJoins) {
  SideFileRecipe recipe;
  recipe.warmups = {{"pg 0", 0}, {"pg 1", 0}};
  recipe.drop_last = 1;  // the side file ends before the trace does
  const RunAnalysis a = analyzeRun(loadRun(traceFilesIn(runWithSideFiles("nccl_join_fewer", recipe))));
  ASSERT_EQ(a.nccl.size(), 2u);
  ASSERT_EQ(a.nccl[0].warnings.size(), 5u);  // one per group and kind
  EXPECT_NE(a.nccl[0].warnings[0].find("not joined"), std::string::npos) << a.nccl[0].warnings[0];
  EXPECT_EQ(a.nccl[0].joined, 24u - 5u);
  EXPECT_LE(a.nccl[0].residual_ns, 40);  // the ones there joined to their own records
}

TEST(RunNcclJoin, RecordsThatDoNotFitTheKernelsAreNamed) {
  SideFileRecipe recipe;
  recipe.scramble = true;
  const RunAnalysis a = analyzeRun(loadRun(traceFilesIn(runWithSideFiles("nccl_join_misfit", recipe))));
  ASSERT_FALSE(a.nccl[0].warnings.empty());
  EXPECT_NE(a.nccl[0].warnings.back().find("fit the kernels poorly"), std::string::npos) << a.nccl[0].warnings.back();
}

TEST(RunNcclJoin, ACommunicatorOfAnotherSizeIsNamed) {
  SideFileRecipe recipe;
  recipe.nranks = 8;
  const RunAnalysis a = analyzeRun(loadRun(traceFilesIn(runWithSideFiles("nccl_join_size", recipe))));
  EXPECT_EQ(a.nccl[0].joined, 0u);
  ASSERT_FALSE(a.nccl[0].warnings.empty());
  EXPECT_NE(a.nccl[0].warnings[0].find("matches no process group"), std::string::npos) << a.nccl[0].warnings[0];
}

TEST(RunNcclJoin, BadSideFilesAreNamedAndTheRunStillOpens) {
  SideFileRecipe other_rank;
  other_rank.world_rank_shift = 1;
  const fs::path dir = runWithSideFiles("nccl_join_bad", other_rank);
  {  // rank 1's file truncated
    std::ifstream in(dir / "rank-1.nccl.json");
    std::string text((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(dir / "rank-1.nccl.json") << text.substr(0, text.size() / 2);
  }
  std::ofstream(dir / "rank-7.nccl.json") << "{}";
  const fuselab::Run run = loadRun(traceFilesIn(dir));
  ASSERT_EQ(run.ranks.size(), 2u);
  std::string all;
  for (const std::string& w : run.warnings) all += w + "\n";
  EXPECT_NE(all.find("rank-0.nccl.json: its world communicator is rank 1's"), std::string::npos) << all;
  EXPECT_NE(all.find("rank-1.nccl.json: not JSON"), std::string::npos) << all;
  EXPECT_NE(all.find("rank-7.nccl.json: NCCL side file of rank 7"), std::string::npos) << all;
  EXPECT_FALSE(run.ranks[0].nccl);
  EXPECT_FALSE(run.ranks[1].nccl);
  const RunAnalysis a = analyzeRun(run);
  EXPECT_EQ(a.collectives.size(), 24u);
  for (const CollectiveStats& s : a.collectives) EXPECT_FALSE(s.nccl);
}

}  // namespace
}  // namespace fuselab
