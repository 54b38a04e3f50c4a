// `fuselab open TRACE`: the desktop window with a trace loaded.
#include "app/Commands.h"

namespace fuselab {

void addOpenCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("open", "Open a trace (.json / .json.gz) in the desktop window");
  auto path = std::make_shared<std::string>();
  cmd->add_option("trace", *path, "Chrome/Kineto trace file")->required()->check(CLI::ExistingFile);
  cmd->callback([path, &exit_code] { exit_code = openWindow(*path); });
}

}  // namespace fuselab
