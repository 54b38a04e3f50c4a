// The expectation engine against the real torch.profiler fixtures and small
// synthetic traces. Presets are read straight from assets/tutorial with
// nlohmann; expected numbers are derived from the raw fixture JSON here, not
// from the Trace model or the analysis.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/expectations/Expectations.h"
#include "profiling/analysis/expectations/ExpectationsJson.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/ObserverEffect.h"
#include "tests/support/AddEvent.h"
#include "tests/support/FixtureJson.h"
#include "tests/support/PresetExpectations.h"
#include "tests/support/SyntheticTrace.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

nlohmann::json readGzipJson(const std::filesystem::path& path) { return nlohmann::json::parse(test::gunzipFile(path)); }

using test::presetExpectations;

// Kernels per ProfilerStep#k in the raw file: kernels whose launch call (by
// correlation) starts inside the step.
std::vector<int> rawKernelsPerStep(const nlohmann::json& doc) {
  const test::RawStepKernels raw = test::rawStepKernels(doc);
  std::vector<int> counts(raw.steps.size(), 0);
  for (const auto& [name, step] : raw.kernels)
    if (step >= 0) ++counts[size_t(step)];
  return counts;
}

struct Checked {
  Trace trace;
  TraceAnalysis analysis;
  std::vector<Expectation> expectations;
  std::vector<ExpectationResult> results;
};

Checked check(const std::string& fixture, int step) {
  Checked c;
  c.trace = importChromeTrace(test::fixture(fixture));
  c.analysis = analyzeTrace(c.trace);
  c.expectations = presetExpectations(step);
  c.results = evaluateExpectations(c.trace, c.analysis, c.expectations);
  return c;
}

const ExpectationResult& resultOf(const Checked& c, ExpectationKind kind, size_t nth = 0) {
  for (size_t i = 0; i < c.expectations.size(); ++i)
    if (c.expectations[i].kind == kind && nth-- == 0) return c.results[i];
  throw std::runtime_error("the preset has no such expectation");
}

TEST(ExpectationsFixture, MlpEagerSatisfiesStep9) {
  const Checked c = check("mlp_eager.json.gz", 9);
  ASSERT_EQ(c.results.size(), c.expectations.size());
  for (size_t i = 0; i < c.results.size(); ++i)
    EXPECT_EQ(c.results[i].status, ExpectationStatus::Met)
        << c.expectations[i].text << "\n  measured: " << c.results[i].measured << "\n  " << c.results[i].explanation;

  const std::vector<int> raw = rawKernelsPerStep(readGzipJson(test::fixture("mlp_eager.json.gz")));
  ASSERT_EQ(raw.size(), 3u);
  const ExpectationResult& kernels = resultOf(c, ExpectationKind::KernelsPerStep);
  std::string expected_measured;
  for (size_t k = 0; k < raw.size(); ++k) expected_measured += (k ? ", " : "") + std::to_string(raw[k]);
  EXPECT_EQ(kernels.measured, expected_measured + " kernels per step");
  // Evidence: the first step's annotation and its kernels.
  ASSERT_FALSE(kernels.evidence.empty());
  EXPECT_EQ(c.trace.name(kernels.evidence.front()), "ProfilerStep#2");
  EXPECT_EQ(kernels.evidence.size(), size_t(1 + raw[0]));
  for (size_t i = 1; i < kernels.evidence.size(); ++i)
    EXPECT_EQ(c.trace.tracks[kernels.evidence[i].track].category[kernels.evidence[i].index], Category::Kernel);
}

TEST(ExpectationsFixture, LinearEagerSatisfiesStep8) {
  const Checked c = check("linear_eager.json.gz", 8);
  for (size_t i = 0; i < c.results.size(); ++i)
    EXPECT_EQ(c.results[i].status, ExpectationStatus::Met)
        << c.expectations[i].text << "\n  measured: " << c.results[i].measured << "\n  " << c.results[i].explanation;
  // The chain's evidence is aten::linear -> aten::t -> aten::addmm, in that order.
  const ExpectationResult& chain = resultOf(c, ExpectationKind::OpChain);
  ASSERT_EQ(chain.evidence.size(), 3u);
  EXPECT_EQ(c.trace.name(chain.evidence[0]), "aten::linear");
  EXPECT_EQ(c.trace.name(chain.evidence[1]), "aten::t");
  EXPECT_EQ(c.trace.name(chain.evidence[2]), "aten::addmm");
}

