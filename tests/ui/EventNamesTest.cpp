#include "ui/layout/EventNames.h"

#include <gtest/gtest.h>

namespace fuselab::ui {
namespace {

TEST(EventNames, KernelSignaturesAreShortened) {
  EXPECT_EQ(shortEventName("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::"
                           "TensorIteratorBase&, at::native::GeluType)::{lambda()#2}, std::array<char*, 2ul> >(int, "
                           "at::native::GeluCUDAKernelImpl, std::array<char*, 2ul>)"),
            "vectorized_elementwise_kernel<4, GeluCUDAKernelImpl(at::TensorIteratorBase&, GeluType)::{lambda()#2}, "
            "array<char*, 2ul> >");
  EXPECT_EQ(shortEventName("nvjet_sm90_tst_8x64_64x16_2x1_v_bz_bias_TNN"), "nvjet_sm90_tst_8x64_64x16_2x1_v_bz_bias_TNN");
  EXPECT_EQ(shortEventName("void (anonymous namespace)::splitKreduce_kernel<32, 16, int>(float*, int)"),
            "splitKreduce_kernel<32, 16, int>");
}

TEST(EventNames, OtherNamesStayAsTheyAre) {
  EXPECT_EQ(shortEventName("aten::linear"), "aten::linear");
  EXPECT_EQ(shortEventName("cudaLaunchKernel"), "cudaLaunchKernel");
  EXPECT_EQ(shortEventName("Memcpy HtoD (Pageable -> Device)"), "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(shortEventName("ProfilerStep#2"), "ProfilerStep#2");
  EXPECT_EQ(shortEventName(""), "");
}

}  // namespace
}  // namespace fuselab::ui
