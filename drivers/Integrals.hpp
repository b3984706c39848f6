#pragma once
// Volume integrals of the flow over the fluid cells, sampled into integrals.csv every
// output.integrals_every steps (and at step 0): the diagnostics of decaying and transitional flows
// (the Taylor-Green vortex at Re 1600 of the high-order CFD workshops, problem C3.5), in lattice
// units per unit volume of fluid, weighted by rho / rho0 as that problem defines them:
//   kinetic_energy       E = sum rho |u|^2 / 2 / (rho0 N_fluid)
//   enstrophy            Z = sum rho |curl u|^2 / 2 / (rho0 N_fluid) (curl by central differences, as
//                        the VTK array vorticity_magnitude)
//   viscous_dissipation  2 nu Z with the deck's viscosity: -dE/dt of an incompressible flow,
//                        periodic or closed by walls at rest and without a body force, where the
//                        grid resolves it (an LES's subgrid part is not in it; next to a body the
//                        differences take the solid cell's zero velocity a cell away)
//   max_speed            the largest |u| (its lattice Mach number is max_speed sqrt(3))
// On AMR leaves each cell weighs its volume in level-0 cells and the curl is in level-0 units (the
// lattice velocity is the same on every level; a level-l difference divides by 2^-l level-0 cells).
// Sums are exact (core/ExactSum.hpp): the same bits on every rank count, decomposition, kernel
// and storage.
#include <mpi.h>

#include <iterator>
#include <vector>

#include "amr/AmrSolver.hpp"
#include "core/Config.hpp"
#include "drivers/Simulation.hpp"
#include "io/CsvSeries.hpp"
#include "io/Json.hpp"

namespace boreas {

constexpr const char* integral_columns[] = {"kinetic_energy", "enstrophy", "viscous_dissipation", "max_speed"};
constexpr int integral_count = int(std::size(integral_columns));

// The integrals of the run's current state over its `fluid_cells` (Simulation::fluid_cells), in
// the order of integral_columns, on every rank. Collective.
std::vector<double> flow_integrals(const Simulation& sim, long long fluid_cells, MPI_Comm comm);

// The same over the fluid leaf cells of `forest` from its `samples` (AmrSolver::sample(): every
// block of every level, refined ones holding their children's average). The curl takes central
// differences, one-sided only at non-periodic domain faces as on the uniform grid; where a
// neighbour lies in a coarser leaf (2:1 balance: one level up) the difference reaches that leaf's
// cell centre, 1.5 cells away (first order there). Every rank holding the samples gets the same bits.
std::vector<double> amr_flow_integrals(const Config& config, const Forest& forest,
                                       const std::vector<AmrBlockSample>& samples);

// integrals.csv of a run with output.integrals_every (rank 0 writes: `writer`; a restart at
// `first_step` continues it).
CsvSeries integral_series(const Config& config, bool writer, long first_step);

// Whether the run samples its first step: always from step 0 (decays are measured from it), and
// at a restart whose earlier run left no integrals.csv. Collective: decided together, each rank
// having looked at the file at its own time (one rank seeing the writer's fresh file would leave
// the others alone in the sample's collectives).
bool samples_first_step(const CsvSeries& integrals, long first_step, MPI_Comm comm);

// The end of such a run: report["integrals"] (file, every, samples, the last sample's values) and,
// from the writer, integrals.png listed under report["plots"].
void finish_integrals(const CsvSeries& integrals, const Config& config, Json& report, bool writer);

}  // namespace boreas
