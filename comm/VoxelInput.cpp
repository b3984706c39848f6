#include "comm/VoxelInput.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "comm/Decomposition.hpp"
#include "core/Error.hpp"
#include "core/Timers.hpp"
#include "io/BoxFile.hpp"

namespace boreas {

namespace {

using Interval = std::pair<int, int>;  // [first, second)

// [lo, hi) along an axis of n cells: wrapped into [0, n) on a periodic axis (one or two pieces,
// or the whole axis), clipped to it otherwise.
std::vector<Interval> wrapped(int lo, int hi, int n, bool periodic) {
  if (!periodic) {
    lo = std::max(lo, 0);
    hi = std::min(hi, n);
    return lo < hi ? std::vector<Interval>{{lo, hi}} : std::vector<Interval>{};
  }
  if (hi - lo >= n) return {{0, n}};
  std::vector<Interval> out;
  if (lo < 0) {
    out.push_back({lo + n, n});
    lo = 0;
  }
  if (hi > n) {
    out.push_back({0, hi - n});
    hi = n;
  }
  if (lo < hi) out.push_back({lo, hi});
  return out;
}

// Reads `regions` (boxes set) of the voxel file, every rank its own; returns the bytes read here.
long long read_regions(const Config& config, MPI_Comm comm, std::vector<VoxelRegion>& regions) {
  std::vector<BoxBytes> boxes;
  for (const VoxelRegion& r : regions) boxes.push_back({r.lo, r.hi, {}});
  read_boxes(comm, config.voxels->path, 0, config.voxels->dims, 1, boxes);
  long long bytes = 0;
  for (std::size_t i = 0; i < regions.size(); ++i) {
    bytes += static_cast<long long>(boxes[i].values.size());
    regions[i].voxels = std::move(boxes[i].values);
  }
  return bytes;
}

// The file's size against its dims, on rank 0, for every rank.
void check_size(const Config& config, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string error;
  if (rank == 0) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(config.voxels->path, ec);
    const auto& d = config.voxels->dims;
    const unsigned long long expected = static_cast<unsigned long long>(d[0]) * d[1] * d[2];
    if (ec)
      error = "cannot open voxel file '" + config.voxels->path + "': " + ec.message();
    else if (size != expected)
      error = "voxel file '" + config.voxels->path + "' has " + std::to_string(size) + " bytes, expected " +
              std::to_string(expected);
  }
  agree(comm, error);
}

Json pass_json(long long local_bytes, double local_seconds, MPI_Comm comm) {
  long long bytes = 0, most = 0;
  double seconds = 0;
  MPI_Allreduce(&local_bytes, &bytes, 1, MPI_LONG_LONG, MPI_SUM, comm);
  MPI_Allreduce(&local_bytes, &most, 1, MPI_LONG_LONG, MPI_MAX, comm);
  MPI_Allreduce(&local_seconds, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  Json j = Json::object();
  j["bytes"] = bytes;  // all ranks'
  j["max_bytes_per_rank"] = most;
  j["seconds"] = seconds;  // the slowest rank's
  j["GB_per_s"] = seconds > 0 ? double(bytes) / seconds * 1e-9 : 0.0;
  return j;
}

}  // namespace

std::vector<VoxelRegion> voxel_boxes(const Config& config, const DomainGeometry& domain, const Box& box) {
  const auto& n = domain.cells();
  const auto& dims = config.voxels->dims;
  const auto& offset = config.voxels->offset;
  std::array<std::vector<Interval>, 3> axes;
  for (int a = 0; a < 3; ++a)
    for (const Interval& i : wrapped(box.lo[a], box.hi[a], n[a], domain.periodic(a))) {
      const int lo = std::max(i.first - offset[a], 0), hi = std::min(i.second - offset[a], dims[a]);
      if (lo < hi) axes[a].push_back({lo, hi});
    }
  std::vector<VoxelRegion> out;
  for (const Interval& z : axes[2])
    for (const Interval& y : axes[1])
      for (const Interval& x : axes[0]) {
        VoxelRegion r;
        r.lo = {x.first, y.first, z.first};
        r.hi = {x.second, y.second, z.second};
        out.push_back(std::move(r));
      }
  return out;
}

Partition partition(const Config& config, MPI_Comm comm, int ghost_width) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  // Fluid cells are counted by planes along the slowest axis, near-equal runs per rank, summed
  // over the ranks (every rank counting the whole domain made the start-up of a large grid with
  // many ranks as slow as a one-rank count, once per bisection level).
  const int axis = config.dimensions() == 3 ? 2 : 1;
  const int planes = config.cells[axis];
  const int lo = int(static_cast<long long>(planes) * rank / ranks);
  const int hi = int(static_cast<long long>(planes) * (rank + 1) / ranks);
  if (!config.voxels) {
    DomainGeometry domain(config);
    BlockSet set = decompose(config, FluidCounter(domain, comm, axis, lo, hi), ranks, ghost_width);
    return {std::move(set), std::move(domain), Json()};
  }
  check_size(config, comm);
  const DomainGeometry shape(config, {});  // faces and periodic axes: no voxels needed

  // Pass 1: this rank's planes of the file.
  Box slab{{0, 0, 0}, config.cells};
  slab.lo[axis] = lo;
  slab.hi[axis] = hi;
  auto t0 = std::chrono::steady_clock::now();
  std::vector<VoxelRegion> slab_regions = lo < hi ? voxel_boxes(config, shape, slab) : std::vector<VoxelRegion>{};
  const long long slab_bytes = read_regions(config, comm, slab_regions);
  Json slabs = pass_json(slab_bytes, seconds_since(t0), comm);
  BlockSet set;
  {
    const DomainGeometry slab_domain(config, std::move(slab_regions));
    set = decompose(config, FluidCounter(slab_domain, comm, axis, lo, hi), ranks, ghost_width);
  }

  // Pass 2: what this rank's blocks reach.
  Box reach{{0, 0, 0}, {0, 0, 0}};
  bool first = true;
  for (int id : set.owned_by(rank)) {
    const Box& b = set.blocks[id].box;
    for (int a = 0; a < 3; ++a) {
      const int grow = config.cells[a] > 1 ? set.reach[a] + 2 : 0;
      reach.lo[a] = first ? b.lo[a] - grow : std::min(reach.lo[a], b.lo[a] - grow);
      reach.hi[a] = first ? b.hi[a] + grow : std::max(reach.hi[a], b.hi[a] + grow);
    }
    first = false;
  }
  t0 = std::chrono::steady_clock::now();
  std::vector<VoxelRegion> regions = voxel_boxes(config, shape, reach);
  const long long block_bytes = read_regions(config, comm, regions);
  Json report = Json::object();
  report["file"] = config.voxels->path;
  report["file_bytes"] = static_cast<long long>(config.voxels->dims[0]) * config.voxels->dims[1] * config.voxels->dims[2];
  report["slabs"] = slabs;
  report["blocks"] = pass_json(block_bytes, seconds_since(t0), comm);
  return {std::move(set), DomainGeometry(config, std::move(regions)), report};
}

}  // namespace boreas
