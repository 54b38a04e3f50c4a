// openWindow() for builds without the GUI (FUSELAB_GUI=OFF).
#ifndef FUSELAB_HAVE_GUI
#include <iostream>

#include "app/cli/Commands.h"

namespace fuselab {

int openWindow(const std::string&) {
  std::cerr << "fuselab: this build has no desktop window (configured with FUSELAB_GUI=OFF); "
               "the subcommands (see --help) work headless\n";
  return 2;
}

int openWindowWith(const std::vector<std::string>& paths) { return openWindow(paths.empty() ? "" : paths.front()); }

}  // namespace fuselab
#endif
