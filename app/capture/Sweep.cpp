#include "app/capture/Sweep.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include "app/capture/DistributedCapture.h"
#include "app/capture/WorkloadCapture.h"
#include "profiling/analysis/single/Analysis.h"
#include "profiling/capture_api/CaptureBackend.h"
#include "profiling/capture_api/WorkloadCatalog.h"
#include "profiling/trace/AtomicFile.h"
#include "profiling/trace/DurationText.h"

namespace fuselab {

void addTraceFigures(const Trace& trace, const SweepOptions& o, SweepPoint& point, SweepResult& result) {
  AnalysisOptions ao;
  ao.measured_ceilings = o.measured_ceilings;
  const TraceAnalysis a = analyzeTrace(trace, ao);
  point.verdict = std::string(verdictName(a.verdict.kind));
  if (a.gpu_op_count == 0) return;
  point.gpu_utilization = a.utilization.fraction;
  if (!result.ceilings) result.ceilings = a.roofline.ceilings;
  if (a.steps.empty()) return;
  double k = 0, l = 0, bytes = 0;
  bool bytes_known = true;
  for (const StepStats& s : a.steps) {
    k += double(s.kernels);
    l += double(s.launches);
    bytes += s.roofline.bytes;
    bytes_known &= s.roofline.unknown == 0 && s.roofline.known > 0;
  }
  point.kernels_per_forward = k / double(a.steps.size());
  point.launches_per_forward = l / double(a.steps.size());
  if (bytes_known) point.bytes_per_forward = bytes / double(a.steps.size());
}

const std::vector<std::string>& sweepVariantNames() {
  static const std::vector<std::string> names = {"eager", "graph", "fused"};
  return names;
}

namespace {

constexpr int64_t kMaxTokens = int64_t(1) << 24;

int64_t parseTokenCount(const std::string& text, const std::string& whole) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 1 || v > kMaxTokens)
    throw SweepError("--tokens '" + whole + "': '" + text + "' is not a token count from 1 to " +
                     std::to_string(kMaxTokens) + " (write FIRST:LAST for powers of two, or a list like 1,64,512)");
  return v;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

bool cancelled(const SweepProgress* p) { return p && p->cancel.load(); }

using Clock = std::chrono::steady_clock;

int64_t timeRound(Workload& w, int n) {
  auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) w.forward();
  w.synchronize();
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
}

// Untraced timing of one point; false when cancelled.
bool timeForwards(Workload& w, const SweepOptions& o, SweepProgress* progress, SweepPoint& point) {
  for (int i = 0; i < o.warmup; ++i) w.forward();
  w.synchronize();
  int n = 1;
  const int max_n = std::max(1, o.max_forwards_per_round);
  // Grow n until one round is long enough to time reliably.
  while (n < max_n) {
    if (cancelled(progress)) return false;
    const int64_t t = timeRound(w, n);
    if (t >= o.min_round_ns) break;
    const double scale = t > 0 ? 1.2 * double(o.min_round_ns) / double(t) : 2.0;
    n = int(std::min<double>(max_n, std::max<double>(2.0 * n, std::ceil(n * scale))));
  }
  std::vector<double> per_forward;
  for (int r = 0; r < std::max(1, o.rounds); ++r) {
    if (cancelled(progress)) return false;
    per_forward.push_back(double(timeRound(w, n)) / n);
    point.forwards_timed += n;
  }
  point.time_per_forward_ns = median(per_forward);
  return true;
}

void captureFigures(Workload& w, const SweepOptions& o, SweepPoint& point, SweepResult& result) {
  if (o.capture_steps <= 0) return;
  CaptureOptions co;
  co.warmup = 1;
  co.steps = o.capture_steps;
  co.gpu = o.base.device == Device::Cuda;
  try {
    CaptureResult c = captureBackend().capture(captureTarget(w), co, nullptr);
    for (const auto& m : c.messages) point.note += (point.note.empty() ? "" : "; ") + m;
    if (c.cancelled) return;
    addTraceFigures(c.trace, o, point, result);
  } catch (const CaptureError& e) {
    point.note += std::string(point.note.empty() ? "" : "; ") + "no utilization: " + e.what();
  }
}