TEST(ExpectationsFixture, LinearFailsStep9WithTheRightExplanation) {
  const Checked c = check("linear_eager.json.gz", 9);
  const std::vector<int> raw = rawKernelsPerStep(readGzipJson(test::fixture("linear_eager.json.gz")));
  ASSERT_EQ(raw.front(), 1);

  const ExpectationResult& kernels = resultOf(c, ExpectationKind::KernelsPerStep);
  EXPECT_EQ(kernels.status, ExpectationStatus::NotMet);
  EXPECT_NE(kernels.explanation.find("ProfilerStep#2 has 1 kernels, expected 5 to 6"), std::string::npos)
      << kernels.explanation;
  EXPECT_NE(kernels.explanation.find("nvjet"), std::string::npos) << "names what the step does have";

  const ExpectationResult& chains = resultOf(c, ExpectationKind::OpChain);
  EXPECT_EQ(chains.status, ExpectationStatus::NotMet);
  EXPECT_EQ(chains.measured, "1, 1, 1 per step");
  EXPECT_NE(chains.explanation.find("expected exactly 3"), std::string::npos) << chains.explanation;

  const ExpectationResult& gelu = resultOf(c, ExpectationKind::KernelNameMatches, 1);
  EXPECT_EQ(gelu.status, ExpectationStatus::NotMet);
  EXPECT_NE(gelu.explanation.find("has 0 kernels matching 'gelu'"), std::string::npos) << gelu.explanation;

  // What is true of any linear trace still holds: its views launch nothing.
  EXPECT_EQ(resultOf(c, ExpectationKind::NoKernelUnderOp).status, ExpectationStatus::Met);
}

TEST(ExpectationsFixture, MlpFailsStep8ChainAndSaysWhereItBreaks) {
  const Checked c = check("mlp_eager.json.gz", 8);
  const ExpectationResult& chain = resultOf(c, ExpectationKind::OpChain);
  EXPECT_EQ(chain.status, ExpectationStatus::NotMet);
  EXPECT_NE(chain.explanation.find("aten::linear -> aten::t; nothing matching 'aten::addmm'"), std::string::npos)
      << chain.explanation;
  EXPECT_EQ(resultOf(c, ExpectationKind::KernelsPerStep).status, ExpectationStatus::NotMet);
}

// ---------------------------------------------------------------------------
// Synthetic traces: one expectation kind at a time.

Expectation make(ExpectationKind kind) {
  Expectation e;
  e.kind = kind;
  e.text = "test";
  return e;
}

ExpectationResult evaluate(const Trace& t, const Expectation& e) { return evaluateExpectation(t, analyzeTrace(t), e); }

TEST(ExpectationsSynthetic, CpuOnlyTraceCannotCheckGpuExpectations) {
  test::SyntheticTrace s;
  s.step(1, 0, 1000).cpu("aten::linear", 10, 500).cpu("aten::t", 20, 50).step(2, 2000, 1000);
  const Trace t = s.build();
  Expectation k = make(ExpectationKind::KernelsPerStep);
  k.min = 1;
  EXPECT_EQ(evaluate(t, k).status, ExpectationStatus::Unavailable);
  EXPECT_NE(evaluate(t, k).explanation.find("no GPU activity"), std::string::npos);
  // CPU structure is still checkable.
  Expectation absent = make(ExpectationKind::OpAbsent);
  absent.ops = {"aten::addmm"};
  EXPECT_EQ(evaluate(t, absent).status, ExpectationStatus::Met);
  absent.ops = {"aten::t"};
  const ExpectationResult r = evaluate(t, absent);
  EXPECT_EQ(r.status, ExpectationStatus::NotMet);
  ASSERT_EQ(r.evidence.size(), 1u);
  EXPECT_EQ(t.name(r.evidence[0]), "aten::t");
}

