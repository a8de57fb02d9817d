// How the split-K reduction shares out the slices (exec/kernel_args.hpp): the order of its
// additions, and so the bits of C, must follow from the slice count alone.
#include <gtest/gtest.h>

#include <algorithm>

#include "exec/kernel_args.hpp"

namespace jitgemm {
namespace {

TEST(SplitKReduceGroups, LargestPowerOfTwoUpToTheSlicesAndEight) {
  EXPECT_EQ(split_k_reduce_groups(0), 1);  // GemmLauncher::scale_output: no slices
  EXPECT_EQ(split_k_reduce_groups(1), 1);
  EXPECT_EQ(split_k_reduce_groups(2), 2);
  EXPECT_EQ(split_k_reduce_groups(3), 2);
  EXPECT_EQ(split_k_reduce_groups(4), 4);
  EXPECT_EQ(split_k_reduce_groups(7), 4);
  EXPECT_EQ(split_k_reduce_groups(8), 8);
  EXPECT_EQ(split_k_reduce_groups(66), 8);
  EXPECT_EQ(split_k_reduce_groups(1024), 8);
  for (int s = 0; s <= 1024; ++s) {
    const int g = split_k_reduce_groups(s);
    EXPECT_TRUE(g == 1 || g == 2 || g == 4 || g == 8) << s;  // divides the kernel's 256 threads
    EXPECT_LE(g, std::max(s, 1)) << s;                       // no group without a slice
  }
}

}  // namespace
}  // namespace jitgemm
