#include "comm/Decomposition.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>

#include "core/Error.hpp"

namespace boreas {

namespace {

// [lo, hi) of part i when n cells are split into p near-equal parts (the first n % p get one more).
std::pair<int, int> split_range(int n, int p, int i) {
  const int base = n / p, extra = n % p;
  const int lo = i * base + std::min(i, extra);
  return {lo, lo + base + (i < extra ? 1 : 0)};
}

// Rank of each block: consecutive runs of `per_rank`; fluid cells; neighbour tables.
void finish(BlockSet& set, const FluidCounter& fluid, int per_rank, const std::array<int, 3>& reach) {
  set.ranks = set.size() / per_rank;
  for (GridBlock& b : set.blocks) b.owner = b.id / per_rank;
  set.fluid_cells = fluid.cells(set.boxes());
  const DomainGeometry& domain = fluid.domain();
  link_neighbours(set, domain.cells(), {domain.periodic(0), domain.periodic(1), domain.periodic(2)}, reach);
}

}  // namespace

std::vector<long long> FluidCounter::summed(std::vector<long long> local) const {
  if (comm_ == MPI_COMM_NULL) return local;
  std::vector<long long> all(local.size());
  MPI_Allreduce(local.data(), all.data(), int(local.size()), MPI_LONG_LONG, MPI_SUM, comm_);
  return all;
}

std::vector<long long> FluidCounter::local_slices(const Box& b, int axis) const {
  std::vector<long long> slice(b.extent(axis), 0);
  Box mine = b;
  if (comm_ != MPI_COMM_NULL) {
    mine.lo[axis_] = std::max(b.lo[axis_], lo_);
    mine.hi[axis_] = std::min(b.hi[axis_], hi_);
  }
  for (int z = mine.lo[2]; z < mine.hi[2]; ++z)
    for (int y = mine.lo[1]; y < mine.hi[1]; ++y)
      for (int x = mine.lo[0]; x < mine.hi[0]; ++x) {
        const int p[3] = {x, y, z};
        slice[p[axis] - b.lo[axis]] += domain_.flag_at(x, y, z) == flag::fluid;
      }
  return slice;
}

std::vector<long long> FluidCounter::slices(const Box& b, int axis) const { return summed(local_slices(b, axis)); }

std::vector<long long> FluidCounter::cells(const std::vector<Box>& boxes) const {
  std::vector<long long> n;
  for (const Box& b : boxes) {
    const std::vector<long long> slice = local_slices(b, 0);
    n.push_back(std::accumulate(slice.begin(), slice.end(), 0LL));
  }
  return summed(std::move(n));
}

std::array<int, 3> cartesian_dims(const std::array<int, 3>& cells, int blocks, int dimensions) {
  const int ranks = blocks;  // one block per part of the grid
  std::array<int, 3> best{0, 0, 0};
  double best_cost = std::numeric_limits<double>::max();
  for (int px = 1; px <= ranks; ++px) {
    if (ranks % px || px > cells[0]) continue;
    for (int py = 1; py <= ranks / px; ++py) {
      if ((ranks / px) % py || py > cells[1]) continue;
      const int pz = ranks / px / py;
      if (pz > cells[2] || (dimensions == 2 && pz != 1)) continue;
      const std::array<int, 3> p{px, py, pz};
      double local[3];
      for (int d = 0; d < 3; ++d) local[d] = double(cells[d]) / p[d];
      double cost = 0;
      for (int d = 0; d < 3; ++d)
        if (p[d] > 1) cost += 2 * local[(d + 1) % 3] * local[(d + 2) % 3] * (d == 0 ? 2.0 : 1.0);
      // Ties: the grid with fewer x cuts, then fewer y cuts.
      const bool better = cost < best_cost - 1e-9 ||
                          (cost < best_cost + 1e-9 && (px < best[0] || (px == best[0] && py < best[1])));
      if (better) {
        best_cost = cost;
        best = p;
      }
    }
  }
  if (best[0] == 0)
    throw Error("cannot split a " + std::to_string(cells[0]) + " x " + std::to_string(cells[1]) +
                " x " + std::to_string(cells[2]) + " domain into " + std::to_string(ranks) +
                " blocks (at least one cell per block and axis)");
  return best;
}

BlockSet cartesian(const FluidCounter& fluid, const std::array<int, 3>& dims, int blocks_per_rank,
                   const std::array<int, 3>& reach) {
  BlockSet set;
  set.method = "cartesian";
  set.dims = dims;
  const auto& n = fluid.domain().cells();
  for (int k = 0; k < dims[2]; ++k)
    for (int j = 0; j < dims[1]; ++j)
      for (int i = 0; i < dims[0]; ++i) {  // block = i + px (j + py k): x fastest
        GridBlock b;
        b.id = set.size();
        const int idx[3] = {i, j, k};
        for (int a = 0; a < 3; ++a) std::tie(b.box.lo[a], b.box.hi[a]) = split_range(n[a], dims[a], idx[a]);
        set.blocks.push_back(b);
      }
  finish(set, fluid, blocks_per_rank, reach);
  return set;
}

BlockSet bisection(const FluidCounter& fluid, int ranks, int dimensions, int blocks_per_rank,
                   const std::array<int, 3>& reach) {
  BlockSet d;
  d.method = "bisection";
  d.dims = {0, 0, 0};
  const int parts_total = ranks * blocks_per_rank;
  // Fluid count per cell, then recursive halving: split `parts` ranks as floor/ceil halves, cut
  // the box across its longest axis (x last: it is the unit-stride axis) on which both sides keep
  // a cell per part, where the low side holds its share of fluid cells.
  const auto& n = fluid.domain().cells();
  std::function<void(const Box&, int)> split = [&](const Box& b, int parts) {
    if (parts == 1) {
      GridBlock block;
      block.id = d.size();
      block.box = b;
      d.blocks.push_back(block);
      return;
    }
    // The longest axis on which each side can hold its parts (a cell at least each): cuts
    // c in [c_min, c_max] slices.
    const int low_parts = parts / 2;
    int axis = -1, c_min = 0, c_max = -1;
    for (int a : {2, 1, 0}) {
      if (a == 2 && dimensions == 2) continue;
      const long long section = b.cells() / b.extent(a);
      const int low = int((low_parts + section - 1) / section), high = b.extent(a) - int((parts - low_parts + section - 1) / section);
      if (low > high || (axis >= 0 && b.extent(a) <= b.extent(axis))) continue;
      axis = a;
      c_min = std::max(low, 1);
      c_max = high;
    }
    if (axis < 0)
      throw Error("recursive bisection: a box of " + std::to_string(b.extent(0)) + " x " + std::to_string(b.extent(1)) +
                  (dimensions == 3 ? " x " + std::to_string(b.extent(2)) : std::string()) + " cells cannot be halved into " +
                  std::to_string(parts) + " blocks of at least one cell; use fewer blocks (ranks x parallel.blocks_per_rank) "
                  "or the cartesian decomposition");
    const std::vector<long long> slice = fluid.slices(b, axis);
    long long total = 0;
    for (long long s : slice) total += s;
    // Cut after the slice where the running count comes closest to the low side's share.
    int cut = c_min;
    double best = std::numeric_limits<double>::max();
    long long running = 0;
    for (int c = 1; c <= c_max; ++c) {
      running += slice[c - 1];
      if (c < c_min) continue;
      const double err = std::abs(double(running) * parts - double(total) * low_parts);
      if (err < best) {
        best = err;
        cut = c;
      }
    }
    Box lo = b, hi = b;
    lo.hi[axis] = b.lo[axis] + cut;
    hi.lo[axis] = b.lo[axis] + cut;
    split(lo, low_parts);
    split(hi, parts - low_parts);
  };
  split(Box{{0, 0, 0}, n}, parts_total);
  finish(d, fluid, blocks_per_rank, reach);
  return d;
}

BlockSet decompose(const Config& config, const FluidCounter& fluid, int ranks, int ghost_width) {
  const std::array<int, 3> reach{ghost_width, ghost_width, config.dimensions() == 3 ? ghost_width : 0};
  const int per_rank = config.parallel.blocks_per_rank, blocks = ranks * per_rank;
  if (config.parallel.decomposition == DecompositionKind::Bisection)
    return bisection(fluid, ranks, config.dimensions(), per_rank, reach);
  std::array<int, 3> dims = config.parallel.dims;
  if (dims[0] == 0) {
    dims = cartesian_dims(config.cells, blocks, config.dimensions());
  } else {
    if (dims[0] * dims[1] * dims[2] != blocks)
      throw Error("parallel.dims = [" + std::to_string(dims[0]) + ", " + std::to_string(dims[1]) + ", " +
                  std::to_string(dims[2]) + "] makes " + std::to_string(dims[0] * dims[1] * dims[2]) +
                  " blocks, the run has " + std::to_string(ranks) + " ranks x " + std::to_string(per_rank) +
                  " blocks per rank");
    for (int a = 0; a < 3; ++a)
      if (dims[a] > config.cells[a])
        throw Error("parallel.dims[" + std::to_string(a) + "] = " + std::to_string(dims[a]) +
                    " exceeds the " + std::to_string(config.cells[a]) + " cells along that axis");
  }
  return cartesian(fluid, dims, per_rank, reach);
}

}  // namespace boreas
