#include "profiling/capture/CuptiRecords.h"

#include <cupti.h>
#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <unordered_set>
#include <nlohmann/json.hpp>

#include "profiling/capture/CuptiApiNames.h"

namespace fuselab::cupti {

namespace {

std::string_view memcpyKindName(uint32_t k) {
  switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "Unknown";
  }
}

std::string_view memoryKindName(uint32_t k) {
  switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return "Pageable";
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return "Pinned";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return "Device";
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return "Array";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return "Managed";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return "Device Static";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return "Managed Static";
    default: return "Unknown";
  }
}

int64_t streamValue(uint32_t stream_id) {
  // CUPTI marks "no stream" with all bits set; Kineto writes it as -1.
  return stream_id == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? -1 : int64_t(stream_id);
}

}  // namespace

std::string demangle(const char* name) {
  if (!name) return {};
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
  return (status == 0 && out) ? std::string(out.get()) : std::string(name);
}

std::string memcpyName(uint32_t copy_kind, uint32_t src_kind, uint32_t dst_kind) {
  std::string s = "Memcpy ";
  s += memcpyKindName(copy_kind);
  s += " (";
  s += memoryKindName(src_kind);
  s += " -> ";
  s += memoryKindName(dst_kind);
  s += ")";
  return s;
}

std::string memsetName(uint32_t memory_kind) {
  return "Memset (" + std::string(memoryKindName(memory_kind)) + ")";
}

std::string_view syncName(uint32_t t) {
  switch (t) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return "Event Sync";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return "Stream Wait Event";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return "Stream Sync";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return "Context Sync";
    default: return "Unknown Sync";
  }
}

void RecordConverter::clear() { *this = RecordConverter(); }

uint32_t RecordConverter::intern(std::string_view s) {
  if (auto it = name_index_.find(std::string(s)); it != name_index_.end()) return it->second;
  auto id = static_cast<uint32_t>(names_.size());
  names_.emplace_back(s);
  name_index_.emplace(names_.back(), id);
  return id;
}

uint32_t RecordConverter::kernelName(const char* mangled) {
  if (auto it = kernel_names_.find(mangled); it != kernel_names_.end()) return it->second;
  uint32_t id = intern(mangled ? demangle(mangled) : std::string("(unnamed kernel)"));
  kernel_names_.emplace(mangled, id);
  return id;
}

bool RecordConverter::gpuTimes(uint64_t start, uint64_t end, CuptiEvent& e) {
  // Both zero: CUPTI could not time it (still running at a forced flush).
  if (start == 0 || end < start) {
    ++incomplete_;
    return false;
  }
  e.start_ns = int64_t(start);
  e.end_ns = int64_t(end);
  return true;
}

void RecordConverter::addBuffer(const uint8_t* buffer, size_t valid_bytes) {
  if (!buffer || valid_bytes == 0) return;
  CUpti_Activity* record = nullptr;
  // cuptiActivityGetNextRecord takes a non-const buffer but only reads it.
  auto* data = const_cast<uint8_t*>(buffer);
  while (cuptiActivityGetNextRecord(data, valid_bytes, &record) == CUPTI_SUCCESS) add(record);
}