// A CUDA graph replays the eager kernels, whose shapes the replay does not
// record: the graph points take the eager points' bytes.
void fillGraphBytes(SweepResult& r) {
  const SweepSeries* eager = nullptr;
  for (const SweepSeries& s : r.series)
    if (s.variant == "eager") eager = &s;
  if (!eager) return;
  for (SweepSeries& s : r.series) {
    if (s.variant != "graph") continue;
    for (SweepPoint& p : s.points) {
      if (p.bytes_per_forward) continue;
      for (const SweepPoint& e : eager->points)
        if (e.tokens == p.tokens && e.bytes_per_forward) p.bytes_per_forward = e.bytes_per_forward;
    }
  }
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string fixed(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

std::vector<int64_t> parseTokenRange(const std::string& text) {
  std::vector<int64_t> out;
  if (const auto colon = text.find(':'); colon != std::string::npos) {
    const int64_t first = parseTokenCount(text.substr(0, colon), text);
    const int64_t last = parseTokenCount(text.substr(colon + 1), text);
    if (first > last) throw SweepError("--tokens '" + text + "': the first count is larger than the last");
    for (int64_t t = first; t <= last; t *= 2) out.push_back(t);
    if (out.back() != last) out.push_back(last);
    return out;
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    out.push_back(parseTokenCount(text.substr(start, comma - start), text));
    start = comma + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

WorkloadParams sweepParams(const SweepOptions& o, const std::string& variant, int64_t tokens, std::string* skip_reason) {
  if (isDistributedWorkload(o.base.workload)) return runSweepParams(o, variant, tokens, o.base.ranks);
  const auto& names = sweepVariantNames();
  if (std::find(names.begin(), names.end(), variant) == names.end())
    throw SweepError("unknown sweep variant '" + variant + "' (choose eager, graph, fused)");
  const std::string& base = o.base.workload;
  if (base != "mlp" && base != "fused_mlp" && base != "linear")
    throw SweepError("the sweep varies the token count, and '" + base +
                     "' has none: use mlp or linear (fused_mlp runs as the 'fused' variant of mlp)");
  const auto& all = workloadCatalog();
  auto find = [&](const std::string& name) -> const WorkloadInfo* {
    for (const auto& w : all)
      if (w.name == name) return &w;
    return nullptr;
  };
  WorkloadParams p = o.base;
  p.graph = false;
  if (variant == "graph") {
    p.graph = true;
    if (p.device != Device::Cuda && skip_reason) *skip_reason = "CUDA graphs need a CUDA GPU (device " + deviceName(p.device) + ")";
  } else if (variant == "fused") {
    const std::string fused = base.starts_with("fused_") ? base : "fused_" + base;
    const WorkloadInfo* info = find(fused);
    if (!info) {
      if (skip_reason) *skip_reason = "no fused version of " + base + " (no workload named " + fused + ")";
    } else {
      if (fused != base) p.variant.clear();  // the fused workload's default variant
      p.workload = fused;
      if (info->cuda_only && p.device != Device::Cuda && skip_reason)
        *skip_reason = fused + " runs only on a CUDA GPU (device " + deviceName(p.device) + ")";
    }
  }
  if (p.workload == "linear") {
    p.batch = tokens;
  } else {
    p.batch = tokens;
    p.seq = 1;
  }
  return p;
}

SweepCrossover findCrossover(const std::vector<SweepPoint>& points) {
  SweepCrossover c;
  std::vector<const SweepPoint*> ok;
  for (const auto& p : points)
    if (p.ok && p.time_per_forward_ns > 0) ok.push_back(&p);
  std::sort(ok.begin(), ok.end(), [](const SweepPoint* a, const SweepPoint* b) { return a->tokens < b->tokens; });
  if (ok.size() < 2) {
    c.explanation = "needs at least two measured points";
    return c;
  }
  // The overhead floor: the fastest of the (up to) three smallest points,
  // which makes one noisy point matter less.
  c.floor_ns = ok[0]->time_per_forward_ns;
  for (size_t i = 1; i < std::min<size_t>(3, ok.size() - 1); ++i) c.floor_ns = std::min(c.floor_ns, ok[i]->time_per_forward_ns);
  const SweepPoint& last = *ok.back();
  c.slope_ns_per_token = last.time_per_forward_ns / double(last.tokens);
  const std::string floor_text = formatDuration(int64_t(c.floor_ns));
  if (last.time_per_forward_ns <= 2.0 * c.floor_ns) {
    c.explanation = "no crossover in range: at " + std::to_string(last.tokens) + " tokens a forward takes " +
                    formatDuration(int64_t(last.time_per_forward_ns)) + ", less than twice the " + floor_text +
                    " floor, so it is still overhead-bound";
    return c;
  }
  c.tokens = c.floor_ns / c.slope_ns_per_token;
  c.found = c.tokens >= double(ok.front()->tokens);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", c.tokens);
  if (!c.found) {
    c.explanation = "compute-bound over the whole range: the compute line through " + std::to_string(last.tokens) +
                    " tokens meets the " + floor_text + " floor below the smallest token count";
    return c;
  }
  c.explanation = "overhead floor " + floor_text + ", compute line " + fixed(c.slope_ns_per_token, 2) +
                  " ns/token through " + std::to_string(last.tokens) + " tokens (" +
                  formatDuration(int64_t(last.time_per_forward_ns)) + "): they meet at about " + buf +
                  " tokens. Below that a forward costs about the same whatever its size (overhead-bound); above "
                  "it the time grows with the tokens (compute-bound).";
  for (const SweepPoint* p : ok)
    if (p->gpu_utilization && *p->gpu_utilization >= 0.5) {
      c.explanation += " GPU utilization first reaches 50% at " + std::to_string(p->tokens) + " tokens.";
      break;
    }
  return c;
}

SweepResult runSweep(const SweepOptions& o, SweepProgress* progress) {
  if (isDistributedWorkload(o.base.workload)) return runRunSweep(o, progress);
  if (o.tokens.empty()) throw SweepError("no token counts to sweep");
  if (o.variants.empty()) throw SweepError("no variants to sweep (choose from eager, graph, fused)");
  for (int64_t t : o.tokens)
    if (t < 1) throw SweepError("token counts must be at least 1, got " + std::to_string(t));
  SweepResult result;
  result.device = deviceName(o.base.device);
  // Validate every variant before running anything.
  for (const auto& v : o.variants) {
    SweepSeries s;
    s.variant = v;
    s.params = sweepParams(o, v, o.tokens.front(), &s.skip_reason);
    s.skipped = !s.skip_reason.empty();
    result.series.push_back(std::move(s));
  }
  // Opens the capture module before the first point: without it none could
  // run, and its CaptureError says so once rather than in every point.
  if (std::any_of(result.series.begin(), result.series.end(), [](const SweepSeries& s) { return !s.skipped; }))
    captureBackend();

  const size_t total = o.variants.size() * o.tokens.size();
  size_t done = 0;
  for (SweepSeries& s : result.series) {
    if (s.skipped) {
      done += o.tokens.size();
      continue;
    }
    for (int64_t tokens : o.tokens) {
      if (cancelled(progress)) break;
      if (progress)
        progress->setPhase(double(done) / double(total), s.variant + ": " + std::to_string(tokens) + " tokens");
      SweepPoint point;
      point.tokens = tokens;
      try {
        const WorkloadParams params = sweepParams(o, s.variant, tokens, nullptr);
        std::unique_ptr<Workload> w = captureBackend().makeWorkload(params);
        if (!timeForwards(*w, o, progress, point)) break;
        point.flops_per_forward = w->flopsPerForward();
        captureFigures(*w, o, point, result);
        point.ok = true;
      } catch (const std::exception& e) {  // WorkloadError (shape rules, OOM), LibTorch errors
        point.error = e.what();
      }
      s.points.push_back(point);
      ++done;
      if (o.on_point) o.on_point(s, s.points.back());
    }
    s.crossover = findCrossover(s.points);
    if (cancelled(progress)) break;
  }
  fillGraphBytes(result);
  result.cancelled = cancelled(progress);
  if (progress) progress->setPhase(1.0, result.cancelled ? "cancelled" : "done");
  return result;
}

std::string sweepCsv(const SweepResult& r) {
  std::string out =
      "variant,workload,tokens,status,time_per_forward_us,gpu_utilization,kernels_per_forward,"
      "launches_per_forward,verdict,forwards_timed,note\n";
  for (const SweepSeries& s : r.series) {
    const std::string workload = s.params.workload + (s.params.graph ? " (CUDA graph)" : "");
    if (s.skipped) {
      out += csvField(s.variant) + "," + csvField(workload) + ",,skipped,,,,,,," + csvField(s.skip_reason) + "\n";
      continue;
    }
    for (const SweepPoint& p : s.points) {
      out += csvField(s.variant) + "," + csvField(workload) + "," + std::to_string(p.tokens) + ",";
      if (!p.ok) {
        out += "failed,,,,,,," + csvField(p.error) + "\n";
        continue;
      }
      out += "ok," + fixed(p.time_per_forward_ns / 1000.0, 3) + ",";
      out += (p.gpu_utilization ? fixed(*p.gpu_utilization, 4) : std::string()) + ",";
      out += (p.kernels_per_forward ? fixed(*p.kernels_per_forward, 2) : std::string()) + ",";
      out += (p.launches_per_forward ? fixed(*p.launches_per_forward, 2) : std::string()) + ",";
      out += csvField(p.verdict) + "," + std::to_string(p.forwards_timed) + "," + csvField(p.note) + "\n";
    }
  }
  return out;
}

void writeSweepCsv(const SweepResult& result, const std::filesystem::path& path) {
  writeFileAtomically(path, sweepCsv(result));
}

std::string sweepText(const SweepResult& r) {
  std::string out;
  for (const SweepSeries& s : r.series) {
    out += s.variant + " (" + s.params.workload + (s.params.graph ? ", CUDA graph" : "") + ")";
    if (s.skipped) {
      out += ": skipped: " + s.skip_reason + "\n\n";
      continue;
    }
    out += "\n";
    char line[160];
    std::snprintf(line, sizeof line, "  %8s  %12s  %8s  %8s  %8s  %s\n", "tokens", "time/fwd", "GPU util", "kernels",
                  "launches", "verdict");
    out += line;
    for (const SweepPoint& p : s.points) {
      if (!p.ok) {
        std::snprintf(line, sizeof line, "  %8lld  failed: ", static_cast<long long>(p.tokens));
        out += line + p.error + "\n";
        continue;
      }
      std::snprintf(line, sizeof line, "  %8lld  %12s  %8s  %8s  %8s  %s\n", static_cast<long long>(p.tokens),
                    formatDuration(int64_t(p.time_per_forward_ns)).c_str(),
                    p.gpu_utilization ? formatPercent(*p.gpu_utilization).c_str() : "-",
                    p.kernels_per_forward ? fixed(*p.kernels_per_forward, 1).c_str() : "-",
                    p.launches_per_forward ? fixed(*p.launches_per_forward, 1).c_str() : "-", p.verdict.c_str());
      out += line;
    }
    out += "  crossover: " + s.crossover.explanation + "\n\n";
  }
  if (r.cancelled) out += "(cancelled: the table holds the points measured before)\n";
  return out;
}

}  // namespace fuselab
