// The main menu bar: File (open, recent, export, screenshot, quit), View
// (fit, theme, text size), Help (keys and mouse, about). Returns what the
// user picked; the Workspace carries it out.
#pragma once

#include <optional>
#include <string>

#include "app/Settings.h"
#include "ui/Theme.h"

namespace fuselab {

struct MenuCommands {
  bool open_trace = false;
  std::optional<std::string> open_recent;
  bool clear_recent = false;
  bool export_trace = false;
  bool screenshot = false;
  bool quit = false;
  bool fit_all = false;
  std::optional<ui::ThemeKind> theme;
  std::optional<float> ui_scale;
  bool keys_help = false;
  bool about = false;
};

// `can_export`: whether File > Export is offered (a trace is open and this
// build can write traces).
MenuCommands drawMainMenu(const Settings& settings, bool has_trace, bool can_export);

}  // namespace fuselab
