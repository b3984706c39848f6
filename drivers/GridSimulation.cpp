#include "drivers/GridSimulation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/Error.hpp"
#include "drivers/RunCheck.hpp"
#include "io/Checkpoint.hpp"

namespace boreas {

namespace {

// |curl u| of the owned cells of `box` from the velocity of the box grown by one cell (CellRing):
// central differences, one-sided only where the neighbour lies outside the domain on a
// non-periodic axis, so that every decomposition gives the same values.
std::vector<double> curl_magnitude(const Box& box, const Box& grown, const std::vector<double>& u,
                                   const DomainGeometry& domain) {
  const auto& n = domain.cells();
  auto at = [&](const std::array<int, 3>& p, int d) {
    return u[3 * ((static_cast<long>(p[2] - grown.lo[2]) * grown.extent(1) + (p[1] - grown.lo[1])) * grown.extent(0) +
                  (p[0] - grown.lo[0])) + d];
  };
  auto deriv = [&](const std::array<int, 3>& p, int axis, int d) {
    if (n[axis] == 1) return 0.0;
    std::array<int, 3> lo = p, hi = p;
    if (domain.periodic(axis) || p[axis] > 0) --lo[axis];
    if (domain.periodic(axis) || p[axis] < n[axis] - 1) ++hi[axis];
    return (at(hi, d) - at(lo, d)) / double(hi[axis] - lo[axis]);
  };
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(box.cells()));
  for (int z = box.lo[2]; z < box.hi[2]; ++z)
    for (int y = box.lo[1]; y < box.hi[1]; ++y)
      for (int x = box.lo[0]; x < box.hi[0]; ++x) {
        const std::array<int, 3> p{x, y, z};
        const double wx = deriv(p, 1, 2) - deriv(p, 2, 1);
        const double wy = deriv(p, 2, 0) - deriv(p, 0, 2);
        const double wz = deriv(p, 0, 1) - deriv(p, 1, 0);
        out.push_back(std::sqrt(wx * wx + wy * wy + wz * wz));
      }
  return out;
}

// The whole domain on every rank: each rank's blocks in slot order, concatenated (Comm::allgather:
// any size, where MPI's int counts and displacements overflow past 2^31 values).
HostMacroscopic gather_macroscopic(const std::vector<HostMacroscopic>& local, const BlockSet& set,
                                   const Comm& comm, const std::array<int, 3>& N) {
  HostMacroscopic mine;
  for (const HostMacroscopic& m : local) {
    mine.density.insert(mine.density.end(), m.density.begin(), m.density.end());
    mine.velocity.insert(mine.velocity.end(), m.velocity.begin(), m.velocity.end());
    mine.flags.insert(mine.flags.end(), m.flags.begin(), m.flags.end());
  }
  const std::vector<double> rho = comm.allgather(mine.density), vel = comm.allgather(mine.velocity);
  const std::vector<std::uint8_t> flags = comm.allgather(mine.flags);
  std::vector<long long> next(comm.size() + 1, 0);  // per rank: where its next block starts
  for (const GridBlock& b : set.blocks) next[b.owner + 1] += b.box.cells();
  std::partial_sum(next.begin(), next.end(), next.begin());
  HostMacroscopic out;
  out.density.assign(static_cast<std::size_t>(N[0]) * N[1] * N[2], 0.0);
  out.velocity.assign(3 * out.density.size(), 0.0);
  out.flags.assign(out.density.size(), 0);
  for (const GridBlock& block : set.blocks) {
    const Box& b = block.box;
    long long k = next[block.owner];
    for (int z = b.lo[2]; z < b.hi[2]; ++z)
      for (int y = b.lo[1]; y < b.hi[1]; ++y)
        for (int x = b.lo[0]; x < b.hi[0]; ++x, ++k) {
          const std::size_t g = (static_cast<std::size_t>(z) * N[1] + y) * N[0] + x;
          out.density[g] = rho[k];
          out.flags[g] = flags[k];
          for (int d = 0; d < 3; ++d) out.velocity[3 * g + d] = vel[3 * k + d];
        }
    next[block.owner] = k;
  }
  return out;
}

}  // namespace

GridSimulation::GridSimulation(const Config& config, MPI_Comm comm, Partition p)
    : config_(config),
      comm_(comm),
      domain_(std::move(p.domain)),
      set_(std::move(p.set)),
      voxel_input_(std::move(p.voxel_input)),
      ids_(set_.owned_by(comm_.rank())),
      output_comm_(comm),
      ring_(set_, comm_.rank(), config.cells) {
  check_file_solids(comm, config_, domain_);
}

