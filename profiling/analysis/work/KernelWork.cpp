// attributeWork (KernelWork.h): GPU op -> launch call -> the innermost
// enclosing CPU op with a work model -> its share of that op's work.
#include "profiling/analysis/work/KernelWork.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "profiling/analysis/work/GraphReplayWork.h"
#include "profiling/analysis/work/KernelWorkInputs.h"
#include "profiling/analysis/common/NameFlags.h"
#include "profiling/analysis/work/OpWorkMemo.h"
#include "profiling/trace/TraceArgs.h"

namespace fuselab {

namespace {

uint64_t key(EventRef r) { return (uint64_t(r.track) << 32) | r.index; }

// Memcpy and memset: their own byte count.
void copyWork(const Trace& trace, EventRef op, GpuOpWork& w) {
  const auto bytes = argInt(trace, op, "bytes");
  if (!bytes || *bytes < 0) {
    w.note = "no byte count recorded";
    return;
  }
  const std::string_view name = trace.name(op);
  const bool device_to_device = name.find("DtoD") != std::string_view::npos;
  Work work;
  work.bytes = double(*bytes) * (device_to_device ? 2 : 1);
  work.precision = Precision::Unknown;
  w.work = work;
  w.note = device_to_device ? "device copy: bytes read + written" : "bytes transferred";
}

// A GPU op (index into the result) and the CPU event it is credited to: its
// launch call, then the source op of its work. Kept in vectors sorted by
// event, which the CPU tracks are walked in step with: no map lookups, one
// per CPU event before (cache misses that cost seconds at 10M events).
struct Credit {
  uint64_t event;
  size_t op;
  bool graph = false;  // launched by a CUDA graph replay
};

struct Source {
  EventRef op;
  std::vector<size_t> nested;  // sources nested in this one (indices), whose work it contains
  std::vector<size_t> kernels;  // indices into the result
};

int64_t durationOf(const Trace& trace, EventRef op) { return trace.tracks[op.track].dur_ns[op.index]; }

// The op's kernels grouped by the part of its work each does: a part whose
// kernel_name a kernel's name holds, else the unnamed part. Without parts in
// the model, or when its kernels do not fit them (another code path of the
// op, e.g. one kernel for all of it), the whole work is one unnamed part.
std::vector<KernelPart> partsFor(const OpWorkResult& r, const Trace& trace, const std::vector<EventRef>& gpu_ops,
                                 const Source& s, std::vector<std::vector<size_t>>& kernels_of) {
  auto partOf = [&](std::string_view name) {
    size_t unnamed = r.parts.size();
    for (size_t p = 0; p < r.parts.size(); ++p) {
      if (r.parts[p].kernel_name.empty()) unnamed = std::min(unnamed, p);
      else if (name.find(r.parts[p].kernel_name) != std::string_view::npos) return p;
    }
    return unnamed;
  };
  kernels_of.assign(r.parts.size(), {});
  bool fits = !r.parts.empty();
  for (size_t k : s.kernels) {
    const size_t p = partOf(trace.name(gpu_ops[k]));
    if (p == r.parts.size()) fits = false;
    else kernels_of[p].push_back(k);
  }
  for (const auto& ks : kernels_of) fits = fits && !ks.empty();
  if (fits) return r.parts;
  kernels_of = {s.kernels};
  return {KernelPart{"", *r.work}};
}

// Each kernel of the source op its part's work, split by duration between
// the kernels of one part; `share` is its fraction of the op's work.
void creditWork(const Trace& trace, const std::vector<EventRef>& gpu_ops, const Source& s, const OpWorkResult& r,
                std::vector<GpuOpWork>& out) {
  std::vector<std::vector<size_t>> kernels_of;
  const std::vector<KernelPart> parts = partsFor(r, trace, gpu_ops, s, kernels_of);
  const bool whole = parts.size() == 1 && parts[0].kernel_name.empty();
  const uint32_t op_kernels = static_cast<uint32_t>(s.kernels.size());
  for (size_t p = 0; p < parts.size(); ++p) {
    int64_t part_ns = 0;
    for (size_t k : kernels_of[p]) part_ns += durationOf(trace, gpu_ops[k]);
    std::string note = r.note;  // made once per part: the same for each of its kernels
    if (!whole)
      note += "; this kernel's part of it: " +
              (parts[p].kernel_name.empty() ? std::string("the rest") : parts[p].kernel_name);
    else if (op_kernels > 1)
      note += "; split over its " + std::to_string(op_kernels) + " kernels by duration";
    for (size_t k : kernels_of[p]) {
      GpuOpWork& w = out[k];
      const double of_part = part_ns > 0 ? double(durationOf(trace, gpu_ops[k])) / double(part_ns)
                                         : 1.0 / double(kernels_of[p].size());
      Work work = parts[p].work;
      work.flops *= of_part;
      work.bytes *= of_part;
      w.source = s.op;
      w.work = work;
      w.op_kernels = op_kernels;
      w.note = note;
      w.share = whole || !(r.work->flops > 0) ? of_part : work.flops / r.work->flops;
    }
  }
}

void sortByEvent(std::vector<Credit>& credits) {
  std::sort(credits.begin(), credits.end(),
            [](const Credit& a, const Credit& b) { return a.event != b.event ? a.event < b.event : a.op < b.op; });
}

// Credits -> one Source per event, in event order.
std::vector<Source> groupSources(std::vector<Credit> credits) {
  sortByEvent(credits);
  std::vector<Source> sources;
  for (size_t c = 0; c < credits.size(); ++c) {
    if (c == 0 || credits[c].event != credits[c - 1].event)
      sources.push_back({{uint32_t(credits[c].event >> 32), uint32_t(credits[c].event)}, {}, {}});
    sources.back().kernels.push_back(credits[c].op);
  }
  return sources;
}

// Launch call -> the result entries of the kernels it enqueued, sorted by
// event. Memcpy and memset get their own work here, and ops without a
// captured launch a note. Graph replays (marked in `replayed`): the op
// around the launch says nothing about the graph's kernels, except fuselab's
// own ops, which replay exactly their own launches.
std::vector<Credit> creditLaunches(const Trace& trace, const std::vector<EventRef>& gpu_ops,
                                   std::vector<GpuOpWork>& out, std::vector<uint8_t>& replayed) {
  std::vector<Credit> by_launch;
  const std::vector<uint8_t> graph_launch =
      nameFlags(trace.strings, [](std::string_view name) { return name.find("GraphLaunch") != std::string_view::npos; });
  for (size_t k = 0; k < gpu_ops.size(); ++k) {
    const EventRef op = gpu_ops[k];
    GpuOpWork& w = out[k];
    w.op = op;
    const Track& t = trace.tracks[op.track];
    const Category cat = t.category[op.index];
    if (cat == Category::Memcpy || cat == Category::Memset) {
      copyWork(trace, op, w);
      continue;
    }
    const LaunchLink* link = t.correlation[op.index] >= 0 ? trace.launchFor(t.correlation[op.index]) : nullptr;
    if (!link || !link->launch) {
      w.note = "launch call not captured";
    } else {
      const uint32_t launch_name = trace.tracks[link->launch->track].name_id[link->launch->index];
      const bool graph = link->gpu_ops.size() > 1 || graph_launch[launch_name];
      if (graph) w.note = "replayed from a CUDA graph: its ops' shapes are not recorded";
      replayed[k] = graph;
      by_launch.push_back({key(*link->launch), k, graph});
    }
  }
  sortByEvent(by_launch);
  return by_launch;
}

// The innermost CPU op with a work model among those enclosing event i of
// track t (`open`: the events open at i, outermost first); `innermost` is
// set to the name of the innermost enclosing CPU op, modelled or not.
std::optional<uint32_t> modelledEnclosingOp(const Trace& trace, const Track& t, const std::vector<uint32_t>& open,
                                            uint32_t i, std::unordered_map<uint32_t, bool>& modelled,
                                            std::string_view& innermost) {
  for (size_t a = open.size(); a-- > 0;) {
    const uint32_t e = open[a];
    if (t.category[e] != Category::CpuOp || t.end_ns(e) < t.end_ns(i)) continue;
    if (innermost.empty()) innermost = trace.strings.get(t.name_id[e]);
    auto [it, inserted] = modelled.try_emplace(t.name_id[e], false);
    if (inserted) it->second = hasWorkModel(trace.strings.get(t.name_id[e]));
    if (it->second) return e;
  }
  return std::nullopt;
}

// Per CPU track: the enclosing ops of each launch, innermost modelled one
// wins. Tracks and events are visited in key order, as by_launch is sorted.
// Launches that no modelled op encloses get a note saying why.
std::vector<Credit> creditEnclosingOps(const Trace& trace, const std::vector<Credit>& by_launch,
                                       std::vector<GpuOpWork>& out) {
  std::vector<Credit> by_source;
  std::unordered_map<uint32_t, bool> modelled;  // name id -> hasWorkModel
  auto next = by_launch.begin();
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.kind != TrackKind::Cpu) continue;
    std::vector<uint32_t> open;
    for (uint32_t i = 0; i < t.size(); ++i) {
      while (!open.empty() && t.end_ns(open.back()) <= t.start_ns[i]) open.pop_back();
      const uint64_t here = key({ti, i});
      while (next != by_launch.end() && next->event < here) ++next;
      auto last = next;
      while (last != by_launch.end() && last->event == here) ++last;
      if (next != last) {
        std::string_view innermost;
        const std::optional<uint32_t> source = modelledEnclosingOp(trace, t, open, i, modelled, innermost);
        const bool replay = next->graph;
        if (source && replay && !trace.strings.get(t.name_id[*source]).starts_with("fuselab::")) {
          // keeps the graph note set above
        } else if (source) {
          for (auto l = next; l != last; ++l) by_source.push_back({key({ti, *source}), l->op});
        } else if (!replay) {
          for (auto l = next; l != last; ++l)
            out[l->op].note =
                innermost.empty() ? "launched outside any CPU op" : "no work model for " + std::string(innermost);
        }
        next = last;
      }
      open.push_back(i);
    }
  }
  return by_source;
}

