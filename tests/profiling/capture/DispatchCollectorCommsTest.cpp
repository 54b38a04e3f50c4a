// record_param_comms as torch.profiler writes it: the same collectives
// (RECORD_PARAM_COMMS_DATA, as c10d's backends record them) under LibTorch's
// Kineto profiler (CPU activity, saved as its JSON) and under our collector
// give the same communication fields, keys and values.
#include <gtest/gtest.h>

#include <ATen/ops/ones.h>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/csrc/distributed/c10d/ParamCommsUtils.hpp>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <filesystem>
#include <map>
#include <set>

#include "profiling/capture/DispatchCollector.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

struct Collective {
  int seq;
  const char* name;
  int rank, start, stride, world;
  std::vector<int64_t> in_split, out_split;
  const char* pg_name;
  const char* pg_desc;
};

// An all-reduce in the default group, an all-to-all of 40 ranks with splits
// (lists past 30 entries are shortened), a send without a rank stride.
std::vector<Collective> collectives() {
  std::vector<int64_t> forty;
  for (int i = 0; i < 40; ++i) forty.push_back(i);
  return {{7, "allreduce", 0, 0, 1, 2, {}, {}, "0", "default_pg"},
          {8, "all_to_allv", 1, 0, 1, 40, forty, {1, 2}, "1", ""},
          {9, "send", 1, -1, -1, 2, {}, {}, "2", "undefined"}};
}

void issue(const Collective& c) {
  const at::Tensor t = at::ones({4, 4});
  RECORD_PARAM_COMMS_DATA(c.seq, std::make_tuple(std::string(c.pg_name), std::string(c.pg_desc)), t, t, c.rank,
                          c.name, 16, 16, at::kFloat, c.in_split, c.out_split, c.start, c.stride, c.world);
}

// "Collective name" -> args of every record_param_comms in the trace.
std::map<std::string, nlohmann::json> commsArgs(const Trace& t) {
  std::map<std::string, nlohmann::json> out;
  for (const Track& track : t.tracks)
    for (uint32_t i = 0; i < track.size(); ++i) {
      if (t.strings.get(track.name_id[i]) != "record_param_comms" || track.args[i].length == 0) continue;
      auto args = nlohmann::json::parse(t.argsJson(track.args[i]), nullptr, false);
      if (args.is_object() && args.contains("Collective name")) out[args["Collective name"].get<std::string>()] = args;
    }
  return out;
}

Trace underKineto() {
  using namespace torch::autograd::profiler;
  const torch::profiler::impl::ProfilerConfig config(torch::profiler::impl::ProfilerState::KINETO,
                                                     /*report_input_shapes=*/true, false, false, false, false);
  const std::set<torch::profiler::impl::ActivityType> cpu = {torch::profiler::impl::ActivityType::CPU};
  prepareProfiler(config, cpu);
  enableProfiler(config, cpu);
  for (const Collective& c : collectives()) issue(c);
  const auto result = disableProfiler();
  const auto file = test::scratchDir("DispatchCollectorComms-" + std::to_string(::getpid())) / "kineto.json";
  result->save(file.string());
  Trace t = importChromeTrace(file);
  std::filesystem::remove(file);
  return t;
}

Trace underOurCollector() {
  DispatchCollector collector;
  std::string error;
  EXPECT_TRUE(collector.start({}, &error)) << error;
  for (const Collective& c : collectives()) issue(c);
  collector.stop();
  Trace t;
  collector.appendTo(t);
  t.finalize();
  return t;
}

TEST(DispatchCollectorComms, RecordParamCommsCarriesTorchProfilersFields) {
  const auto theirs = commsArgs(underKineto());
  const auto ours = commsArgs(underOurCollector());
  // Per-op bookkeeping and inputs are Kineto's own (ids, shapes, strides).
  const std::set<std::string> not_communication = {"External id", "Record function id", "Ev Idx", "Input Dims",
                                                   "Input type", "Input Strides", "Concrete Inputs",
                                                   "Sequence number", "Fwd thread id"};
  ASSERT_EQ(theirs.size(), 3u) << "Kineto's trace lacks the collectives";
  for (const auto& [name, want] : theirs) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(ours.contains(name));
    const nlohmann::json& mine = ours.at(name);
    size_t compared = 0;
    for (const auto& [key, value] : want.items()) {
      if (not_communication.contains(key)) continue;
      ++compared;
      ASSERT_TRUE(mine.contains(key)) << key << "; ours: " << mine.dump();
      EXPECT_EQ(mine[key], value) << key;
    }
    for (const auto& [key, value] : mine.items())
      EXPECT_TRUE(want.contains(key) || not_communication.contains(key)) << key << " is ours alone";
    EXPECT_GE(compared, 9u) << want.dump();
  }
  EXPECT_EQ(ours.at("allreduce")["Process Group Ranks"], "[0, 1]");
  EXPECT_EQ(ours.at("allreduce")["Group size"], 2);
}

}  // namespace
}  // namespace fuselab
