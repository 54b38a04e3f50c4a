// A vector whose resize() leaves new elements unwritten, for large arrays of
// plain records that are filled right after on every core: a plain resize
// first writes every element on one thread (about 1.5 ms for the 8 MB of a
// 16-rank run's critical-path graph on the H200).
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace fuselab {

template <typename T>
struct UninitializedAllocator : std::allocator<T> {
  // Such records begin to exist when their storage is allocated (C++20's
  // implicit-lifetime types), so leaving them unwritten is defined; reading
  // one before it is written is not.
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  template <typename U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <typename U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}

  template <typename U>
  void construct(U*) noexcept {}  // resize(n): left as allocated
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <typename T>
using UninitializedVector = std::vector<T, UninitializedAllocator<T>>;

}  // namespace fuselab
