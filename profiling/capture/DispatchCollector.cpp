#include "profiling/capture/DispatchCollector.h"

#include <ATen/record_function.h>
#include <nlohmann/json.hpp>
#include <torch/csrc/profiler/util.h>

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <unordered_map>
#include <vector>
#include <cstring>
#include <ctime>
#include <fstream>
#include <mutex>
#include <thread>

namespace fuselab {
namespace {

constexpr int64_t kOpen = INT64_MIN;
constexpr const char* kUnnamed = "(unnamed: name table full)";
// Markers in the shape stream: a non-tensor input, a list of tensors.
constexpr int64_t kNotTensor = -1;
constexpr int64_t kTensorList = -2;
constexpr uint32_t kNoComms = UINT32_MAX;
// Communication fields kept per thread before the rest are dropped.
constexpr size_t kCommsPerThread = size_t(1) << 16;

struct Record {
  int64_t start_ns;
  int64_t end_ns;  // kOpen until the end callback
  uint32_t name;   // index into DispatchThreadBuffer::names
  uint32_t shapes_begin;
  uint32_t shapes_size;  // int64 values in shape_values; 0 = not recorded
  uint32_t comms;        // index into DispatchThreadBuffer::comms, kNoComms = none
  uint16_t depth;
  bool user_scope;
};

struct OpenEntry {
  const void* fn;  // the RecordFunction: alive until its end callback
  uint32_t record;
};

struct NameSlot {
  const char* ptr;
  uint32_t name;
};

struct NameText {
  uint32_t offset;
  uint32_t length;
};

template <class T>
std::unique_ptr<T[]> uninitialized(size_t n) {
  return std::make_unique_for_overwrite<T[]>(n == 0 ? 1 : n);
}

size_t nextPowerOfTwo(size_t n) {
  size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

int64_t osThreadId() { return static_cast<int64_t>(::syscall(SYS_gettid)); }

}  // namespace

// Everything one thread records. Written only by its thread (inside the
// callback, with `busy` set), read by the controlling thread after stop().
struct DispatchThreadBuffer {
  explicit DispatchThreadBuffer(const DispatchOptions& o)
      : record_capacity(o.events_per_thread),
        records(uninitialized<Record>(o.events_per_thread)),
        open_capacity(o.max_depth),
        open(uninitialized<OpenEntry>(o.max_depth)),
        slot_mask(nextPowerOfTwo(2 * o.names_per_thread) - 1),
        slots(std::make_unique<NameSlot[]>(slot_mask + 1)),  // zeroed: empty slots
        names_capacity(o.names_per_thread + 1),
        names(uninitialized<NameText>(names_capacity)),
        name_bytes_capacity(o.name_bytes_per_thread + std::strlen(kUnnamed)),
        name_bytes(uninitialized<char>(name_bytes_capacity)),
        shape_capacity(std::min<size_t>(o.shape_values_per_thread, UINT32_MAX)),
        shape_values(uninitialized<int64_t>(shape_capacity)) {
    // Name 0 is the placeholder for names that did not fit.
    size_t n = std::strlen(kUnnamed);
    std::memcpy(name_bytes.get(), kUnnamed, n);
    names[0] = {0, static_cast<uint32_t>(n)};
    names_size = 1;
    name_bytes_size = n;
  }

  std::atomic<bool> busy{false};
  int64_t tid = 0;
  std::string thread_name;

  size_t record_capacity;
  size_t size = 0;
  std::unique_ptr<Record[]> records;

  size_t open_capacity;
  size_t open_size = 0;
  std::unique_ptr<OpenEntry[]> open;

  size_t slot_mask;
  std::unique_ptr<NameSlot[]> slots;
  size_t names_capacity;
  size_t names_size = 0;
  std::unique_ptr<NameText[]> names;
  size_t name_bytes_capacity;
  size_t name_bytes_size = 0;
  std::unique_ptr<char[]> name_bytes;

  size_t shape_capacity;
  size_t shape_size = 0;
  std::unique_ptr<int64_t[]> shape_values;

