#include "app/capture/RankLauncher.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace fuselab {
namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(20);
constexpr auto kGracePeriod = std::chrono::seconds(3);

std::vector<std::string> environmentWith(const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv(*e);
    const auto eq = kv.find('=');
    if (eq != std::string::npos) vars[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : overrides) vars[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : vars) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Starts one worker in process group `pgid` (0: a new group led by it).
pid_t spawnWorker(const WorkerSpec& w, pid_t pgid) {
  posix_spawn_file_actions_t files;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&files);
  posix_spawnattr_init(&attr);
  const std::string log = w.log.string();
  posix_spawn_file_actions_addopen(&files, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&files, 2, 1);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, pgid);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGTERM, SIGINT, SIGPIPE, SIGCHLD, SIGHUP}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  std::vector<std::string> argv_s{w.executable.string()};
  argv_s.insert(argv_s.end(), w.args.begin(), w.args.end());
  std::vector<std::string> env_s = environmentWith(w.env);
  std::vector<char*> argv = pointers(argv_s), envp = pointers(env_s);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv_s[0].c_str(), &files, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    throw std::runtime_error("cannot start rank " + std::to_string(w.rank) + " (" + argv_s[0] + "): " + std::strerror(rc));
  return pid;
}

std::string describeStatus(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = strsignal(sig);
    return "was killed by signal " + std::to_string(sig) + (name ? std::string(" (") + name + ")" : "");
  }
  return "ended with status " + std::to_string(status);
}

struct Running {
  const WorkerSpec* spec;
  pid_t pid;
  bool done = false;
};

// SIGTERM to the group, SIGKILL to what is left after the grace period; reaps all.
void stopAll(pid_t pgid, std::vector<Running>& procs) {
  if (pgid > 0) ::kill(-pgid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + kGracePeriod;
  bool left = true;
  while (left) {
    left = false;
    for (auto& p : procs) {
      if (p.done) continue;
      int status = 0;
      const pid_t r = ::waitpid(p.pid, &status, WNOHANG);
      if (r == p.pid || (r < 0 && errno == ECHILD)) p.done = true;
      else left = true;
    }
    if (!left) break;
    if (std::chrono::steady_clock::now() > deadline) {
      if (pgid > 0) ::kill(-pgid, SIGKILL);
      for (auto& p : procs)
        if (!p.done) ::kill(p.pid, SIGKILL), ::waitpid(p.pid, nullptr, 0), p.done = true;
      break;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

}  // namespace

std::string LaunchOutcome::report() const {
  std::string out;
  if (cancelled) out += "cancelled: every rank was stopped\n";
  for (const auto& f : failures) {
    out += "rank " + std::to_string(f.rank) + " " + f.what + "\n";
    if (!f.log_tail.empty()) {
      out += "  its output ended with:\n";
      size_t start = 0;
      while (start < f.log_tail.size()) {
        size_t end = f.log_tail.find('\n', start);
        if (end == std::string::npos) end = f.log_tail.size();
        out += "    | " + f.log_tail.substr(start, end - start) + "\n";
        start = end + 1;
      }
    }
  }
  return out;
}

LaunchOutcome runWorkers(const std::vector<WorkerSpec>& workers, std::chrono::milliseconds timeout,
                         const std::atomic<bool>* cancel) {
  std::vector<Running> procs;
  pid_t pgid = 0;
  try {
    for (const auto& w : workers) {
      const pid_t pid = spawnWorker(w, pgid);
      if (pgid == 0) pgid = pid;
      procs.push_back({&w, pid});
    }
  } catch (...) {
    stopAll(pgid, procs);
    throw;
  }
  LaunchOutcome outcome;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  size_t finished = 0;
  while (finished < procs.size()) {
    for (auto& p : procs) {
      if (p.done) continue;
      int status = 0;
      if (::waitpid(p.pid, &status, WNOHANG) != p.pid) continue;
      p.done = true;
      ++finished;
      if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        outcome.failures.push_back({p.spec->rank, describeStatus(status), fileTail(p.spec->log)});
    }
    if (!outcome.failures.empty()) break;
    if (cancel && cancel->load()) {
      outcome.cancelled = true;
      break;
    }
    if (finished < procs.size() && std::chrono::steady_clock::now() > deadline) {
      const auto secs = std::chrono::duration_cast<std::chrono::seconds>(timeout).count();
      for (auto& p : procs)
        if (!p.done)
          outcome.failures.push_back({p.spec->rank, "did not finish within " + std::to_string(secs) + " s (hung?)",
                                      fileTail(p.spec->log)});
      break;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  stopAll(pgid, procs);
  return outcome;
}

bool stopWithLauncher() {
  const pid_t launcher = ::getppid();
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  return ::getppid() == launcher;  // it did not die before the request
}

int freeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("cannot open a socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    throw std::runtime_error("cannot bind a loopback port: " + why);
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

std::string fileTail(const std::filesystem::path& file, size_t max_lines) {
  std::ifstream in(file);
  std::deque<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    lines.push_back(line);
    if (lines.size() > max_lines) lines.pop_front();
  }
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

}  // namespace fuselab
