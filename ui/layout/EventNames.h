// Short display names for events drawn on the timeline (the tooltip keeps the
// full name): CUDA kernel signatures lose "void ", their parameter list and
// the at::native:: style namespaces, so what the kernel does stays readable.
#pragma once

#include <string>
#include <string_view>

namespace fuselab::ui {

// "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(...)>(int, ...)"
//   -> "vectorized_elementwise_kernel<4, GeluCUDAKernelImpl(...)>"
std::string shortEventName(std::string_view name);

}  // namespace fuselab::ui