// Sources nested in each source, at any depth (sources are in event order).
void nestSources(const Trace& trace, std::vector<Source>& sources) {
  std::vector<size_t> stack;
  for (size_t k = 0; k < sources.size(); ++k) {
    const Source& s = sources[k];
    const Track& t = trace.tracks[s.op.track];
    while (!stack.empty() && (sources[stack.back()].op.track != s.op.track ||
                              t.end_ns(sources[stack.back()].op.index) <= t.start_ns[s.op.index]))
      stack.pop_back();
    for (size_t outer : stack) sources[outer].nested.push_back(k);
    stack.push_back(k);
  }
}

// Each source's work result: the memo's (one per op name and inputs), or,
// where inputs had to be completed, a copy in `completed` whose note says what
// was completed.
std::vector<const OpWorkResult*> workOfSources(const Trace& trace, const std::vector<EventRef>& gpu_ops,
                                               const std::vector<Source>& sources, OpWorkMemo& memo,
                                               std::deque<OpWorkResult>& completed) {
  InputCompleter completer(trace);
  std::vector<const OpWorkResult*> result_of(sources.size());
  // The args of ops spread over gigabytes of text: each read missed the
  // cache, so those of a few sources ahead are asked for early.
  auto prefetchArgs = [&](size_t k) {
    if (k >= sources.size()) return;
    const std::string_view args = trace.argsJson(trace.tracks[sources[k].op.track].args[sources[k].op.index]);
    for (size_t at = 0; at < args.size(); at += 64) __builtin_prefetch(args.data() + at);
  };
  for (size_t k = 0; k < sources.size(); ++k) {
    const Source& s = sources[k];
    prefetchArgs(k + 8);
    const std::string_view name = trace.name(s.op);
    const Track& t = trace.tracks[s.op.track];
    OpInputs inputs = parseOpInputs(trace.argsJson(t.args[s.op.index]));
    const std::string filled = completer.complete(s.op, name, trace.name(gpu_ops[s.kernels.front()]), inputs);
    result_of[k] = &memo.get(t.name_id[s.op.index], name, inputs);
    if (result_of[k]->work && !filled.empty()) {
      completed.push_back(*result_of[k]);
      completed.back().note += "; " + filled;
      result_of[k] = &completed.back();
    }
  }
  return result_of;
}