TEST(ExpectationsSynthetic, NoStepsMeansPerStepChecksCannotRun) {
  test::SyntheticTrace s;
  s.launched("gemm_kernel", 0, 10, 20, 30, 1);
  const Trace t = s.build();
  Expectation k = make(ExpectationKind::KernelsPerStep);
  k.min = 1;
  EXPECT_EQ(evaluate(t, k).status, ExpectationStatus::Unavailable);
  EXPECT_NE(evaluate(t, k).explanation.find("ProfilerStep"), std::string::npos);
  // Whole-trace counts still work.
  Expectation m = make(ExpectationKind::KernelNameMatches);
  m.pattern = "GEMM";  // case-insensitive
  m.per = CountPer::Trace;
  m.min = m.max = 1;
  EXPECT_EQ(evaluate(t, m).status, ExpectationStatus::Met);
}

TEST(ExpectationsSynthetic, KernelUnderViewOpIsReportedWithTheLaunch) {
  test::SyntheticTrace s;
  s.step(1, 0, 1000).cpu("aten::t", 10, 100).launched("copy_kernel", 20, 10, 40, 5, 7);
  const Trace t = s.build();
  Expectation e = make(ExpectationKind::NoKernelUnderOp);
  e.ops = {"aten::t"};
  const ExpectationResult r = evaluate(t, e);
  EXPECT_EQ(r.status, ExpectationStatus::NotMet);
  EXPECT_EQ(r.value, 1.0);
  std::vector<std::string> names;
  for (EventRef x : r.evidence) names.emplace_back(t.name(x));
  EXPECT_EQ(names, (std::vector<std::string>{"aten::t", "cudaLaunchKernel", "copy_kernel"}));
}

TEST(ExpectationsSynthetic, FirstStepLongerComparesWithTheMedianOfTheOthers) {
  test::SyntheticTrace s;
  s.step(1, 0, 900).step(2, 1000, 300).step(3, 2000, 100).step(4, 3000, 200);
  s.launched("k", 800, 10, 850, 10, 1).launched("k", 1010, 10, 1030, 10, 2);
  s.launched("k", 2010, 10, 2030, 10, 3).launched("k", 3010, 10, 3030, 10, 4);
  const Trace t = s.build();
  Expectation e = make(ExpectationKind::FirstStepLongerThanRest);
  e.factor = 4.0;  // 900 / median(300, 100, 200) = 4.5
  ExpectationResult r = evaluate(t, e);
  EXPECT_EQ(r.status, ExpectationStatus::Met);
  EXPECT_DOUBLE_EQ(*r.value, 4.5);
  e.factor = 5.0;
  EXPECT_EQ(evaluate(t, e).status, ExpectationStatus::NotMet);
  // Dead window: step start -> first GPU op: 850 vs median(30, 30, 30).
  e.measure = StepMeasure::DeadWindow;
  e.factor = 20;
  r = evaluate(t, e);
  EXPECT_EQ(r.status, ExpectationStatus::Met);
  EXPECT_NEAR(*r.value, 850.0 / 30.0, 1e-9);
}

TEST(ExpectationsSynthetic, CpuAndGpuTimeRatios) {
  test::SyntheticTrace s;
  // One step: cpu ops cover 600 ns, the GPU works 100 ns.
  s.step(1, 0, 1000).cpu("aten::mm", 0, 400).cpu("aten::add", 500, 200);
  s.launched("gemm", 100, 20, 300, 60, 1).launched("add", 550, 20, 800, 40, 2);
  const Trace t = s.build();
  Expectation cpu = make(ExpectationKind::CpuTimeExceedsGpuTime);
  cpu.factor = 6.0;
  ExpectationResult r = evaluate(t, cpu);
  EXPECT_EQ(r.status, ExpectationStatus::Met);
  EXPECT_DOUBLE_EQ(*r.value, 6.0);
  cpu.factor = 6.5;
  EXPECT_EQ(evaluate(t, cpu).status, ExpectationStatus::NotMet);
  Expectation gpu = make(ExpectationKind::GpuTimeReachesCpuTime);
  gpu.factor = 1.0;
  EXPECT_EQ(evaluate(t, gpu).status, ExpectationStatus::NotMet);
}

