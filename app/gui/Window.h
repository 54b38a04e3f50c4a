// The desktop window: a GLFW window running the Workspace UI until closed.
// openWindow() (declared in app/cli/Commands.h) is the entry point; settings
// are loaded from and saved to settingsDir().
#pragma once

#include <string>
#include <vector>

namespace fuselab {

// Opens the window (with `trace_path` loaded when not empty) and returns the
// exit code: 0 after a normal close, 2 when no window can be opened.
int openWindow(const std::string& trace_path);
// Same with several paths: one file is a trace, a folder or several files a run.
int openWindowWith(const std::vector<std::string>& paths);

}  // namespace fuselab
