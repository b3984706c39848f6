// CRMT's schedule (comm/Crmt.hpp): the exchange period k and the ghost depth each step computes
// follow from the ghost width and the operators' reach, as derived in seed 000.
#include <gtest/gtest.h>

#include <stdexcept>

#include "comm/Crmt.hpp"
#include "lbm/physics/Lattice.hpp"

namespace boreas {
namespace {

TEST(Crmt, StreamingReachIsOneCellPerStepOnEveryLattice) {
  for (const OperatorReach r : {uniform_grid_reach<D2Q9>(false), uniform_grid_reach<D3Q19>(false),
                                uniform_grid_reach<D3Q27>(false)}) {
    EXPECT_EQ(r.per_step, 1);
    EXPECT_EQ(r.per_exchange, 0);
  }
}

// Quadratic interpolated bounce-back reads two cells behind a wall cell: two cells per step, so an
// exchange of h layers lasts floor(h / 2) steps.
TEST(Crmt, QuadraticWallsReachTwoCellsPerStep) {
  for (const OperatorReach r : {uniform_grid_reach<D2Q9>(true), uniform_grid_reach<D3Q19>(true),
                                uniform_grid_reach<D3Q27>(true)}) {
    EXPECT_EQ(r.per_step, 2);
    EXPECT_EQ(CrmtSchedule(2, r).steps_per_exchange(), 1);
    EXPECT_EQ(CrmtSchedule(5, r).steps_per_exchange(), 2);
    EXPECT_THROW(CrmtSchedule(1, r), std::invalid_argument);
  }
}

TEST(Crmt, ExchangePeriodFollowsFromGhostWidthAndReach) {
  EXPECT_EQ(CrmtSchedule(1, {1, 0}).steps_per_exchange(), 1);  // the every-step exchange
  EXPECT_EQ(CrmtSchedule(4, {1, 0}).steps_per_exchange(), 4);  // uniform grid, streaming only
  EXPECT_EQ(CrmtSchedule(4, {1, 1}).steps_per_exchange(), 3);  // seed 000: leaves of 4, + interpolation
  EXPECT_EQ(CrmtSchedule(5, {2, 0}).steps_per_exchange(), 2);  // a two-cell stencil per step
  EXPECT_THROW(CrmtSchedule(1, {1, 1}), std::invalid_argument);
  EXPECT_THROW(CrmtSchedule(1, {2, 0}), std::invalid_argument);
}

TEST(Crmt, EachStepComputesExactlyTheGhostDepthThatStaysValid) {
  // h = 4, reach 1: steps 1..3 compute ghosts to depth 3, 2, 1; step 4 only the owned cells,
  // and exchanges.
  const CrmtSchedule s(4, {1, 0});
  for (int step = 1; step <= 3; ++step) {
    EXPECT_EQ(s.computed_depth(step), 4 - step);
    EXPECT_FALSE(s.exchanges_at(step));
  }
  EXPECT_EQ(s.computed_depth(4), 0);
  EXPECT_TRUE(s.exchanges_at(4));
  // With a per-exchange reach of 1 (seed 000): depths 2, 1, then the exchange.
  const CrmtSchedule amr(4, {1, 1});
  EXPECT_EQ(amr.computed_depth(1), 2);
  EXPECT_EQ(amr.computed_depth(2), 1);
  EXPECT_TRUE(amr.exchanges_at(3));
}

}  // namespace
}  // namespace boreas
