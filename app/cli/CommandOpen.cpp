// `fuselab open PATH...` (also `fuselab PATH...`): the desktop window with a
// trace loaded. A folder or several files open as one run (the ranks of a
// distributed job).
#include "app/cli/Commands.h"
#include "app/cli/OpenPaths.h"

namespace fuselab {

void addOpenCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("open", "Open a trace (.json / .json.gz, or a folder of them) in the desktop window");
  auto paths = std::make_shared<std::vector<std::string>>();
  cmd->add_option("paths", *paths, "Chrome/Kineto trace files or folders")->required();
  cmd->callback([paths, &exit_code] { exit_code = openPathsInWindow(*paths); });
}

}  // namespace fuselab
