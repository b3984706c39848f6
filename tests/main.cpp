// Test entry point: Kokkos lives for the whole test program. Listing the tests (what CTest's test
// discovery runs) starts no Kokkos: its start-up warnings on stdout would be read as test names.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (GTEST_FLAG_GET(list_tests)) return RUN_ALL_TESTS();
  Kokkos::ScopeGuard kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
