#include "app/report/RunReport.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "profiling/trace/DurationText.h"

namespace fuselab {

namespace {

constexpr int kJsonFormatVersion = 1;

std::string fileName(const std::string& path) { return std::filesystem::path(path).filename().string(); }

std::string cell(const std::string& s, size_t width) {
  return s.size() >= width ? s + " " : std::string(width - s.size(), ' ') + s;
}

template <typename T>
nlohmann::ordered_json orNull(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json causeJson(const ArrivalCause& c) {
  return {{"kind", std::string(arrivalCauseName(c.kind))},
          {"name", c.name},
          {"dur_ns", c.dur_ns},
          {"idle_ns", c.idle_ns},
          {"description", describeArrivalCause(c)}};
}

using json = nlohmann::ordered_json;

bool hasNccl(const RunAnalysis& a) {
  for (const RankNcclJoin& j : a.nccl)
    if (j.has_profile) return true;
  return false;
}

// "RING LL x2 3.1 us" (algorithm, protocol, channels, median channel time).
std::string ncclCell(const CollectiveStats& s) {
  if (!s.nccl) return "-";
  std::string text = s.nccl->algo + " " + s.nccl->proto + " x" + std::to_string(s.nccl->channels);
  if (s.nccl->has_channel_times()) text += " " + formatDuration(s.nccl->channel_median_ns);
  return text;
}

json ncclFiguresJson(const std::optional<NcclCollectiveFigures>& f) {
  if (!f) return {{"algo", nullptr}, {"proto", nullptr}, {"channels", nullptr}, {"channel_ns", nullptr}};
  json channel_ns = nullptr;
  if (f->has_channel_times())
    channel_ns = {{"min", f->channel_min_ns}, {"median", f->channel_median_ns}, {"max", f->channel_max_ns},
                  {"spread", f->channel_spread_ns}};
  return {{"algo", f->algo}, {"proto", f->proto}, {"channels", f->channels}, {"warps", f->warps},
          {"ranks_joined", f->ranks_joined}, {"channel_ns", channel_ns}};
}

json ncclJoinJson(const RankNcclJoin& j) {
  if (!j.has_profile) return nullptr;
  return {{"joined", j.joined}, {"gpu_collectives", j.gpu_collectives},
          {"clock_offset_ns", j.clock_offset_ns ? json(*j.clock_offset_ns) : json(nullptr)},
          {"residual_ns", j.residual_ns}, {"max_residual_ns", j.max_residual_ns},
          {"channels_outside", j.channels_outside}, {"warnings", j.warnings}};
}

void writeRanks(std::ostringstream& out, const RunAnalysis& a) {
  out << "Ranks:\n  " << cell("rank", 6) << cell("kernels", 9) << cell("GPU util", 10) << cell("compute", 9)
      << cell("non-comp", 10) << cell("idle", 8) << cell("comm", 11)
      << cell("waiting", 11) << cell("overlap", 9) << cell("late", 6) << "  file\n";
  for (const RankStats& r : a.ranks)
    out << "  " << cell(std::to_string(r.rank), 6) << cell(std::to_string(r.kernels), 9)
        << cell(formatPercent(r.utilization.fraction), 10) << cell(formatPercent(r.time.fraction(r.time.compute_ns)), 9)
        << cell(formatPercent(r.time.fraction(r.time.non_compute_ns)), 10)
        << cell(formatPercent(r.time.fraction(r.time.idle_ns)), 8) << cell(formatDuration(r.comm_ns), 11)
        << cell(formatDuration(r.wait_ns), 11)
        << cell(r.overlap_fraction ? formatPercent(*r.overlap_fraction) : "-", 9)
        << cell(std::to_string(r.late_count), 6) << "  " << fileName(r.file) << "\n";
}

void writeCollectives(std::ostringstream& out, const RunAnalysis& a, size_t top) {
  std::vector<const CollectiveStats*> rows;
  for (const CollectiveStats& s : a.collectives) rows.push_back(&s);
  const size_t n = std::min(top, rows.size());
  std::partial_sort(rows.begin(), rows.begin() + n, rows.end(),
                    [](const auto* x, const auto* y) { return x->wait_ns > y->wait_ns; });
  out << "Collectives matched across ranks: " << a.collectives.size() << "; longest waits (" << n << "):\n  "
      << cell("collective", 26) << cell("wait", 11) << cell("transfer", 11) << cell("busbw", 12) << cell("late", 6)
      << (hasNccl(a) ? cell("NCCL", 22) : "") << "  late rank before\n";
  for (size_t i = 0; i < n; ++i) {
    const CollectiveStats& s = *rows[i];
    std::ostringstream bw;
    if (s.busbw_gbps) bw.precision(3), bw << *s.busbw_gbps << " GB/s";
    out << "  " << cell(s.name + " " + s.group + " #" + std::to_string(s.index), 26) << cell(formatDuration(s.wait_ns), 11)
        << cell(formatDuration(s.transfer_ns), 11) << cell(s.busbw_gbps ? bw.str() : "-", 12)
        << cell(std::to_string(s.late_rank), 6) << (hasNccl(a) ? cell(ncclCell(s), 22) : "") << "  "
        << describeArrivalCause(s.late_rank_before) << "\n";
  }
}

// What each rank's side file joined, and how well its clock fit.
void writeNcclJoins(std::ostringstream& out, const RunAnalysis& a) {
  if (!hasNccl(a)) return;
  out << "NCCL side files (fuselab's NCCL profiler plugin):\n";
  for (size_t r = 0; r < a.nccl.size() && r < a.ranks.size(); ++r) {
    const RankNcclJoin& j = a.nccl[r];
    if (!j.has_profile) continue;
    out << "  rank " << a.ranks[r].rank << ": " << j.joined << " of " << j.gpu_collectives << " NCCL kernels joined";
    if (j.clock_offset_ns)
      out << ", GPU timer fitted to the trace within " << formatDuration(j.residual_ns) << " (largest "
          << formatDuration(j.max_residual_ns) << ")";
    if (j.channels_outside) out << ", " << j.channels_outside << " channel time(s) outside their kernel";
    out << "\n";
    for (const std::string& w : j.warnings) out << "  Warning: " << w << "\n";
  }
}

}  // namespace

std::string runText(const Run& run, const RunAnalysis& a, const RunReportOptions& options) {
  std::ostringstream out;
  out << "Run: " << run.ranks.size() << " rank(s) of world size " << run.world_size
      << (run.backend.empty() ? std::string() : ", backend " + run.backend) << "\n";
  if (!run.missing_ranks.empty()) out << "Missing ranks: " << run.missing_ranks.size() << "\n";
  for (const std::string& w : run.warnings) out << "Warning: " << w << "\n";
  out << "Alignment: " << alignMethodName(a.alignment.method) << ", residual skew "
      << formatDuration(a.alignment.residual_skew_ns) << " over " << a.alignment.collectives_used
      << " collective(s)";
  if (a.alignment.mismatched) out << ", " << a.alignment.mismatched << " mismatched pairing(s) dropped";
  out << "\n";
  if (!a.alignment.note.empty()) out << "  " << a.alignment.note << "\n";
  for (size_t r = 0; r < run.ranks.size(); ++r)
    if (a.alignment.offsets_ns[r] != 0)
      out << "  rank " << run.ranks[r].rank << " offset " << (a.alignment.offsets_ns[r] < 0 ? "-" : "+")
          << formatDuration(std::abs(a.alignment.offsets_ns[r])) << "\n";
  out << "\nVerdict: " << a.verdict.title << "\n  " << a.verdict.explanation << "\n\n";
  writeRanks(out, a);
  out << "\n";
  writeCollectives(out, a, options.top_collectives);
  writeNcclJoins(out, a);
  out << "\nStragglers:";
  if (a.stragglers.empty()) out << " none";
  out << "\n";
  for (const Straggler& s : a.stragglers)
    out << "  rank " << s.rank << ": last to arrive " << s.late_count << " time(s), holding collectives up "
        << formatDuration(s.wait_caused_ns) << "\n";
  return out.str();
}

nlohmann::ordered_json runJson(const Run& run, const RunAnalysis& a) {
  using json = nlohmann::ordered_json;
  const int64_t origin = alignedBeginNs(a);
  json j;
  j["format_version"] = kJsonFormatVersion;
  j["run"] = {{"world_size", run.world_size},
              {"backend", run.backend},
              {"rank_count", run.ranks.size()},
              {"missing_ranks", run.missing_ranks},
              {"warnings", run.warnings}};
  json offsets = json::object();
  for (size_t r = 0; r < run.ranks.size(); ++r) offsets[std::to_string(run.ranks[r].rank)] = a.alignment.offsets_ns[r];
  j["alignment"] = {{"method", std::string(alignMethodName(a.alignment.method))},
                    {"offsets_ns", std::move(offsets)},
                    {"residual_skew_ns", a.alignment.residual_skew_ns},
                    {"collectives_used", a.alignment.collectives_used},
                    {"mismatched", a.alignment.mismatched},
                    {"note", a.alignment.note}};
  j["verdict"] = {{"kind", std::string(runVerdictName(a.verdict.kind))},
                  {"title", a.verdict.title},
                  {"explanation", a.verdict.explanation},
                  {"late_rank", a.verdict.late_rank >= 0 ? json(a.verdict.late_rank) : json(nullptr)},
                  {"waited_share", a.verdict.waited_share},
                  {"transfer_share", a.verdict.transfer_share}};
  j["ranks"] = json::array();
  for (size_t pos = 0; pos < a.ranks.size(); ++pos) {
    const RankStats& r = a.ranks[pos];
    j["ranks"].push_back({{"rank", r.rank},
                          {"file", r.file},
                          {"kernels", r.kernels},
                          {"utilization", r.utilization.fraction},
                          {"compute_fraction", r.time.fraction(r.time.compute_ns)},
                          {"non_compute_fraction", r.time.fraction(r.time.non_compute_ns)},
                          {"idle_fraction", r.time.fraction(r.time.idle_ns)},
                          {"comm_ns", r.comm_ns},
                          {"wait_ns", r.wait_ns},
                          {"overlap_fraction", orNull(r.overlap_fraction)},
                          {"collectives", r.collectives},
                          {"late_count", r.late_count},
                          {"wait_caused_ns", r.wait_caused_ns},
                          {"idle", {{"host_wait_ns", r.idle.host_wait_ns},
                                    {"kernel_wait_ns", r.idle.kernel_wait_ns},
                                    {"other_ns", r.idle.other_ns}}},
                          {"nccl", pos < a.nccl.size() ? ncclJoinJson(a.nccl[pos]) : json(nullptr)}});
  }
  j["collectives"] = json::array();
  for (const CollectiveStats& s : a.collectives) {
    j["collectives"].push_back({{"name", s.name},
                                {"group", s.group},
                                {"index", s.index},
                                {"bytes", s.bytes >= 0 ? json(s.bytes) : json(nullptr)},
                                {"group_size", s.group_size},
                                {"ranks", s.arrivals.size()},
                                {"start_ns", s.start_ns - origin},
                                {"end_ns", s.end_ns - origin},
                                {"wait_ns", s.wait_ns},
                                {"transfer_ns", s.transfer_ns},
                                {"algbw_gbps", orNull(s.algbw_gbps)},
                                {"busbw_gbps", orNull(s.busbw_gbps)},
                                {"late_rank", s.late_rank},
                                {"late_rank_before", causeJson(s.late_rank_before)}});
    j["collectives"].back().update(ncclFiguresJson(s.nccl));
  }
  j["stragglers"] = json::array();
  for (const Straggler& s : a.stragglers)
    j["stragglers"].push_back({{"rank", s.rank}, {"late_count", s.late_count}, {"wait_caused_ns", s.wait_caused_ns}});
  return j;
}

}  // namespace fuselab
