// Text that wraps at the right edge of the panel it is drawn in, so a narrow
// panel never cuts a line (ImGui's BulletText and Text do not wrap).
#pragma once

#include <string>

namespace fuselab::ui {

void wrappedText(const std::string& text);
// A bullet, then the text wrapped beside it (continuation lines align with it).
void wrappedBullet(const std::string& text);

}  // namespace fuselab::ui