  // record_param_comms' communication fields (torch.profiler's keys, values
  // as raw JSON text). Collectives are rare and slow (tens of us each), so
  // these allocate, unlike the rest of the hot path.
  std::vector<std::unordered_map<std::string, std::string>> comms;

  uint64_t dropped = 0;
  uint64_t dropped_shapes = 0;
  uint64_t unnamed = 0;

  std::string_view nameText(uint32_t id) const { return {name_bytes.get() + names[id].offset, names[id].length}; }
};

struct DispatchCollector::Session {
  DispatchOptions options;
  uint64_t generation = 0;
  at::CallbackHandle handle = at::INVALID_CALLBACK_HANDLE;
  bool recording = false;
  int64_t start_ns = 0;
  int64_t stop_ns = 0;
  std::vector<std::unique_ptr<DispatchThreadBuffer>> threads;  // guarded by g_registry_mutex while recording
};

namespace {

// The callbacks are plain function pointers, so their state is global: the
// generation of the session recording now (0 = none), and the registry that
// hands each thread its buffer.
std::atomic<uint64_t> g_generation{0};
std::atomic<uint64_t> g_next_generation{1};
std::atomic<bool> g_record_shapes{false};
std::mutex g_registry_mutex;
DispatchCollector::Session* g_session = nullptr;  // guarded by g_registry_mutex

struct ThreadSlot {
  DispatchThreadBuffer* buffer = nullptr;
  uint64_t generation = 0;         // session the buffer belongs to
  uint64_t failed_generation = 0;  // registration refused for this session
};
thread_local ThreadSlot t_slot;

std::string currentThreadName() {
  char buf[64] = {};
  if (pthread_getname_np(pthread_self(), buf, sizeof buf) != 0) return {};
  return buf;
}

// Slow path, once per thread and session: allocate and register the buffer.
DispatchThreadBuffer* registerThread(uint64_t generation) {
  if (t_slot.failed_generation == generation) return nullptr;
  std::lock_guard lock(g_registry_mutex);
  if (g_generation.load() != generation || !g_session || g_session->generation != generation) {
    t_slot.failed_generation = generation;
    return nullptr;
  }
  try {
    auto buffer = std::make_unique<DispatchThreadBuffer>(g_session->options);
    buffer->tid = osThreadId();
    buffer->thread_name = currentThreadName();
    g_session->threads.push_back(std::move(buffer));
  } catch (const std::bad_alloc&) {
    t_slot.failed_generation = generation;
    return nullptr;
  }
  t_slot.buffer = g_session->threads.back().get();
  t_slot.generation = generation;
  return t_slot.buffer;
}

// Marks this thread as inside the callback; nullptr when not recording.
// stop() clears g_generation and then waits for `busy` to drop: both sides
// use sequentially consistent accesses, so one of them sees the other.
DispatchThreadBuffer* enter() {
  uint64_t generation = g_generation.load(std::memory_order_acquire);
  if (generation == 0) return nullptr;
  DispatchThreadBuffer* b = t_slot.generation == generation ? t_slot.buffer : registerThread(generation);
  if (!b) return nullptr;
  b->busy.store(true, std::memory_order_seq_cst);
  if (g_generation.load(std::memory_order_seq_cst) != generation) {
    b->busy.store(false, std::memory_order_release);
    return nullptr;
  }
  return b;
}

void leave(DispatchThreadBuffer* b) { b->busy.store(false, std::memory_order_release); }

// Pointer lookup; the stored text is compared because annotation names live
// inside the RecordFunction, whose storage a later one may reuse.
uint32_t internName(DispatchThreadBuffer& b, const char* s) {
  if (!s) s = "";
  uint64_t h = (reinterpret_cast<uintptr_t>(s) >> 3) * 0x9E3779B97F4A7C15ull;
  size_t slot = static_cast<size_t>(h >> 32) & b.slot_mask;
  for (size_t probe = 0; probe <= b.slot_mask; ++probe, slot = (slot + 1) & b.slot_mask) {
    NameSlot& e = b.slots[slot];
    if (e.ptr == s) {
      const NameText& t = b.names[e.name];
      if (std::strncmp(b.name_bytes.get() + t.offset, s, t.length) == 0 && s[t.length] == '\0') return e.name;
    } else if (e.ptr != nullptr) {
      continue;
    }
    // Empty slot, or this pointer now holds other text: store the new text.
    size_t len = std::strlen(s);
    if (b.names_size == b.names_capacity || b.name_bytes_size + len > b.name_bytes_capacity) {
      ++b.unnamed;
      return 0;
    }
    std::memcpy(b.name_bytes.get() + b.name_bytes_size, s, len);
    uint32_t id = static_cast<uint32_t>(b.names_size++);
    b.names[id] = {static_cast<uint32_t>(b.name_bytes_size), static_cast<uint32_t>(len)};
    b.name_bytes_size += len;
    e = {s, id};
    return id;
  }
  ++b.unnamed;  // unreachable: the table has twice as many slots as names
  return 0;
}

// A tensor's entry in the shape stream: its rank, then its sizes. The rank
// word also carries the dtype (bits 8 and up: scalar type + 1).
int64_t tensorHeader(size_t rank, at::ScalarType type) {
  return static_cast<int64_t>(rank) | ((static_cast<int64_t>(type) + 1) << 8);
}
size_t headerRank(int64_t header) { return static_cast<size_t>(header & 0xff); }
// Kineto's spelling of the dtype ("c10::BFloat16", "float"), "" when not recorded.
std::string headerTypeName(int64_t header) {
  const int64_t type = (header >> 8) - 1;
  if (type < 0 || type >= static_cast<int64_t>(at::ScalarType::NumOptions)) return {};
  return std::string(c10::scalarTypeToTypeMeta(static_cast<at::ScalarType>(type)).name());
}

bool putTensorDims(DispatchThreadBuffer& b, size_t& pos, const at::Tensor& t) {
  if (!t.defined() || t.is_nested() || t.unsafeGetTensorImpl()->has_symbolic_sizes_strides()) {
    if (pos == b.shape_capacity) return false;
    b.shape_values[pos++] = kNotTensor;
    return true;
  }
  auto sizes = t.sizes();
  if (pos + 1 + sizes.size() > b.shape_capacity) return false;
  b.shape_values[pos++] = tensorHeader(sizes.size(), t.scalar_type());
  for (int64_t s : sizes) b.shape_values[pos++] = s;
  return true;
}

void recordShapes(DispatchThreadBuffer& b, Record& r, c10::ArrayRef<const c10::IValue> inputs) {
  size_t pos = b.shape_size;
  bool ok = true;
  try {
    for (const c10::IValue& v : inputs) {
      if (v.isTensor()) {
        ok = putTensorDims(b, pos, v.toTensor());
      } else if (v.isTensorList()) {
        auto list = v.toTensorList();
        ok = pos + 2 <= b.shape_capacity;
        if (ok) {
          b.shape_values[pos++] = kTensorList;
          b.shape_values[pos++] = static_cast<int64_t>(list.size());
        }
        for (size_t i = 0; ok && i < list.size(); ++i) ok = putTensorDims(b, pos, list.get(i));
      } else {
        ok = pos < b.shape_capacity;
        if (ok) b.shape_values[pos++] = kNotTensor;
      }
      if (!ok) break;
    }
  } catch (...) {
    ok = false;  // an exotic tensor without plain sizes: keep the event, skip its dims
  }
  if (!ok) {
    ++b.dropped_shapes;
    return;
  }
  r.shapes_begin = static_cast<uint32_t>(b.shape_size);
  r.shapes_size = static_cast<uint32_t>(pos - b.shape_size);
  b.shape_size = pos;
}

// What torch.profiler writes for a collective (record_param_comms, whose
// name sets isNcclMeta): the thread's ParamCommsDebugInfo as key -> raw JSON
// value, by LibTorch's own saveNcclMeta, so every key this LibTorch writes
// ("Collective name", "Process Group Name", "Group size", ...) is ours too.
void recordComms(DispatchThreadBuffer& b, Record& r, const at::RecordFunction& fn) {
  if (b.comms.size() >= kCommsPerThread) return;
  try {
    auto fields = torch::profiler::impl::saveNcclMeta(fn, torch::profiler::impl::SaveNcclMetaConfig());
    std::erase_if(fields, [](const auto& kv) { return kv.second.empty() || kv.second == "\"\""; });
    if (fields.empty()) return;
    r.comms = static_cast<uint32_t>(b.comms.size());
    b.comms.push_back(std::move(fields));
  } catch (...) {
    // No fields rather than no event.
  }
}

// An async event (c10d's collective work: started by the thread that issues
// it, ended by the one that completes it) keeps where its record is.
struct AsyncEnd final : at::ObserverContext {
  AsyncEnd(DispatchThreadBuffer* b, uint32_t r, uint64_t g) : buffer(b), record(r), generation(g) {}
  DispatchThreadBuffer* buffer;
  uint32_t record;
  uint64_t generation;
};

std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction& fn) {
  DispatchThreadBuffer* b = enter();
  if (!b) return nullptr;
  if (b->size == b->record_capacity || b->open_size == b->open_capacity) {
    ++b->dropped;
    leave(b);
    return nullptr;
  }
  Record& r = b->records[b->size];
  r.end_ns = kOpen;
  r.name = internName(*b, fn.name());
  r.shapes_begin = 0;
  r.shapes_size = 0;
  r.comms = kNoComms;
  r.depth = static_cast<uint16_t>(b->open_size);
  r.user_scope = fn.scope() == at::RecordScope::USER_SCOPE;
  if (g_record_shapes.load(std::memory_order_relaxed) && fn.needsInputs()) recordShapes(*b, r, fn.inputs());
  if (fn.isNcclMeta()) recordComms(*b, r, fn);
  std::unique_ptr<at::ObserverContext> context;
  if (fn.isAsync())  // ends on another thread: found through its context, not the open stack
    context = std::make_unique<AsyncEnd>(b, static_cast<uint32_t>(b->size), t_slot.generation);
  else
    b->open[b->open_size++] = {&fn, static_cast<uint32_t>(b->size)};
  ++b->size;
  // Stamped last so the collector's own work stays outside the event.
  r.start_ns = DispatchCollector::nowNs();
  leave(b);
  return context;
}

void onEnd(const at::RecordFunction& fn, at::ObserverContext* context) {
  int64_t now = DispatchCollector::nowNs();
  DispatchThreadBuffer* b = enter();
  if (!b) return;
  if (auto* async = dynamic_cast<AsyncEnd*>(context)) {
    // Its buffer is alive while this session records (enter() succeeded in it).
    if (async->generation == t_slot.generation)
      std::atomic_ref<int64_t>(async->buffer->records[async->record].end_ns).store(now, std::memory_order_relaxed);
    leave(b);
    return;
  }
  // Innermost first. An end without a start here (begun before start(),
  // dropped, or begun on another thread) matches nothing and is ignored.
  for (size_t i = b->open_size; i-- > 0;) {
    if (b->open[i].fn == &fn) {
      b->records[b->open[i].record].end_ns = now;
      b->open_size = i;
      break;
    }
  }
  leave(b);
}

std::string processName() {
  std::ifstream in("/proc/self/comm");
  std::string name;
  std::getline(in, name);
  return name.empty() ? "fuselab" : name;
}

template <class F>
void forEachRecord(const DispatchCollector::Session& s, F&& f) {
  for (const auto& t : s.threads)
    for (size_t i = 0; i < t->size; ++i) f(*t, t->records[i]);
}

// Decodes a record's shape stream into Kineto's "Input Dims" and "Input type"
// forms (one entry per input: a tensor's dtype, "TensorList", or "").
struct DecodedInputs {
  nlohmann::json dims = nlohmann::json::array();
  nlohmann::json types = nlohmann::json::array();
};
DecodedInputs decodeInputs(const DispatchThreadBuffer& b, const Record& r) {
  DecodedInputs out;
  const int64_t* v = b.shape_values.get() + r.shapes_begin;
  const int64_t* end = v + r.shapes_size;
  // One tensor (or a non-tensor marker); returns its dtype name.
  auto one = [&](nlohmann::json& into) {
    const int64_t header = *v++;
    nlohmann::json d = nlohmann::json::array();
    if (header == kNotTensor) {
      into.push_back(std::move(d));
      return std::string();
    }
    for (size_t k = 0; k < headerRank(header) && v < end; ++k) d.push_back(*v++);
    into.push_back(std::move(d));
    return headerTypeName(header);
  };
  while (v < end) {
    if (*v == kTensorList) {
      ++v;
      int64_t n = v < end ? *v++ : 0;
      nlohmann::json list = nlohmann::json::array();
      for (int64_t k = 0; k < n && v < end; ++k) one(list);
      out.dims.push_back(std::move(list));
      out.types.push_back("TensorList");
    } else {
      out.types.push_back(one(out.dims));
    }
  }
  return out;
}

// A record's args: "Input Dims" and "Input type" when shapes were recorded,
// and its communication fields (values parsed from their raw JSON text).
nlohmann::json argsJson(const DispatchThreadBuffer& b, const Record& r) {
  nlohmann::json args = nlohmann::json::object();
  if (r.shapes_size > 0) {
    DecodedInputs in = decodeInputs(b, r);
    args["Input Dims"] = std::move(in.dims);
    args["Input type"] = std::move(in.types);
  }
  if (r.comms != kNoComms)
    for (const auto& [key, raw] : b.comms[r.comms]) {
      auto value = nlohmann::json::parse(raw, nullptr, /*allow_exceptions=*/false);
      args[key] = value.is_discarded() ? nlohmann::json(raw) : std::move(value);
    }
  return args;
}

}  // namespace

DispatchCollector::DispatchCollector() = default;

DispatchCollector::~DispatchCollector() { stop(); }

int64_t DispatchCollector::nowNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

bool DispatchCollector::start(const DispatchOptions& options, std::string* error) {
  stop();
  auto session = std::make_unique<Session>();
  session->options = options;
  session->options.events_per_thread = std::max<size_t>(1, options.events_per_thread);
  session->options.max_depth = std::clamp<size_t>(options.max_depth, 1, UINT16_MAX);
  session->options.names_per_thread = std::max<size_t>(1, options.names_per_thread);
  {
    std::lock_guard lock(g_registry_mutex);
    if (g_session) {
      if (error) *error = "another capture is already recording the CPU side (one at a time per process)";
      return false;
    }
    session->generation = g_next_generation.fetch_add(1);
    g_session = session.get();
  }
  g_record_shapes.store(options.record_shapes);
  session->start_ns = nowNs();
  session->handle = at::addGlobalCallback(at::RecordFunctionCallback(&onStart, &onEnd)
                                              .needsInputs(options.record_shapes)
                                              .scopes({at::RecordScope::FUNCTION, at::RecordScope::USER_SCOPE}));
  session->recording = true;
  session_ = std::move(session);
  g_generation.store(session_->generation, std::memory_order_seq_cst);
  return true;
}

void DispatchCollector::stop() {
  if (!session_ || !session_->recording) return;
  g_generation.store(0, std::memory_order_seq_cst);
  at::removeCallback(session_->handle);
  session_->stop_ns = nowNs();
  std::lock_guard lock(g_registry_mutex);
  for (const auto& t : session_->threads)
    while (t->busy.load(std::memory_order_seq_cst)) std::this_thread::yield();
  g_session = nullptr;
  session_->recording = false;
}

bool DispatchCollector::recording() const { return session_ && session_->recording; }

void DispatchCollector::appendTo(Trace& trace, int64_t from_ns) const {
  if (!session_ || session_->recording) return;
  const std::string pid_token = std::to_string(::getpid());
  const uint32_t process_name = trace.strings.intern(processName());
  const uint32_t cpu_op = trace.strings.intern(categoryName(Category::CpuOp));
  const uint32_t user_annotation = trace.strings.intern(categoryName(Category::UserAnnotation));
  const uint32_t cpu_label = trace.strings.intern("CPU");
  for (const auto& t : session_->threads) {
    size_t first_kept = 0;
    while (first_kept < t->size && t->records[first_kept].start_ns < from_ns) ++first_kept;
    if (first_kept == t->size) continue;  // a thread seen only before from_ns gets no track
    const std::string tid_token = std::to_string(t->tid);
    uint32_t ti = trace.trackFor(pid_token, tid_token);
    {
      Track& track = trace.tracks[ti];
      track.kind = TrackKind::Cpu;
      if (track.process_name_id == 0) track.process_name_id = process_name;
      if (track.thread_name_id == 0)
        track.thread_name_id =
            trace.strings.intern("thread " + tid_token + " (" + (t->thread_name.empty() ? "unnamed" : t->thread_name) + ")");
      track.sort_index = t->tid;
      // As Kineto labels the host process and orders its threads.
      if (track.process_labels_id == 0) track.process_labels_id = cpu_label;
      if (!track.process_sort_index) track.process_sort_index = ::getpid();
      if (!track.thread_sort_index) track.thread_sort_index = t->tid;
    }
    std::vector<uint32_t> name_ids(t->names_size);
    for (size_t n = 0; n < t->names_size; ++n) name_ids[n] = trace.strings.intern(t->nameText(static_cast<uint32_t>(n)));
    for (size_t i = first_kept; i < t->size; ++i) {
      const Record& r = t->records[i];
      if (r.start_ns < from_ns) continue;
      Trace::NewEvent e;
      e.start_ns = r.start_ns;
      e.dur_ns = (r.end_ns == kOpen ? session_->stop_ns : r.end_ns) - r.start_ns;
      e.name_id = name_ids[r.name];
      e.category = r.user_scope ? Category::UserAnnotation : Category::CpuOp;
      e.cat_id = r.user_scope ? user_annotation : cpu_op;
      if (r.shapes_size > 0 || r.comms != kNoComms) e.args = trace.addArgs(argsJson(*t, r).dump());
      trace.append(ti, e);
    }
  }
}

std::vector<DispatchEvent> DispatchCollector::events() const {
  std::vector<DispatchEvent> out;
  if (!session_ || session_->recording) return out;
  forEachRecord(*session_, [&](const DispatchThreadBuffer& t, const Record& r) {
    DispatchEvent e;
    e.name = std::string(t.nameText(r.name));
    e.user_scope = r.user_scope;
    e.tid = t.tid;
    e.start_ns = r.start_ns;
    e.closed = r.end_ns != kOpen;
    e.end_ns = e.closed ? r.end_ns : session_->stop_ns;
    e.depth = r.depth;
    if (r.comms != kNoComms) e.comms_args = argsJson(t, r).dump();
    e.has_shapes = r.shapes_size > 0;
    if (e.has_shapes) {
      for (const auto& d : decodeInputs(t, r).dims) {
        std::vector<int64_t> dims;
        if (d.empty() || !d.front().is_array())  // a tensor list stays an empty entry
          for (const auto& x : d) dims.push_back(x.get<int64_t>());
        e.input_dims.push_back(std::move(dims));
      }
    }
    out.push_back(std::move(e));
  });
  return out;
}

uint64_t DispatchCollector::droppedEvents() const {
  uint64_t n = 0;
  if (session_ && !session_->recording)
    for (const auto& t : session_->threads) n += t->dropped;
  return n;
}

uint64_t DispatchCollector::droppedShapes() const {
  uint64_t n = 0;
  if (session_ && !session_->recording)
    for (const auto& t : session_->threads) n += t->dropped_shapes;
  return n;
}

uint64_t DispatchCollector::unnamedEvents() const {
  uint64_t n = 0;
  if (session_ && !session_->recording)
    for (const auto& t : session_->threads) n += t->unnamed;
  return n;
}

size_t DispatchCollector::eventCount() const {
  size_t n = 0;
  if (session_ && !session_->recording)
    for (const auto& t : session_->threads) n += t->size;
  return n;
}

size_t DispatchCollector::threadCount() const {
  return session_ && !session_->recording ? session_->threads.size() : 0;
}

}  // namespace fuselab