void RecordConverter::add(const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      addApi(*reinterpret_cast<const CUpti_ActivityAPI*>(record), false);
      break;
    case CUPTI_ACTIVITY_KIND_DRIVER:
      addApi(*reinterpret_cast<const CUpti_ActivityAPI*>(record), true);
      break;
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      addKernel(*reinterpret_cast<const CUpti_ActivityKernel10*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      addMemcpy(*reinterpret_cast<const CUpti_ActivityMemcpy6*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      addMemset(*reinterpret_cast<const CUpti_ActivityMemset4*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      addSync(*reinterpret_cast<const CUpti_ActivitySynchronization2*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      const auto& r = *reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
      external_ids_[r.correlationId] = r.externalId;
      break;
    }
    default:
      ++other_kinds_;
      break;
  }
}

void RecordConverter::addApi(const CUpti_ActivityAPI& r, bool driver) {
  const ApiTable& table = ApiTable::instance();
  ApiDomain domain = driver ? ApiDomain::Driver : ApiDomain::Runtime;
  if (table.isNoisy(domain, r.cbid) || (driver && !keep_all_driver_calls_ && !table.isDriverLaunch(r.cbid))) {
    ++filtered_;
    return;
  }
  CuptiEvent e;
  e.category = driver ? Category::CudaDriver : Category::CudaRuntime;
  e.on_gpu = false;
  e.start_ns = int64_t(r.start);
  e.end_ns = int64_t(r.end);
  std::string_view n = table.name(domain, r.cbid);
  e.name = n.empty() ? intern((driver ? "cuda driver call " : "cuda runtime call ") + std::to_string(r.cbid))
                     : intern(n);
  e.thread_id = r.threadId;
  e.correlation = r.correlationId;
  e.cbid = r.cbid;
  events_.push_back(e);
}

void RecordConverter::addKernel(const CUpti_ActivityKernel10& r) {
  CuptiEvent e;
  if (!gpuTimes(r.start, r.end, e)) return;
  e.category = Category::Kernel;
  e.on_gpu = true;
  e.name = kernelName(r.name);
  e.device = int32_t(r.deviceId);
  e.context = r.contextId;
  e.stream = r.streamId;
  e.correlation = r.correlationId;
  e.grid[0] = r.gridX, e.grid[1] = r.gridY, e.grid[2] = r.gridZ;
  e.block[0] = r.blockX, e.block[1] = r.blockY, e.block[2] = r.blockZ;
  e.registers_per_thread = r.registersPerThread;
  e.shared_memory = int64_t(r.staticSharedMemory) + r.dynamicSharedMemory;
  context_devices_[r.contextId] = e.device;
  events_.push_back(e);
}

void RecordConverter::addMemcpy(const CUpti_ActivityMemcpy6& r) {
  CuptiEvent e;
  if (!gpuTimes(r.start, r.end, e)) return;
  e.category = Category::Memcpy;
  e.on_gpu = true;
  e.name = intern(memcpyName(r.copyKind, r.srcKind, r.dstKind));
  e.device = int32_t(r.deviceId);
  e.context = r.contextId;
  e.stream = r.streamId;
  // The runtime call shares the driver correlation id; fall back to the
  // runtime one if CUPTI left it empty.
  e.correlation = r.correlationId ? r.correlationId : r.runtimeCorrelationId;
  e.bytes = r.bytes;
  context_devices_[r.contextId] = e.device;
  events_.push_back(e);
}

void RecordConverter::addMemset(const CUpti_ActivityMemset4& r) {
  CuptiEvent e;
  if (!gpuTimes(r.start, r.end, e)) return;
  e.category = Category::Memset;
  e.on_gpu = true;
  e.name = intern(memsetName(r.memoryKind));
  e.device = int32_t(r.deviceId);
  e.context = r.contextId;
  e.stream = r.streamId;
  e.correlation = r.correlationId;
  e.bytes = r.bytes;
  context_devices_[r.contextId] = e.device;
  events_.push_back(e);
}

void RecordConverter::addSync(const CUpti_ActivitySynchronization2& r) {
  CuptiEvent e;
  if (!gpuTimes(r.start, r.end, e)) return;
  e.category = Category::Sync;
  e.on_gpu = true;
  e.name = intern(syncName(r.type));
  e.context = r.contextId;
  e.stream = streamValue(r.streamId);
  e.correlation = r.correlationId;
  e.sync_type = r.type;
  if (r.cudaEventId != CUPTI_SYNCHRONIZATION_INVALID_VALUE) e.cuda_event_id = r.cudaEventId;
  events_.push_back(e);
}

void RecordConverter::finish(int fallback_device) {
  for (CuptiEvent& e : events_) {
    if (e.correlation >= 0) {
      if (auto it = external_ids_.find(uint32_t(e.correlation)); it != external_ids_.end())
        e.external_id = int64_t(it->second);
    }
    if (e.category == Category::Sync && e.device < 0) {
      auto it = context_devices_.find(e.context);
      e.device = it != context_devices_.end() ? it->second : fallback_device;
    }
  }
}

std::string argsJson(const CuptiEvent& e, const SmFacts* sm) {
  nlohmann::ordered_json j;
  if (e.external_id >= 0) j["External id"] = e.external_id;
  auto gpuCommon = [&] {
    j["device"] = e.device;
    j["context"] = e.context;
    j["stream"] = e.stream;
    j["correlation"] = e.correlation;
  };
  auto bandwidth = [&] {
    j["bytes"] = e.bytes;
    // bytes per ns is GB/s
    if (e.end_ns > e.start_ns) j["memory bandwidth (GB/s)"] = double(e.bytes) / double(e.end_ns - e.start_ns);
  };
  switch (e.category) {
    case Category::CudaRuntime:
    case Category::CudaDriver:
      j["cbid"] = e.cbid;
      j["correlation"] = e.correlation;
      break;
    case Category::Kernel: {
      gpuCommon();
      j["registers per thread"] = e.registers_per_thread;
      j["shared memory"] = e.shared_memory;
      if (sm && sm->num_sms > 0) {
        double blocks = double(e.grid[0]) * e.grid[1] * e.grid[2];
        int64_t threads = int64_t(e.block[0]) * e.block[1] * e.block[2];
        int warp = sm->warp_size > 0 ? sm->warp_size : 32;
        double blocks_per_sm = blocks / sm->num_sms;
        j["blocks per SM"] = blocks_per_sm;
        j["warps per SM"] = blocks_per_sm * double((threads + warp - 1) / warp);
      }
      j["grid"] = {e.grid[0], e.grid[1], e.grid[2]};
      j["block"] = {e.block[0], e.block[1], e.block[2]};
      break;
    }
    case Category::Memcpy:
    case Category::Memset:
      gpuCommon();
      bandwidth();
      break;
    case Category::Sync:
      j["cuda_sync_kind"] = std::string(syncName(e.sync_type));
      if (e.cuda_event_id >= 0) j["wait_on_cuda_event_id"] = e.cuda_event_id;
      gpuCommon();
      break;
    default:
      break;
  }
  return j.dump();
}

void appendEvents(const RecordConverter& converter, const std::unordered_map<int, SmFacts>& sm_facts, int64_t pid,
                  Trace& trace, int64_t from_ns) {
  const auto& names = converter.names();
  std::vector<uint32_t> name_ids(names.size());
  for (size_t i = 0; i < names.size(); ++i) name_ids[i] = trace.strings.intern(names[i]);

  const std::string pid_token = std::to_string(pid);
  std::unordered_map<uint32_t, uint32_t> cpu_tracks;  // thread id -> track
  std::unordered_map<uint64_t, uint32_t> gpu_tracks;  // (device, stream) -> track
  std::unordered_map<uint8_t, uint32_t> cat_ids;

  // Correlation ids of the launch calls made before from_ns, and of all.
  std::unordered_set<int64_t> launched_before, launched;
  for (const CuptiEvent& e : converter.events()) {
    if (e.on_gpu || e.correlation < 0) continue;
    launched.insert(e.correlation);
    if (e.start_ns < from_ns) launched_before.insert(e.correlation);
  }
  auto leftOut = [&](const CuptiEvent& e) {
    if (e.on_gpu && launched.count(e.correlation)) return launched_before.count(e.correlation) > 0;
    return e.start_ns < from_ns;
  };

  for (const CuptiEvent& e : converter.events()) {
    if (leftOut(e)) continue;
    uint32_t track = 0;
    if (e.on_gpu) {
      uint64_t key = (uint64_t(uint32_t(e.device)) << 32) | uint32_t(int32_t(e.stream));
      auto it = gpu_tracks.find(key);
      if (it == gpu_tracks.end()) {
        track = trace.trackFor(std::to_string(e.device), std::to_string(e.stream));
        Track& t = trace.tracks[track];
        t.device = e.device;
        t.stream = e.stream;
        if (!t.process_name_id) t.process_name_id = trace.strings.intern("GPU " + std::to_string(e.device));
        if (!t.thread_name_id)
          t.thread_name_id = trace.strings.intern(e.stream >= 0 ? "stream " + std::to_string(e.stream)
                                                                : std::string("sync (all streams)"));
        gpu_tracks.emplace(key, track);
      } else {
        track = it->second;
      }
    } else {
      auto it = cpu_tracks.find(e.thread_id);
      if (it == cpu_tracks.end())
        it = cpu_tracks.emplace(e.thread_id, trace.trackFor(pid_token, std::to_string(e.thread_id))).first;
      track = it->second;
    }
    auto cat = cat_ids.find(uint8_t(e.category));
    if (cat == cat_ids.end())
      cat = cat_ids.emplace(uint8_t(e.category), trace.strings.intern(categoryName(e.category))).first;

    auto sm = sm_facts.find(e.device);
    Trace::NewEvent ne;
    ne.start_ns = e.start_ns;
    ne.dur_ns = e.end_ns - e.start_ns;
    ne.name_id = name_ids[e.name];
    ne.cat_id = cat->second;
    ne.category = e.category;
    ne.correlation = e.correlation;
    ne.external_id = e.external_id;
    ne.args = trace.addArgs(argsJson(e, sm == sm_facts.end() ? nullptr : &sm->second));
    trace.append(track, ne);
  }
}

}  // namespace fuselab::cupti
