// The fuselab command line: no subcommand opens the window; subcommands run
// headless (analyze, export, capture, screenshot, ...).
#pragma once

namespace fuselab {
int runCli(int argc, char** argv);
}
