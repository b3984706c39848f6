// Time averages on AMR levels ([statistics]; AmrSolver::add_statistics_sample): each owner
// accumulates its leaves' cells on the device (lbm/field/RunningStatistics.hpp, Kokkos-Kernels
// BLAS-1). The averages are the means of the states sample() gives at the sampled steps, leaf by
// leaf in the forest's order; loaded into a solver that continues the same run, they continue bit
// for bit (what a restart does; tests/drivers/run_amr_checkpoint.py runs it through boreas, and
// tests/mpi/test_amr_ranks.cpp compares them on 2-8 ranks, through regrids); a regrid carries them
// to the new leaves keeping every region's means (amr/LeafValues.hpp), which also gathers the
// owners' leaf values in the forest's order and shares them out again.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "amr/AmrSolver.hpp"
#include "amr/LeafValues.hpp"
#include "lbm/field/RunningStatistics.hpp"
#include "tests/amr/AmrCase.hpp"

namespace boreas {
namespace {

// The cavity start-up on 3 levels (walls on level 1, the band under the lid on level 2): unsteady.
const char* const cavity =
    "[simulation]\nsteps = 1\n[lattice]\nmodel = \"D2Q9\"\n[domain]\ncells = [32, 32]\n[collision]\nmodel = \"TRT\"\n"
    "[physics]\ntau = 0.56\n[boundary.y_max]\ntype = \"moving_wall\"\nvelocity = [0.1, 0.0]\n"
    "[amr]\nmax_level = 2\n[[amr.region]]\nnear = \"walls\"\ndistance = 2\nlevel = 1\n"
    "[[amr.region]]\nlo = [0, 28]\nhi = [31, 31]\nlevel = 2\n";

constexpr int columns = RunningStatistics::state_columns;

TEST(AmrStatistics, AveragesAreTheMeansOfTheSamples) {
  testing::AmrCase run(cavity);
  AmrSolver& solver = *run.solver;
  ASSERT_EQ(solver.forest().levels(), 3);
  // Host sums of rho, u and u_a u_b per leaf cell, leaf by leaf in the order sample() gives.
  std::vector<double> sums;
  const int samples = 12;
  for (int k = 0; k < samples; ++k) {
    solver.advance(3);
    solver.add_statistics_sample();
    std::size_t at = 0;
    for (const AmrBlockSample& b : solver.sample()) {
      if (!b.leaf) continue;
      for (std::size_t i = 0; i < b.density.size(); ++i) {
        const double* u = &b.velocity[3 * i];
        const double cell[columns] = {b.density[i], u[0], u[1], u[2], u[0] * u[0], u[1] * u[1], u[2] * u[2],
                                      u[0] * u[1], u[0] * u[2], u[1] * u[2]};
        if (sums.size() < at + columns) sums.resize(at + columns);
        for (int c = 0; c < columns; ++c) sums[at + c] += cell[c];
        at += columns;
      }
    }
  }
  EXPECT_EQ(solver.statistics_samples(), samples);
  const std::vector<double> state = solver.statistics_state();
  ASSERT_EQ(state.size(), sums.size());
  double worst = 0, largest = 0;
  for (std::size_t i = 0; i < state.size(); ++i) {
    worst = std::max(worst, std::abs(state[i] - sums[i] / samples));
    largest = std::max(largest, std::abs(sums[i] / samples));
  }
  // The running mean (1 - 1/n) m + x / n rounds differently from the sum / n: a few ulps.
  EXPECT_LE(worst, 1e-14 * largest);
  // The fields users read: the velocity's RMS fluctuation is positive where the lid starts the flow.
  const RunningStatistics::HostFields fields = RunningStatistics::fields_of_cells(state);
  EXPECT_GT(*std::max_element(fields.rms_velocity.begin(), fields.rms_velocity.end()), 1e-3);
}

TEST(AmrStatistics, LoadedAveragesContinueBitForBit) {
  testing::AmrCase first(cavity), second(cavity);
  for (int k = 0; k < 5; ++k) {
    first.solver->advance(2);
    first.solver->add_statistics_sample();
  }
  second.solver->load_populations(first.solver->populations(), first.solver->step());
  second.solver->load_statistics_state(first.solver->statistics_state(), first.solver->statistics_samples());
  for (int k = 0; k < 5; ++k)
    for (AmrSolver* s : {first.solver.get(), second.solver.get()}) {
      s->advance(2);
      s->add_statistics_sample();
    }
  EXPECT_EQ(second.solver->statistics_samples(), 10);
  EXPECT_EQ(second.solver->statistics_state(), first.solver->statistics_state());
  EXPECT_EQ(second.solver->fields_hash(), first.solver->fields_hash());
}

// What an unstable run falls back to (AmrSolver::save_state, kept on the device): restored after
// more steps and samples, the populations, averages and step are the saved ones, and the run
// continues from them as the one that never went on.
TEST(AmrStatistics, RestoredStateIsTheSavedOne) {
  testing::AmrCase run(cavity), twin(cavity);
  for (AmrSolver* s : {run.solver.get(), twin.solver.get()})
    for (int k = 0; k < 3; ++k) {
      s->advance(2);
      s->add_statistics_sample();
    }
  AmrSolver& solver = *run.solver;
  solver.save_state();
  const std::vector<unsigned char> populations = solver.populations();
  const std::vector<double> averages = solver.statistics_state();
  const std::uint64_t hash = solver.fields_hash();
  for (int k = 0; k < 4; ++k) {
    solver.advance(3);
    solver.add_statistics_sample();
  }
  ASSERT_NE(solver.fields_hash(), hash);
  solver.restore_state();
  EXPECT_EQ(solver.step(), 6);
  EXPECT_EQ(solver.statistics_samples(), 3);
  EXPECT_EQ(solver.populations(), populations);
  EXPECT_EQ(solver.statistics_state(), averages);
  EXPECT_EQ(solver.fields_hash(), hash);
  for (AmrSolver* s : {run.solver.get(), twin.solver.get()}) {
    s->advance(5);
    s->add_statistics_sample();
  }
  EXPECT_EQ(solver.fields_hash(), twin.solver->fields_hash());
  EXPECT_EQ(solver.statistics_state(), twin.solver->statistics_state());
}

// The volume-weighted integral of each averaged quantity over the leaves (level-0 cell volumes).
std::vector<double> integrals(const Forest& forest, const std::vector<double>& state) {
  std::vector<double> sum(columns, 0.0);
  const long cells = long(forest.leaf_size()) * forest.leaf_size() * (forest.two_dimensional() ? 1 : forest.leaf_size());
  std::size_t at = 0;
  for (int l = 0; l < forest.levels(); ++l) {
    const double volume = std::ldexp(1.0, -(forest.two_dimensional() ? 2 : 3) * l);
    for (long k = 0; k < forest.leaves(l) * cells; ++k)
      for (int c = 0; c < columns; ++c) sum[c] += volume * state[at++];
  }
  return sum;
}

TEST(AmrStatistics, RegridCarriesTheAveragesKeepingTheirMeans) {
  testing::AmrCase run(cavity);
  for (int k = 0; k < 6; ++k) {
    run.solver->advance(3);
    run.solver->add_statistics_sample();
  }
  const std::vector<double> before = run.solver->statistics_state();
  // Onto the same forest: every value stays, bit for bit.
  EXPECT_EQ(transfer_leaf_values(run.solver->forest(), before, run.solver->forest(), columns), before);
  // Onto another: the lid band coarsened to level 1, a level-2 box in the lower left refined.
  std::string other = cavity;
  other.replace(other.find("lo = [0, 28]\nhi = [31, 31]"), 26, "lo = [2, 2]\nhi = [9, 9]");
  const Config config = parse_deck_string(other, "other.toml", "");
  const DomainGeometry domain(config);
  Forest forest = build_forest(config, domain);
  ASSERT_FALSE(forest == run.solver->forest());
  const std::unique_ptr<AmrSolver> next = run.solver->regridded(run.config, run.domain, std::move(forest));
  EXPECT_EQ(next->statistics_samples(), 6);
  const std::vector<double> after = next->statistics_state();
  const std::vector<double> a = integrals(run.solver->forest(), before), b = integrals(next->forest(), after);
  for (int c = 0; c < columns; ++c) EXPECT_NEAR(b[c], a[c], 1e-13 * std::max(1.0, std::abs(a[c]))) << "column " << c;
  // The averages go on from there.
  next->advance(3);
  next->add_statistics_sample();
  EXPECT_EQ(next->statistics_samples(), 7);
}

// A regrid at a body: cells that merge or split take the means of their fluid cells only (a solid
// cell's are zero), and a fluid cell split from one whose centre lay in the body starts from its
// current state. Every fluid leaf's mean density stays above 0.9 rho0 (the flow's own lowest is
// 0.961, in a corner under the lid) through a coarsening and a refinement of the cylinder's
// surface (until 2026-12-07: 0.5 after the coarsening, 0.25 after the refinement).
TEST(AmrStatistics, RegridAtABodyAveragesFluidCellsOnly) {
  const std::string body = std::string(cavity).replace(std::string(cavity).find("[amr]"), 0,
                                                          "[[obstacle]]\nshape = \"cylinder\"\ncenter = [12.3, 11.7]\n"
                                                          "radius = 3.4\n");
  const std::string around = std::string(body).replace(body.find("lo = [0, 28]\nhi = [31, 31]"), 26,
                                                         "lo = [4, 4]\nhi = [20, 20]");
  const std::string elsewhere = std::string(body).replace(body.find("lo = [0, 28]\nhi = [31, 31]"), 26,
                                                            "lo = [22, 2]\nhi = [29, 9]");
  testing::AmrCase run(around);
  for (int k = 0; k < 6; ++k) {
    run.solver->advance(3);
    run.solver->add_statistics_sample();
  }
  // The lowest mean density of a fluid leaf cell; a solid cell's means must be zero.
  auto lowest_fluid_mean_density = [](const AmrSolver& solver) {
    const std::vector<double> state = solver.statistics_state();
    double lowest = 1e300;
    std::size_t cell = 0;
    for (const AmrBlockSample& b : solver.sample()) {
      if (!b.leaf) continue;
      for (std::size_t i = 0; i < b.flags.size(); ++i, ++cell)
        if (b.flags[i] == flag::fluid)
          lowest = std::min(lowest, state.at(cell * columns));
        else
          EXPECT_EQ(state.at(cell * columns), 0.0) << "a solid cell's mean density";
    }
    EXPECT_EQ(cell * columns, state.size());
    return lowest;
  };
  EXPECT_GT(lowest_fluid_mean_density(*run.solver), 0.9);
  auto forest_of = [](const std::string& text) {
    const Config config = parse_deck_string(text, "other.toml", "");
    return build_forest(config, DomainGeometry(config));
  };
  const std::unique_ptr<AmrSolver> coarsened = run.solver->regridded(run.config, run.domain, forest_of(elsewhere));
  ASSERT_FALSE(coarsened->forest() == run.solver->forest());
  EXPECT_GT(lowest_fluid_mean_density(*coarsened), 0.9) << "the surface coarsened";
  const std::unique_ptr<AmrSolver> refined = coarsened->regridded(run.config, run.domain, forest_of(around));
  EXPECT_GT(lowest_fluid_mean_density(*refined), 0.9) << "the surface refined again";
  EXPECT_EQ(refined->statistics_samples(), 6);
}

// Leaf values between the forest's order and their owners' (what statistics_state and the
// convergence monitor's regrid gather and share out): on 3 ranks each owner gets its leaves in
// forest order, and on one rank the gather puts them back.
TEST(AmrStatistics, LeafValuesGoToTheirOwnersAndBack) {
  testing::AmrCase run(cavity);
  const Forest& forest = run.solver->forest();
  const long per_leaf = 5;
  long leaves = 0;
  for (int l = 0; l < forest.levels(); ++l) leaves += forest.leaves(l);
  std::vector<double> all(leaves * per_leaf);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = 0.5 * double(i);
  const ForestPartition three = partition_forest(forest, 3);
  std::vector<std::vector<std::vector<double>>> owned;
  for (int r = 0; r < 3; ++r) owned.push_back(owned_leaf_values(forest, three, r, all, per_leaf));
  std::vector<std::vector<std::size_t>> next(3, std::vector<std::size_t>(forest.levels(), 0));
  long at = 0, owners = 0;
  for (int l = 0; l < forest.levels(); ++l)
    for (int b = 0; b < int(forest.level(l).size()); ++b) {
      if (!forest.level(l)[b].leaf()) continue;
      const int r = three.owner[l][b];
      owners |= 1 << r;
      const std::vector<double>& mine = owned[r][l];
      ASSERT_LE(next[r][l] + per_leaf, mine.size());
      EXPECT_TRUE(std::equal(all.begin() + at, all.begin() + at + per_leaf, mine.begin() + next[r][l]));
      next[r][l] += per_leaf;
      at += per_leaf;
    }
  EXPECT_EQ(owners, 7);  // every rank holds leaves
  for (int r = 0; r < 3; ++r)
    for (int l = 0; l < forest.levels(); ++l) EXPECT_EQ(next[r][l], owned[r][l].size());
  const ForestPartition one = partition_forest(forest, 1);
  EXPECT_EQ(gather_leaf_values(forest, one, Comm(MPI_COMM_SELF), owned_leaf_values(forest, one, 0, all, per_leaf), per_leaf),
            all);
  EXPECT_THROW(owned_leaf_values(forest, one, 0, std::vector<double>(all.size() + 1), per_leaf), std::logic_error);
}

}  // namespace
}  // namespace boreas
