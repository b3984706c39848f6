#pragma once
// Helpers of the multi-rank tests: sub-communicators of the first n ranks, a scratch directory
// every rank names alike, and random voxel files.
#include <mpi.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "comm/Mpi.hpp"

namespace boreas::test {

// The first n ranks of the world (MPI_COMM_NULL on the others). Collective over the world.
inline MPI_Comm first_ranks(int n) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm comm;
  MPI_Comm_split(MPI_COMM_WORLD, rank < n ? 0 : MPI_UNDEFINED, rank, &comm);
  return comm;
}

// <temp>/<prefix>_<rank 0's pid>, the same path on every rank. Collective over the world.
inline std::string shared_directory(const std::string& prefix) {
  long pid = ::getpid();
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return (std::filesystem::temp_directory_path() / (prefix + "_" + std::to_string(pid))).string();
}

// A raw voxel file of `count` voxels, each solid (1) with probability `solid_fraction`, drawn
// from std::mt19937 seeded with `seed` (the same bytes on every run).
inline void write_random_voxels(const std::string& path, long count, double solid_fraction, unsigned seed) {
  std::mt19937 random(seed);
  std::bernoulli_distribution solid(solid_fraction);
  std::ofstream out(path, std::ios::binary);
  for (long i = 0; i < count; ++i) out.put(solid(random) ? 1 : 0);
}

}  // namespace boreas::test
