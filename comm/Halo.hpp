#pragma once
// Ghost-cell exchange of a block's populations. A halo is a precomputed list of ghost cells and
// the owned cells they mirror; `exchange` copies all populations along it. On one rank this
// realises periodic boundaries (the block is its own neighbour).
#include <vector>

#include "lbm/Block.hpp"
#include "lbm/Geometry.hpp"

namespace boreas {

template <class L, class Real>
class Halo {
 public:
  Halo(const Block<L, Real>& block, const DomainGeometry& domain) {
    const DenseGeometry& g = block.geometry();
    const Box& box = block.box();
    auto flags = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), block.flags());
    std::vector<long> ghost, source;
    for (int z = -g.g[2]; z < g.n[2] + g.g[2]; ++z)
      for (int y = -g.g[1]; y < g.n[1] + g.g[1]; ++y)
        for (int x = -g.g[0]; x < g.n[0] + g.g[0]; ++x) {
          const bool owned = x >= 0 && y >= 0 && z >= 0 && x < g.n[0] && y < g.n[1] && z < g.n[2];
          const long cell = g.index(x, y, z);
          if (owned || flags(cell) != flag::fluid) continue;
          std::array<int, 3> p{box.lo[0] + x, box.lo[1] + y, box.lo[2] + z};
          if (!domain.wrap(p) || !box.contains(p[0], p[1], p[2])) continue;
          ghost.push_back(cell);
          source.push_back(g.index(p[0] - box.lo[0], p[1] - box.lo[1], p[2] - box.lo[2]));
        }
    ghost_ = to_device("halo_ghost", ghost);
    source_ = to_device("halo_source", source);
  }

  void exchange(const Populations<Real>& f) const {
    const auto ghost = ghost_, source = source_;
    const long n = static_cast<long>(ghost.extent(0));
    Kokkos::parallel_for(
        "boreas::comm::local_halo", Kokkos::RangePolicy<ExecSpace>(0, n * L::Q),
        KOKKOS_LAMBDA(const long i) {
          const int q = static_cast<int>(i / n);
          const long k = i % n;
          f(q, ghost(k)) = f(q, source(k));
        });
  }

  long cells() const { return static_cast<long>(ghost_.extent(0)); }

 private:
  static DeviceView<long*> to_device(const char* label, const std::vector<long>& v) {
    DeviceView<long*> d(std::string(label), v.size());
    Kokkos::deep_copy(d, Kokkos::View<const long*, Kokkos::HostSpace>(v.data(), v.size()));
    return d;
  }

  DeviceView<long*> ghost_, source_;
};

}  // namespace boreas