TEST(ExpectationsSynthetic, LaunchRecipeNamesTheCallsBeforeTheLaunch) {
  test::SyntheticTrace s;
  s.step(1, 0, 1000);
  s.cpu("aten::mm", 10, 200).cpu("cudaOccupancyMaxActiveBlocksPerMultiprocessor", 20, 10, Category::CudaRuntime);
  s.launched("ampere_bf16_s16816gemm_bf16_64x64", 40, 20, 100, 50, 1);
  s.cpu("aten::add", 300, 100).launched("vectorized_elementwise_kernel<CUDAFunctor_add>", 310, 20, 400, 10, 2);
  const Trace t = s.build();
  Expectation e = make(ExpectationKind::KernelLaunchedVia);
  e.pattern = "gemm";
  e.apis = {"cudaLaunchKernel", "cuLaunchKernelEx"};
  ExpectationResult r = evaluate(t, e);
  EXPECT_EQ(r.status, ExpectationStatus::Met) << r.explanation;
  EXPECT_NE(r.explanation.find("aten::mm: cudaOccupancyMaxActiveBlocksPerMultiprocessor -> cudaLaunchKernel (x1)"),
            std::string::npos)
      << r.explanation;
  e.apis = {"cuLaunchKernelEx"};
  r = evaluate(t, e);
  EXPECT_EQ(r.status, ExpectationStatus::NotMet);
  EXPECT_NE(r.explanation.find("cudaLaunchKernel x1"), std::string::npos) << r.explanation;
  e.pattern = "nvjet";
  r = evaluate(t, e);
  EXPECT_EQ(r.status, ExpectationStatus::NotMet);
  EXPECT_NE(r.explanation.find("No kernel matches 'nvjet'"), std::string::npos);
}

TEST(ExpectationsSynthetic, DurationSpreadShareAndFinalSync) {
  test::SyntheticTrace s;
  s.step(1, 0, 300).step(2, 300, 300).step(3, 600, 300);
  s.launched("gemm_a", 10, 5, 100, 200, 1).launched("gemm_a", 310, 5, 400, 210, 2);
  s.launched("gemm_a", 610, 5, 690, 205, 3).launched("add", 620, 5, 905, 90, 4);
  // The final synchronize spans 900..1100; the GPU works 905..995 (90 ns).
  s.cpu("cudaDeviceSynchronize", 900, 200, Category::CudaRuntime);
  const Trace t = s.build();

  Expectation spread = make(ExpectationKind::KernelDurationSpread);
  spread.pattern = "gemm";
  spread.min = 0.04;
  ExpectationResult r = evaluate(t, spread);
  EXPECT_EQ(r.status, ExpectationStatus::Met);
  EXPECT_DOUBLE_EQ(*r.value, 0.05);  // (210 - 200) / 200

  Expectation share = make(ExpectationKind::KernelTimeShare);
  share.pattern = "gemm";
  share.min = 0.9;
  r = evaluate(t, share);
  EXPECT_DOUBLE_EQ(*r.value, 615.0 / 705.0);
  EXPECT_EQ(r.status, ExpectationStatus::NotMet);

  Expectation sync = make(ExpectationKind::FinalSyncGpuShare);
  sync.min = 0.5;
  r = evaluate(t, sync);
  EXPECT_DOUBLE_EQ(*r.value, 90.0 / 200.0);
  EXPECT_EQ(r.status, ExpectationStatus::NotMet);
  ASSERT_FALSE(r.evidence.empty());
  EXPECT_EQ(t.name(r.evidence.front()), "cudaDeviceSynchronize");
}

