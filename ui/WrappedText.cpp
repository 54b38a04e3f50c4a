#include "ui/WrappedText.h"

#include <imgui.h>

namespace fuselab::ui {

void wrappedText(const std::string& text) {
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
}

void wrappedBullet(const std::string& text) {
  ImGui::Bullet();
  wrappedText(text);
}

}  // namespace fuselab::ui