HostMacroscopic GridSimulation::macroscopic() const {
  std::vector<HostMacroscopic> local = local_macroscopic();
  if (set_.size() == 1) return local.front();
  return gather_macroscopic(local, set_, comm_, config_.cells);
}

std::vector<std::vector<double>> GridSimulation::local_vorticity_magnitude(const std::vector<HostMacroscopic>& local) const {
  std::vector<std::vector<double>> velocity;
  for (const HostMacroscopic& m : local) velocity.push_back(m.velocity);
  const std::vector<std::vector<double>> grown = ring_.gather(output_comm_, velocity, 3);
  std::vector<std::vector<double>> out;
  for (std::size_t i = 0; i < ids_.size(); ++i)
    out.push_back(curl_magnitude(set_.blocks[ids_[i]].box, ring_.grown()[i], grown[i], domain_));
  return out;
}

std::vector<std::array<double, 3>> GridSimulation::forces_over_ranks(const std::vector<ExactSum>& local) const {
  std::vector<std::array<double, 3>> forces(local.size() / 3);
  const std::vector<double> totals = comm_.sum(local);
  for (std::size_t k = 0; k < local.size(); ++k) forces[k / 3][k % 3] = totals[k];
  return forces;
}

std::vector<BoxBytes> GridSimulation::owned_pieces(int cell_bytes) const {
  std::vector<BoxBytes> pieces;
  for (int id : ids_) {
    const Box& b = set_.blocks[id].box;
    pieces.push_back({b.lo, b.hi, std::vector<unsigned char>(static_cast<std::size_t>(b.cells()) * cell_bytes)});
  }
  return pieces;
}

std::vector<BoxBytes> GridSimulation::read_owned_pieces(const std::string& path, const Json& header,
                                                        int cell_bytes) const {
  if (header.at("cell_bytes").get<int>() != cell_bytes)
    throw Error(path + ": " + std::to_string(header.at("cell_bytes").get<int>()) + " bytes per cell, not the " +
                std::to_string(cell_bytes) + " of this lattice and precision");
  std::vector<BoxBytes> pieces;
  for (int id : ids_) pieces.push_back({set_.blocks[id].box.lo, set_.blocks[id].box.hi, {}});
  read_checkpoint_values(comm_.get(), path, header, pieces);
  return pieces;
}

Json GridSimulation::decomposition_report(const std::vector<const char*>& timers) const {
  Json p = Json::object();
  p["ranks"] = comm_.size();
  p["blocks"] = set_.size();
  p["blocks_per_rank"] = config_.parallel.blocks_per_rank;
  p["decomposition"] = set_.method;
  p["dims"] = set_.dims;
  p["load_imbalance"] = set_.imbalance();  // max / mean fluid cells per rank
  if (!voxel_input_.is_null()) p["voxel_input"] = voxel_input_;
  Json slowest_timer = Json::object(), mean_timer = Json::object(), busiest_timer = Json::object();
  std::vector<std::vector<double>> all;  // per category, per rank
  std::vector<double> totals(std::size_t(comm_.size()), 0.0);
  for (const char* cat : timers) {
    all.push_back(comm_.gather(timers_.get(cat)));
    slowest_timer[cat] = *std::max_element(all.back().begin(), all.back().end());
    mean_timer[cat] = std::accumulate(all.back().begin(), all.back().end(), 0.0) / double(all.back().size());
    for (std::size_t r = 0; r < totals.size(); ++r) totals[r] += all.back()[r];
  }
  // One rank's categories, that rank's whose add up to the most: the report's breakdown of the
  // wall time (each category's slowest rank is another's, and together they can exceed it).
  const std::size_t busiest = std::size_t(std::max_element(totals.begin(), totals.end()) - totals.begin());
  for (std::size_t c = 0; c < all.size(); ++c) busiest_timer[timers[c]] = all[c][busiest];
  busiest_timer["rank"] = long(busiest);
  p["timers"] = Json::object();
  p["timers"]["slowest_rank"] = slowest_timer;  // each category's slowest rank, maybe not the same
  p["timers"]["busiest_rank"] = busiest_timer;
  p["timers"]["slowest_update"] = comm_.max(timers_.get("lbm") + timers_.get("boundaries"));
  p["timers"]["mean"] = mean_timer;
  return p;
}

}  // namespace boreas
