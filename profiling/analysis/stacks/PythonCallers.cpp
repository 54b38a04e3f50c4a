#include "profiling/analysis/stacks/PythonCallers.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace fuselab {

std::optional<uint32_t> pythonFunctionCategory(const Trace& trace) { return trace.strings.find("python_function"); }

PythonCallers::PythonCallers(const Trace& trace, uint32_t track, uint32_t python_category)
    : trace_(trace), track_(trace.tracks[track]), track_index_(track), category_(python_category) {
  const Track& t = track_;
  for (uint32_t i = 0; i < t.size();) {
    uint32_t last = i + 1;
    while (last < t.size() && t.start_ns[last] == t.start_ns[i] && t.dur_ns[last] == t.dur_ns[i]) ++last;
    if (last - i > 1) orderTies(i, last);
    i = last;
  }
}

// Equal times leave the order open: callers first, the rest as they are.
void PythonCallers::orderTies(uint32_t first, uint32_t last) {
  struct Member {
    uint32_t event;
    std::optional<int64_t> caller;
    bool placed = false, visiting = false;
  };
  std::vector<Member> run;
  std::unordered_map<int64_t, size_t> member_of_id;
  bool any_caller = false;
  for (uint32_t i = first; i < last; ++i) {
    run.push_back({i, {}});
    if (!isFrame(i)) continue;
    const std::vector<ArgInt>& ids = ids_.read(trace_, {track_index_, i});
    if (ids[0].kind == ArgInt::Kind::Integer) member_of_id.emplace(ids[0].value, run.size() - 1);
    if (ids[1].kind == ArgInt::Kind::Integer) run.back().caller = ids[1].value;
    any_caller = any_caller || run.back().caller;
  }
  if (!any_caller) return;
  std::vector<uint32_t> order;
  auto place = [&](auto& self, Member& m) -> void {
    if (m.placed || m.visiting) return;  // visiting: ids that form a cycle
    m.visiting = true;
    if (m.caller)
      if (const auto c = member_of_id.find(*m.caller); c != member_of_id.end()) self(self, run[c->second]);
    m.placed = true;
    order.push_back(m.event);
  };
  for (Member& m : run) place(place, m);
  if (std::equal(order.begin(), order.end(), run.begin(), [](uint32_t e, const Member& m) { return e == m.event; }))
    return;
  if (order_.empty()) {
    order_.resize(track_.size());
    std::iota(order_.begin(), order_.end(), 0u);
  }
  std::copy(order.begin(), order.end(), order_.begin() + first);
}

PythonCallers::Place PythonCallers::place(uint32_t event, uint32_t open) {
  Place out{open == 0 ? kThread : open - 1, false};
  const std::vector<ArgInt>& ids = ids_.read(trace_, {track_index_, event});
  const ArgInt& caller = ids[1];
  if (caller.kind == ArgInt::Kind::Integer) {
    const auto at = std::find_if(open_.rbegin(), open_.rend(),
                                 [&](const OpenFrame& f) { return f.has_id && f.id == caller.value; });
    if (at == open_.rend()) out.caller_not_open = true;
    else if (at != open_.rbegin()) out.parent = at->position;  // time put it under another Python frame
  } else if (caller.kind != ArgInt::Kind::Null) {
    out.caller_not_open = true;  // no parent id, or not an integer
  }
  open_.push_back({open, ids[0].kind == ArgInt::Kind::Integer, ids[0].value});
  return out;
}

}  // namespace fuselab
