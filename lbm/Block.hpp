#pragma once
// One block of the grid in dense storage: its owned box of cells in global coordinates, ghost
// layers, flags and the two population lattices of the pull scheme. A uniform single-rank run is
// one block; ranks and AMR levels add blocks, not code paths.
#include <cstdint>
#include <vector>

#include "core/Config.hpp"
#include "core/Types.hpp"
#include "lbm/Boundary.hpp"
#include "lbm/Collision.hpp"
#include "lbm/DenseField.hpp"
#include "lbm/Geometry.hpp"

namespace boreas {

// Result of a stability check over the fluid cells.
struct Health {
  bool ok = true;
  long long first_bad_cell = -1;  // global linear index (x fastest), -1 when ok
  double bad_density = 0;
};

// Macroscopic fields of a block's interior on the host, x fastest.
struct HostMacroscopic {
  std::vector<double> density;   // 0 in solid cells
  std::vector<double> velocity;  // 3 per cell
  std::vector<std::uint8_t> flags;
};

template <class L, class Real>
class Block {
 public:
  using lattice_type = L;
  using real_type = Real;

  Block(const Config& config, const DomainGeometry& domain, const Box& owned,
        const std::array<int, 3>& ghosts);

  const Box& box() const { return box_; }
  const DenseGeometry& geometry() const { return geom_; }
  const Populations<Real>& populations() const { return f_[cur_]; }
  DeviceView<const std::uint8_t*> flags() const { return flags_; }
  long long fluid_cells() const { return fluid_cells_; }

  // One fused stream-collide step of the owned cells in [lo, hi) (block-local coordinates):
  // reads the current lattice, writes the other. finish_step() makes the written one current.
  void collide_stream(const std::array<int, 3>& lo, const std::array<int, 3>& hi);
  void collide_stream_all() { collide_stream({0, 0, 0}, {geom_.n[0], geom_.n[1], geom_.n[2]}); }
  void finish_step() { cur_ ^= 1; }

  // Order-independent hash of the post-collision populations of the fluid cells, keyed by global
  // cell index: equal across kernels, ranks and decompositions iff every bit is equal.
  std::uint64_t fields_hash() const;
  Health check() const;
  HostMacroscopic macroscopic() const;
  double total_mass() const;

  // A device copy of the current populations, to fall back to the last good state.
  void save_state();
  void restore_state();

 private:
  void init_flags(const DomainGeometry& domain);
  void init_populations(const Config& config);

  Box box_;
  DenseGeometry geom_;
  DeviceView<std::uint8_t*> flags_;
  Populations<Real> f_[2];
  DeviceView<Real*> saved_;
  int cur_ = 0;
  CollisionKind collision_;
  CollisionParams<Real> params_;
  BoundaryValues<Real> bc_;
  std::array<int, 3> global_cells_;
  double rho0_;
  long long fluid_cells_ = 0;
};

}  // namespace boreas
