// Comparisons of repeated sides built in memory: a real change told apart
// from one within noise, GEMM kernels matched across a cuBLAS rename by the
// op that launched them, the verdict's change, and per-step idle times that
// add up to the analysis totals.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/compare/TraceCompare.h"
#include "profiling/analysis/compare/TraceCompareSteps.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "tests/support/AddEvent.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

// One op of a step: a cpu_op with "Input Dims" around the launch of one kernel.
struct OpSpec {
  std::string op, dims, kernel;
  int64_t kernel_ns = 0;
  int64_t host_ns = 10'000;  // CPU time of the op (the next op starts after it)
};

// A trace of steps, each running `ops` back to back on the CPU; every kernel
// starts 5 us after its launch or when the previous one ends.
Trace buildRun(const std::vector<std::vector<OpSpec>>& steps) {
  Trace t;
  const uint32_t cpu = t.trackFor("100", "100"), gpu = t.trackFor("0", "7");
  int64_t now = 1'000'000, gpu_free = 0, corr = 1;
  int k = 0;
  for (const auto& ops : steps) {
    const int64_t step_start = now;
    for (const OpSpec& o : ops) {
      if (!o.op.empty()) {  // else the launch has no enclosing op
        Trace::NewEvent e = test::newEvent(t, o.op, now, o.host_ns);
        if (!o.dims.empty()) e.args = t.addArgs("{\"Input Dims\": " + o.dims + "}");
        t.append(cpu, e);
      }
      test::addEvent(t, cpu, "cudaLaunchKernel", now + 1'000, 3'000, Category::CudaRuntime, corr);
      const int64_t start = std::max(now + 5'000, gpu_free);
      test::addEvent(t, gpu, o.kernel, start, o.kernel_ns, Category::Kernel, corr);
      gpu_free = start + o.kernel_ns;
      ++corr;
      now += o.host_ns;
    }
    now = std::max(now, gpu_free) + 1'000;  // the step ends after a synchronize
    test::addEvent(t, cpu, "ProfilerStep#" + std::to_string(k++), step_start, now - step_start,
                   Category::UserAnnotation);
    now += 2'000;
  }
  t.finalize();
  return t;
}

constexpr const char* kGemmDims = "[[8192, 768], [768, 3072]]";

// An MLP-like step: two GEMMs and an elementwise kernel; `gemm_ns` per GEMM.
std::vector<OpSpec> mlpStep(int64_t gemm_ns, const std::string& gemm_kernel = "nvjet_sm90_tst_256x128_TNT") {
  return {{"aten::mm", kGemmDims, gemm_kernel, gemm_ns},
          {"aten::mm", kGemmDims, gemm_kernel, gemm_ns},
          {"aten::gelu", "[[64, 128, 3072], []]", "vectorized_elementwise_kernel<GeluFunctor>", 8'000}};
}

// `traces` traces of 4 steps; step s of trace r has GEMMs of `gemm_ns` plus a jitter in [-2, +2] us.
struct Side {
  std::vector<Trace> traces;
  std::vector<TraceAnalysis> analyses;
  std::vector<CompareInput> inputs() const {
    std::vector<CompareInput> in;
    for (size_t i = 0; i < traces.size(); ++i) in.push_back({&traces[i], &analyses[i]});
    return in;
  }
};
Side side(int traces, int64_t gemm_ns, int jitter_phase, const std::string& gemm_kernel = "nvjet_sm90_tst_256x128_TNT") {
  Side s;
  for (int r = 0; r < traces; ++r) {
    std::vector<std::vector<OpSpec>> steps;
    for (int k = 0; k < 4; ++k) {
      const int64_t jitter = int64_t(((r * 4 + k) * 5 + jitter_phase) % 9 - 4) * 500;
      steps.push_back(mlpStep(gemm_ns + jitter, gemm_kernel));
    }
    s.traces.push_back(buildRun(steps));
  }
  for (const Trace& t : s.traces) s.analyses.push_back(analyzeTrace(t));
  return s;
}

const CompareRow& row(const TraceComparison& c, const std::string& prefix) {
  for (const CompareRow& r : c.rows)
    if (r.metric.rfind(prefix, 0) == 0) return r;
  throw std::runtime_error("no row " + prefix);
}

TEST(TraceCompareSides, ARealChangeAndOneWithinNoiseAreToldApart) {
  const Side a = side(3, 50'000, 0);
  const Side faster = side(3, 40'000, 3);  // GEMMs 10 us shorter, same jitter range
  const Side same = side(3, 50'000, 3);    // only the jitter differs
  const TraceComparison real = compareSides(a.inputs(), faster.inputs());
  const TraceComparison noise = compareSides(a.inputs(), same.inputs());

  EXPECT_EQ(real.a_traces, 3u);
  EXPECT_EQ(real.a_samples, 12u);
  EXPECT_EQ(row(real, "GPU busy").a_stats.n, 12u);
  EXPECT_EQ(row(real, "GPU busy").noise.outcome, NoiseOutcome::Lower);
  EXPECT_EQ(changeLabel(row(real, "GPU busy")), "faster (beyond noise)");
  EXPECT_EQ(row(real, "wall time").noise.outcome, NoiseOutcome::Lower);
  EXPECT_EQ(row(noise, "GPU busy").noise.outcome, NoiseOutcome::WithinNoise);
  EXPECT_EQ(changeLabel(row(noise, "GPU busy")), "within noise");
  EXPECT_EQ(row(noise, "wall time").noise.outcome, NoiseOutcome::WithinNoise);
  // Kernel counts never vary.
  EXPECT_EQ(row(real, "kernels / step").noise.outcome, NoiseOutcome::Same);
  EXPECT_EQ(*row(real, "kernels / step").a, 3.0);

  // Median and range of A's GEMM time per step: two GEMMs of 50 us +- 2 us.
  const SampleSummary& busy = row(real, "GPU busy").a_stats;
  EXPECT_GE(busy.min, 2 * 48'000 + 8'000);
  EXPECT_LE(busy.max, 2 * 52'000 + 8'000);
  EXPECT_LT(busy.min, busy.max);

  // The GEMM slots, per kernel: faster beyond noise in one, within noise in the other.
  for (const TraceComparison* c : {&real, &noise}) {
    ASSERT_EQ(c->kernels.size(), 3u);
    for (const CompareKernelRow& k : c->kernels) {
      if (k.key.op != "aten::mm") continue;
      EXPECT_EQ(k.a_stats.n, 12u);
      EXPECT_EQ(k.noise.outcome, c == &real ? NoiseOutcome::Lower : NoiseOutcome::WithinNoise) << k.label;
    }
  }
  const std::string text = comparisonText(real, "a", "b");
  EXPECT_NE(text.find("faster (beyond noise)"), std::string::npos) << text;
  EXPECT_NE(comparisonText(noise, "a", "b").find("within noise"), std::string::npos);
}

TEST(TraceCompareSides, RenamedGemmKernelsAreMatchedByTheirOp) {
  const Side a = side(1, 50'000, 0, "nvjet_sm90_tst_256x128_TNT");
  const Side b = side(1, 50'000, 0, "sm90_xmma_gemm_bf16bf16_tn_n");
  const TraceComparison c = compareSides(a.inputs(), b.inputs());
  ASSERT_EQ(c.kernels.size(), 3u);  // two GEMM slots (renamed on B) and the gelu
  int gemms = 0;
  for (const CompareKernelRow& k : c.kernels) {
    EXPECT_DOUBLE_EQ(k.a_per_step, 1.0) << k.label;
    EXPECT_DOUBLE_EQ(k.b_per_step, 1.0) << k.label;
    if (k.key.op != "aten::mm") {
      EXPECT_FALSE(k.renamed());
      continue;
    }
    ++gemms;
    EXPECT_EQ(k.key.shapes, "[[8192,768],[768,3072]]");
    EXPECT_TRUE(k.renamed());
    EXPECT_EQ(k.a_name, "nvjet_sm90_tst_256x128_TNT");
    EXPECT_EQ(k.b_name, "sm90_xmma_gemm_bf16bf16_tn_n");
    EXPECT_EQ(k.noise.outcome, NoiseOutcome::WithinNoise) << k.label;
  }
  EXPECT_EQ(gemms, 2);
  EXPECT_EQ(c.kernels[0].label.rfind("aten::mm [[8192,768],[768,3072]] #", 0), 0u) << c.kernels[0].label;
  const std::string text = comparisonText(c, "a", "b");
  EXPECT_NE(text.find("nvjet_sm90_tst_256x128_TNT -> sm90_xmma_gemm_bf16bf16_tn_n"), std::string::npos) << text;
}

// Three steps of one kernel launched from `op` ("" = outside any cpu_op),
// named gemm_a on A and gemm_b on B.
TraceComparison renamedSingleKernel(const std::string& op) {
  std::vector<std::vector<OpSpec>> steps(3, {{op, op.empty() ? "" : kGemmDims, "gemm_a", 20'000}});
  const Trace a = buildRun(steps);
  for (auto& s : steps) s[0].kernel = "gemm_b";
  const Trace b = buildRun(steps);
  return compareTraces(a, analyzeTrace(a), b, analyzeTrace(b));
}

TEST(TraceCompareSides, KernelsWithoutALaunchingOpAreMatchedByName) {
  const TraceComparison c = renamedSingleKernel("aten::mm");
  ASSERT_EQ(c.kernels.size(), 1u);
  EXPECT_TRUE(c.kernels[0].renamed());
  EXPECT_EQ(c.kernels[0].a_stats.n, 3u);
  EXPECT_EQ(c.kernels[0].noise.outcome, NoiseOutcome::Same);

  // Without the enclosing op the key is the kernel's own name: no match.
  const TraceComparison d = renamedSingleKernel("");
  ASSERT_EQ(d.kernels.size(), 2u);
  EXPECT_EQ(changeLabel(d.kernels[0]), d.kernels[0].a_name.empty() ? "only in B" : "only in A");
}

TEST(TraceCompareSides, VerdictAndGapClassesSayWhatChanged) {
  // A: tiny kernels behind long host ops (overhead-bound); B: long kernels (compute-bound).
  std::vector<std::vector<OpSpec>> small(4), big(4);
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 4; ++i) {
      small[k].push_back({"aten::add", "", "add_kernel", 2'000 + k * 100, 40'000});
      big[k].push_back({"aten::mm", kGemmDims, "gemm", 200'000 + k * 1'000, 10'000});
    }
  const Trace a = buildRun(small), b = buildRun(big);
  const TraceAnalysis aa = analyzeTrace(a), ba = analyzeTrace(b);
  ASSERT_EQ(aa.verdict.kind, VerdictKind::OverheadBound) << aa.verdict.explanation;
  ASSERT_EQ(ba.verdict.kind, VerdictKind::ComputeBound) << ba.verdict.explanation;
  const TraceComparison c = compareTraces(a, aa, b, ba);
  EXPECT_EQ(c.verdictLine(), "overhead-bound -> compute-bound");
  EXPECT_EQ(row(c, "idle: host wait").noise.outcome, NoiseOutcome::Lower);
  EXPECT_EQ(changeLabel(row(c, "idle: host wait")), "less (beyond noise)");
  EXPECT_EQ(row(c, "GPU utilization").noise.outcome, NoiseOutcome::Higher);
  EXPECT_NE(comparisonText(c, "a", "b").find("verdict: overhead-bound -> compute-bound"), std::string::npos);
  EXPECT_EQ(compareTraces(a, aa, a, aa).verdictLine(), "overhead-bound (unchanged)");
}

TEST(TraceCompareSides, PerStepIdleAddsUpToTheAnalysisTotals) {
  const Trace t = importChromeTrace(test::fixture("mlp_eager.json.gz"));
  const TraceAnalysis a = analyzeTrace(t);
  const std::vector<StepSample> samples = stepSamples(t, a);
  ASSERT_EQ(samples.size(), a.steps.size());
  double host = 0, kernel = 0, other = 0;
  for (const StepSample& s : samples) host += s.host_wait_ns, kernel += s.kernel_wait_ns, other += s.other_idle_ns;
  EXPECT_EQ(host, double(a.idle.host_wait_ns));
  EXPECT_EQ(kernel, double(a.idle.kernel_wait_ns));
  EXPECT_EQ(other, double(a.idle.other_ns));
}

TEST(TraceCompareSides, ASideNeedsATrace) {
  const Side a = side(1, 50'000, 0);
  EXPECT_THROW(compareSides(a.inputs(), {}), std::invalid_argument);
}

}  // namespace
}  // namespace fuselab