// Inner sources first: an op with sources nested in it (attention's math
// around its bmm and softmax) keeps for its own kernels what its work
// leaves after theirs, or none. Nested helpers (a backward's zero_, a
// copy) count apart: the op's model does not include them.
void creditInnerFirst(const Trace& trace, const std::vector<EventRef>& gpu_ops, const std::vector<Source>& sources,
                      const std::vector<const OpWorkResult*>& result_of, std::vector<GpuOpWork>& out) {
  std::vector<Work> credited(sources.size());
  for (size_t k = sources.size(); k-- > 0;) {
    const Source& s = sources[k];
    const OpWorkResult& r = *result_of[k];
    if (!r.work) {
      for (size_t i : s.kernels) {
        out[i].source = s.op;
        out[i].note = r.note;
      }
      continue;
    }
    if (s.nested.empty()) {
      creditWork(trace, gpu_ops, s, r, out);
      credited[k] = *r.work;
      continue;
    }
    Work rest = *r.work;
    for (size_t n : s.nested) {
      if (isMemoryHelperName(trace.name(sources[n].op))) continue;
      rest.flops -= credited[n].flops;
      rest.bytes -= credited[n].bytes;
    }
    if (rest.bytes > 0 && rest.flops >= 0) {
      creditWork(trace, gpu_ops, s, OpWorkResult{rest, r.note + "; less what the ops nested in it count", {}}, out);
      credited[k] = rest;
      continue;
    }
    for (size_t i : s.kernels)
      out[i].note = "inside " + std::string(trace.name(s.op)) + ", whose work a nested op already counts";
  }
}

}  // namespace

std::vector<GpuOpWork> attributeWork(const Trace& trace, const std::vector<EventRef>& gpu_ops) {
  std::vector<GpuOpWork> out(gpu_ops.size());
  std::vector<uint8_t> replayed(gpu_ops.size(), 0);
  const std::vector<Credit> by_launch = creditLaunches(trace, gpu_ops, out, replayed);
  std::vector<Source> sources = groupSources(creditEnclosingOps(trace, by_launch, out));
  nestSources(trace, sources);
  OpWorkMemo memo;
  std::deque<OpWorkResult> completed;  // results whose notes say what was completed
  const std::vector<const OpWorkResult*> result_of = workOfSources(trace, gpu_ops, sources, memo, completed);
  creditInnerFirst(trace, gpu_ops, sources, result_of, out);
  creditGraphReplays(trace, gpu_ops, replayed, out);
  return out;
}

}  // namespace fuselab
