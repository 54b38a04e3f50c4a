#include "kernels/ProcessGroupSetup.h"

#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <charconv>
#include <cstdlib>

#include <nlohmann/json.hpp>

namespace fuselab {
namespace {

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

int envInt(const char* name, int min, int max) {
  const auto text = env(name);
  if (!text) throw WorkloadError(std::string(name) + " is not set: a rank needs RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT");
  int v = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size() || v < min || v > max)
    throw WorkloadError(std::string(name) + " must be an integer from " + std::to_string(min) + " to " +
                        std::to_string(max) + ", got '" + *text + "'");
  return v;
}

void joinGloo(ProcessGroup& pg, const std::string& host) {
  auto options = c10d::ProcessGroupGloo::Options::create(std::chrono::milliseconds(kProcessGroupTimeout));
  options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(host));
  options->threads = 1;  // the ranks share the machine's cores
  pg.backend = c10::make_intrusive<c10d::ProcessGroupGloo>(pg.store, pg.rank, pg.world_size, options);
  pg.backend_name = "gloo";
}

}  // namespace

std::optional<RankEnv> rankEnvFromEnvironment() {
  if (!env("RANK") && !env("WORLD_SIZE")) return std::nullopt;
  RankEnv e;
  e.world_size = envInt("WORLD_SIZE", 1, SizeLimits::kMaxRanks);
  e.rank = envInt("RANK", 0, e.world_size - 1);
  e.master_addr = env("MASTER_ADDR").value_or("127.0.0.1");
  e.master_port = envInt("MASTER_PORT", 1, 65535);
  e.local_rank = env("LOCAL_RANK") ? envInt("LOCAL_RANK", 0, e.world_size - 1) : e.rank;
  return e;
}

RankEnv rankEnvOfJob(const WorkloadParams& p) {
  if (std::optional<RankEnv> env = rankEnvFromEnvironment()) return *env;
  if (p.ranks != 1)
    throw WorkloadError(p.workload + " with " + std::to_string(p.ranks) +
                        " ranks runs as that many processes: start it with fuselab capture --workload " + p.workload +
                        " --ranks " + std::to_string(p.ranks) + " (or Run in the window)");
  return RankEnv{};  // a world of one in this process
}

ProcessGroup joinProcessGroup(const RankEnv& e, Device device) {
  ProcessGroup pg;
  pg.rank = e.rank;
  pg.world_size = e.world_size;
  pg.local_rank = e.local_rank >= 0 ? e.local_rank : e.rank;
  try {
    if (e.master_port == 0) {
      if (e.world_size != 1) throw WorkloadError("a world of several ranks needs MASTER_PORT");
      pg.store = c10::make_intrusive<c10d::HashStore>();
    } else {
      c10d::TCPStoreOptions o;
      o.port = static_cast<uint16_t>(e.master_port);
      o.isServer = e.rank == 0;
      o.numWorkers = static_cast<size_t>(e.world_size);
      o.waitWorkers = true;
      o.timeout = std::chrono::milliseconds(kProcessGroupTimeout);
      pg.store = c10::make_intrusive<c10d::TCPStore>(e.master_addr, o);
    }
    if (device == Device::Cuda)
      joinNccl(pg);
    else
      joinGloo(pg, e.master_addr);
    using Type = c10d::ProcessGroup::BackendType;
    const Type type = device == Device::Cuda ? Type::NCCL : Type::GLOO;
    pg.group = c10::make_intrusive<c10d::ProcessGroup>(pg.store, pg.rank, pg.world_size);
    pg.group->setBackend(device == Device::Cuda ? c10::DeviceType::CUDA : c10::DeviceType::CPU, type, pg.backend);
    pg.group->setDefaultBackend(type);
    pg.group->setGroupName("0");
    pg.group->setGroupDesc("default_pg");
  } catch (const WorkloadError&) {
    throw;
  } catch (const std::exception& ex) {
    throw WorkloadError("rank " + std::to_string(e.rank) + " of " + std::to_string(e.world_size) +
                        " could not join the process group at " + e.master_addr + ":" +
                        std::to_string(e.master_port) + ": " + ex.what());
  }
  return pg;
}

namespace {

// JSON as Python's json.dumps writes it (", " and ": "), as Kineto's
// distributedInfo is: HTA finds a file's rank with the pattern "rank":\s+(\d+).
std::string spacedJson(const nlohmann::ordered_json& j) {
  std::string out;
  if (j.is_object()) {
    for (const auto& [key, value] : j.items())
      out += (out.empty() ? "{" : ", ") + nlohmann::json(key).dump() + ": " + spacedJson(value);
    return out.empty() ? "{}" : out + "}";
  }
  if (j.is_array()) {
    for (const auto& value : j) out += (out.empty() ? "[" : ", ") + spacedJson(value);
    return out.empty() ? "[]" : out + "]";
  }
  return j.dump();
}

}  // namespace

std::string distributedInfoJson(const ProcessGroup& pg) {
  nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
  for (int r = 0; r < pg.world_size; ++r) ranks.push_back(r);
  nlohmann::ordered_json group;
  group["pg_name"] = "0";
  group["pg_desc"] = "default_pg";
  group["backend_config"] = pg.backend_name == "nccl" ? "cuda:nccl" : "cpu:gloo";
  group["pg_size"] = pg.world_size;
  group["ranks"] = ranks;
  nlohmann::ordered_json j;
  j["backend"] = pg.backend_name;
  j["rank"] = pg.rank;
  j["world_size"] = pg.world_size;
  j["pg_count"] = 1;
  j["pg_config"] = nlohmann::ordered_json::array({group});
  if (!pg.nccl_version.empty()) j["nccl_version"] = pg.nccl_version;
  return spacedJson(j);
}

}  // namespace fuselab
