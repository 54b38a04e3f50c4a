// Every subcommand lives in its own app/Command<Name>.cpp and declares itself
// here. Each adder creates its CLI11 subcommand with a callback that runs the
// command and stores its exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace fuselab {

// Subcommand adders, in the order --help lists them.
void addOpenCommand(CLI::App& app, int& exit_code);
void addExportCommand(CLI::App& app, int& exit_code);
void addAnalyzeCommand(CLI::App& app, int& exit_code);
void addCaptureCommand(CLI::App& app, int& exit_code);
void addScreenshotCommand(CLI::App& app, int& exit_code);
void addTutorialCommand(CLI::App& app, int& exit_code);
void addCompareCommand(CLI::App& app, int& exit_code);
void addSweepCommand(CLI::App& app, int& exit_code);
void addCeilingsCommand(CLI::App& app, int& exit_code);

// Opens the desktop window (GUI builds), optionally with a trace; returns the
// exit code. Without GUI support it says so and returns 2.
int openWindow(const std::string& trace_path);
// The same with several paths: a folder or several files open as one run.
int openWindowWith(const std::vector<std::string>& paths);

}  // namespace fuselab