TEST(ExpectationsSynthetic, ObserverEffectReadsTheCapturesOwnFigure) {
  test::SyntheticTrace s;
  s.step(1, 0, 300).step(2, 300, 300);
  Trace t = s.build();
  Expectation e = make(ExpectationKind::ObserverEffect);
  e.min = 1.1;
  ExpectationResult r = evaluate(t, e);  // not a fuselab capture: nothing to check against
  EXPECT_EQ(r.status, ExpectationStatus::Unavailable);
  EXPECT_NE(r.explanation.find("no observer-effect figure"), std::string::npos) << r.explanation;

  setObserverEffect(t, ObserverEffect{200.0, 300.0, 8});
  r = evaluate(t, e);
  EXPECT_EQ(r.status, ExpectationStatus::Met);
  EXPECT_DOUBLE_EQ(*r.value, 1.5);
  EXPECT_EQ(r.measured, "1.50x");
  e.min = 1.6;
  EXPECT_EQ(evaluate(t, e).status, ExpectationStatus::NotMet);
  e.min.reset();
  e.max = 1.2;  // a ceiling: "profiling costs at most 20%"
  EXPECT_EQ(evaluate(t, e).status, ExpectationStatus::NotMet);

  // Unprofiled blocks that spread wider than 1.5x: the ratio is noise, no verdict.
  setObserverEffect(t, ObserverEffect{200.0, 300.0, 24, {200.0, 340.0, 260.0}});
  r = evaluate(t, e);
  EXPECT_EQ(r.status, ExpectationStatus::Unavailable);
  EXPECT_EQ(r.measured, "1.50x");
  EXPECT_NE(r.explanation.find("this machine's noise"), std::string::npos) << r.explanation;
}

TEST(ExpectationsSynthetic, CriticalPathShareCountsTheChosenKindsOfTime) {
  Trace t;  // CPU-bound: the path is aten::linear (80), its launch (10) and the step's own tail (10)
  const uint32_t cpu = t.trackFor("1", "1"), gpu = t.trackFor("0", "7");
  test::addEvent(t, cpu, "ProfilerStep#1", 0, 100, Category::UserAnnotation);
  test::addEvent(t, cpu, "aten::linear", 0, 90, Category::CpuOp);
  test::addEvent(t, cpu, "cudaLaunchKernel", 10, 10, Category::CudaRuntime, 1);
  test::addEvent(t, gpu, "gemm", 25, 5, Category::Kernel, 1);
  t.finalize();
  Expectation cpu_side = make(ExpectationKind::CriticalPathShare);
  cpu_side.path = {PathKind::Cpu, PathKind::Launch};
  cpu_side.min = 0.9;
  ExpectationResult r = evaluate(t, cpu_side);
  EXPECT_EQ(r.status, ExpectationStatus::Met) << r.explanation;
  EXPECT_DOUBLE_EQ(*r.value, 1.0);
  EXPECT_EQ(r.measured, "cpu + launch: 100.0% of the path");
  ASSERT_FALSE(r.evidence.empty());
  EXPECT_EQ(t.name(r.evidence[0]), "aten::linear");  // the longest segment first
  cpu_side.path = {PathKind::Launch};
  r = evaluate(t, cpu_side);
  EXPECT_EQ(r.status, ExpectationStatus::NotMet);
  EXPECT_DOUBLE_EQ(*r.value, 0.1);
  Expectation gpu_side = make(ExpectationKind::CriticalPathShare);
  gpu_side.path = {PathKind::Gpu};
  gpu_side.max = 0.0;
  EXPECT_EQ(evaluate(t, gpu_side).status, ExpectationStatus::Met);
  gpu_side.rank = 1;  // a rank of a run, asked of one process's trace
  EXPECT_EQ(evaluate(t, gpu_side).status, ExpectationStatus::Unavailable);
}

TEST(ExpectationsText, ShortKernelNamesKeepWhatTellsKernelsApart) {
  EXPECT_EQ(shortKernelName("void at::native::vectorized_elementwise_kernel<8, at::native::BinaryFunctor<c10::BFloat16, "
                            "c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, "
                            "std::array<char*, 3ul> >(int, at::native::BinaryFunctor<c10::BFloat16>, std::array<char*, 3ul>)",
                            200),
            "vectorized_elementwise_kernel<8, BinaryFunctor<BFloat16, BFloat16, BFloat16, MulFunctor<float> >, "
            "array<char*, 3ul> >");
  EXPECT_EQ(shortKernelName("void fuselab::fusedmlp::(anonymous namespace)::smallMlpKernel<(fuselab::fusedmlp::ElemType)0>"
                            "(fuselab::fusedmlp::SmallArgs<(fuselab::fusedmlp::ElemType)0>)"),
            "smallMlpKernel<(ElemType)0>");
  EXPECT_EQ(shortKernelName("nvjet_sm90_tst_8x64_64x16_2x1_v_bz_bias_TNN"), "nvjet_sm90_tst_8x64_64x16_2x1_v_bz_bias_TNN");
  EXPECT_EQ(shortKernelName("abcdefghij", 8), "abcde...");
}

