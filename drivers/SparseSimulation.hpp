#pragma once
// A run on the sparse fluid-only storage (simulation.storage = "sparse"; lbm/field/SparseField.hpp,
// comm/SparseLinks.hpp): the same interface, results and output as the dense storage's, bit for
// bit, with memory in proportion to the fluid cells.
#include <mpi.h>

#include <memory>

#include "drivers/Simulation.hpp"

namespace boreas {

std::unique_ptr<Simulation> make_sparse_simulation(const Config& config, MPI_Comm comm);

}  // namespace boreas
