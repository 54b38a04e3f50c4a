// The desktop window under Xvfb: it opens with a trace (named after `open`,
// on its own, or as a folder holding it: a run of one rank), keeps running,
// and closes cleanly on SIGTERM, saving its settings (the trace or the
// folder in recent files).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestPaths.h"

extern char** environ;

namespace fuselab {
namespace {

enum class HowNamed { OpenCommand, BarePath, Folder };

class Window : public testing::TestWithParam<HowNamed> {};

TEST_P(Window, OpensATraceAndClosesCleanlyOnSigterm) {
  auto dir = test::scratchDir("Window.Sigterm." + std::to_string(int(GetParam())));
  const std::string exe = test::fuselabExe().string();
  const std::string trace = test::fixture("mlp_eager.json.gz").string();
  std::vector<std::string> args = {exe};
  if (GetParam() == HowNamed::OpenCommand) args.push_back("open");
  if (GetParam() == HowNamed::Folder) {
    std::filesystem::create_directories(dir / "run");
    std::filesystem::copy_file(trace, dir / "run" / "mlp_eager.json.gz");
    args.push_back((dir / "run").string());
  } else {
    args.push_back(trace);
  }
  std::string xdg = "XDG_CONFIG_HOME=" + (dir / "config").string();
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("XDG_CONFIG_HOME=", 0) != 0) env_strings.emplace_back(*e);
  env_strings.push_back(xdg);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv.data(), envp.data()), 0);

  // The window creates its config folder once it is up; give it time to
  // draw a few frames after that. It must still be running (no crash).
  int status = 0;
  const auto config = dir / "config" / "fuselab";
  for (int i = 0; i < 600 && !std::filesystem::exists(config); ++i) {
    ASSERT_EQ(waitpid(pid, &status, WNOHANG), 0) << "the window exited early (status " << status << ")";
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(std::filesystem::exists(config)) << "no window after 60 s";
  std::this_thread::sleep_for(std::chrono::seconds(1));
  ASSERT_EQ(waitpid(pid, &status, WNOHANG), 0) << "the window exited on its own (status " << status << ")";
  kill(pid, SIGTERM);
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0);

  auto settings = dir / "config" / "fuselab" / "settings.json";
  ASSERT_TRUE(std::filesystem::exists(settings));
  std::ifstream in(settings);
  nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_TRUE(j["recent_files"].is_array());
  ASSERT_FALSE(j["recent_files"].empty());
  // A folder opens as a run and is remembered as the folder.
  const std::string recent = GetParam() == HowNamed::Folder ? "run" : "mlp_eager.json.gz";
  EXPECT_EQ(std::filesystem::path(j["recent_files"][0].get<std::string>()).filename(), recent);
}

std::string howNamed(const testing::TestParamInfo<HowNamed>& i) {
  switch (i.param) {
    case HowNamed::OpenCommand: return "OpenCommand";
    case HowNamed::BarePath: return "BarePath";
    case HowNamed::Folder: return "Folder";
  }
  return "?";
}

INSTANTIATE_TEST_SUITE_P(Named, Window, testing::Values(HowNamed::OpenCommand, HowNamed::BarePath, HowNamed::Folder),
                         howNamed);

}  // namespace
}  // namespace fuselab