// ---------------------------------------------------------------------------
// Parsing.

std::string parseError(const std::string& json) {
  try {
    parseExpectation(nlohmann::json::parse(json), "f.json: expectations[0]");
  } catch (const ExpectationParseError& e) {
    return e.what();
  }
  return "";
}

TEST(ExpectationsJson, ParsesEveryKindsParameters) {
  const Expectation e = parseExpectation(
      nlohmann::json::parse(R"({"kind": "gpu_op_matches", "pattern": "DtoD", "category": "memcpy", "per": "trace",
                                "min": 1, "max": 2, "text": "t", "hint": "h"})"),
      "x");
  EXPECT_EQ(e.kind, ExpectationKind::GpuOpMatches);
  EXPECT_EQ(e.category, GpuOpFilter::Memcpy);
  EXPECT_EQ(e.per, CountPer::Trace);
  EXPECT_EQ(*e.min, 1.0);
  EXPECT_EQ(*e.max, 2.0);
  EXPECT_EQ(e.hint, "h");
  const Expectation v = parseExpectation(
      nlohmann::json::parse(R"({"kind": "verdict_is", "verdict": ["mixed", "compute_bound"], "text": "t"})"), "x");
  EXPECT_EQ(v.verdicts, (std::vector<VerdictKind>{VerdictKind::Mixed, VerdictKind::ComputeBound}));
  const Expectation path = parseExpectation(
      nlohmann::json::parse(
          R"({"kind": "critical_path_share", "path": ["cpu", "launch"], "rank": 1, "max": 0.5, "text": "t"})"),
      "x");
  EXPECT_EQ(path.path, (std::vector<PathKind>{PathKind::Cpu, PathKind::Launch}));
  EXPECT_EQ(path.rank, 1);
  for (ExpectationKind k : allExpectationKinds()) EXPECT_EQ(parseExpectationKind(expectationKindName(k)), k);
}

TEST(ExpectationsJson, ErrorsNameTheFieldAndTheProblem) {
  EXPECT_NE(parseError(R"({"kind": "kernel_count", "text": "t"})").find("f.json: expectations[0].kind: unknown kind "
                                                                        "'kernel_count'"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"kind": "kernels_per_step", "min": "5", "text": "t"})")
                .find("expectations[0].min: expected a number, got \"5\""),
            std::string::npos);
  EXPECT_NE(parseError(R"({"kind": "kernels_per_step", "min": 6, "max": 5, "text": "t"})").find("larger than max"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"kind": "kernels_per_step", "pattern": "x", "min": 1, "text": "t"})")
                .find("expectations[0].pattern: not a parameter of kernels_per_step"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"kind": "no_kernel_matching", "pattern": "(", "text": "t"})")
                .find("expectations[0].pattern: '(' is not a valid regular expression"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"kind": "kernels_per_step", "text": "t"})").find("needs min, max or both"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"kind": "diagnostic_present", "diagnostic": "slow", "text": "t"})")
                .find("unknown diagnostic 'slow'"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"kind": "op_absent", "ops": "aten::add"})").find("expectations[0].text: missing"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"kind": "kernel_time_share", "pattern": "x", "min": 70, "text": "t"})")
                .find("is a share"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"kind": "critical_path_share", "path": ["cpu", "kernel"], "min": 0.5, "text": "t"})")
                .find("expectations[0].path: unknown kind of time 'kernel' (choose cpu, launch, gpu, wait, idle, "
                      "collective)"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"kind": "critical_path_share", "path": "gpu", "min": 80, "text": "t"})").find("is a share"),
            std::string::npos);
}

}  // namespace
}  // namespace fuselab
