#pragma once
// Parallel input of a deck's voxel file (seed 002): collective MPI-IO reads (io/BoxFile.hpp), each
// rank reading only what it needs, in two passes:
//  1. slabs: the domain's planes along its slowest axis (z; y in 2D) dealt evenly over the ranks;
//     each rank reads the voxels of its planes, which count the fluid cells the decomposition
//     balances (bisection) and reports (FluidCounter, comm/Decomposition.hpp);
//  2. blocks: each rank reads the voxels its blocks reach: the bounding box of their boxes grown
//     by the set's reach plus 2 (halo plans look one link beyond the ghosts), wrapped across
//     periodic faces into at most 8 disjoint boxes.
// No rank ever holds the whole file; the flags are those of the serial reader (tested on 1-8
// ranks, tests/mpi/test_voxel_input.cpp). AMR runs use that serial reader on every rank
// (drivers/AmrRun.cpp): the forest is built from the geometry before any block is owned.
#include <mpi.h>

#include <vector>

#include "comm/BlockSet.hpp"
#include "core/Config.hpp"
#include "io/Json.hpp"
#include "lbm/field/Geometry.hpp"

namespace boreas {

struct Partition {
  BlockSet set;
  DomainGeometry domain;
  Json voxel_input;  // bytes read and seconds per pass (slowest rank), null without a voxel file
};

// The deck's block set on the ranks of `comm` with `ghost_width` layers linked, and this rank's
// geometry: the whole geometry without a voxel file, otherwise the voxels of the two passes above.
// Collective; throws Error on every rank when the file cannot be read or has the wrong size.
Partition partition(const Config& config, MPI_Comm comm, int ghost_width);

// The voxel-file boxes (file coordinates) holding the domain cells of `box` (domain coordinates,
// reaching outside the domain by up to one period on periodic axes): wrapped, clipped to the
// domain and to the file, empty ones left out.
std::vector<VoxelRegion> voxel_boxes(const Config& config, const DomainGeometry& domain, const Box& box);

}  // namespace boreas
