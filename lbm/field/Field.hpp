#pragma once
// The storage of one block, without any time-stepping state: its box of global cells, the dense
// index space with ghost layers, the cell flags and where each population lives. Streaming schemes
// (lbm/scheme/) own the lattices laid out by `storage`; observables are free functions of a
// field and a canonical lattice (lbm/field/FieldOps.hpp). The sparse fluid-only storage
// (SparseField.hpp) keeps fluid cells only, reached through an upwind index instead of strides;
// its kernels apply the same per-cell physics and its observables give the same values.
#include <array>
#include <cstdint>

#include "core/Config.hpp"
#include "core/Types.hpp"
#include "lbm/field/DenseField.hpp"
#include "lbm/field/Geometry.hpp"
#include "lbm/field/WallLinks.hpp"

namespace boreas {

struct Field {
  Box box;
  DenseGeometry geom;
  CellMap map;  // cell index <-> coordinates; the periodic axes the box spans whole
  PopulationLayout storage;
  DeviceView<std::uint8_t*> flags;  // ghost cells included; padding is solid
  std::array<int, 3> global_cells{};
  long long fluid_cells = 0;  // owned fluid cells
  WallLinks walls;            // obstacles' per-link data (Block sets it; none: halfway at rest)

  Field() = default;
  Field(const Config& config, const DomainGeometry& domain, const Box& owned, const std::array<int, 3>& ghosts,
        int Q, int real_bytes);

  // Global linear index (x fastest) of interior cell (x, y, z) of the box, on the device too.
  struct GlobalIndex {
    long long lo[3], nx, ny;
    KOKKOS_INLINE_FUNCTION long long operator()(int x, int y, int z) const {
      return ((lo[2] + z) * ny + (lo[1] + y)) * nx + (lo[0] + x);
    }
  };
  GlobalIndex global_index() const {
    return {{box.lo[0], box.lo[1], box.lo[2]}, global_cells[0], global_cells[1]};
  }
};

}  // namespace boreas
