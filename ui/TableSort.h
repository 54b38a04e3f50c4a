// Row order of a sortable ImGui table: indices into the rows, sorted by one
// column's key, ascending or descending (stable, so ties keep their order).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace fuselab::ui {

template <typename Row, typename Key>
void sortRows(std::vector<uint32_t>& order, const std::vector<Row>& rows, Key key, bool ascending) {
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    auto ka = key(rows[a]);
    auto kb = key(rows[b]);
    return ascending ? ka < kb : kb < ka;
  });
}

}  // namespace fuselab::ui
