#pragma once
// Execution/memory spaces and small geometric types shared by every library.
#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace boreas {

using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;

template <class T>
using DeviceView = Kokkos::View<T, MemSpace>;

// Macroscopic fields of a block's owned cells on the device, x fastest: columns rho, ux, uy, uz
// (solid cells 0). Column-major, so that each column is a contiguous vector (KokkosBlas).
using CellMoments = Kokkos::View<double**, Kokkos::LayoutLeft, MemSpace>;

// A device copy of a host vector (index lists built on the host).
template <class T>
DeviceView<T*> to_device_view(const char* label, const std::vector<T>& v) {
  DeviceView<T*> d(std::string(label), v.size());
  Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace>(v.data(), v.size()));
  return d;
}

// Cell flags: the low 3 bits give the kind, the high 5 bits index a table of boundary values
// (wall / inlet velocities, outlet densities).
namespace flag {
constexpr std::uint8_t fluid = 0;
constexpr std::uint8_t wall = 1;          // halfway bounce-back, at rest
constexpr std::uint8_t moving_wall = 2;   // halfway bounce-back with wall velocity (Ladd)
constexpr std::uint8_t inlet = 3;         // velocity inlet (bounce-back with momentum correction)
constexpr std::uint8_t outlet = 4;        // pressure outlet (anti-bounce-back)
constexpr std::uint8_t free_slip = 5;     // specular reflection (free-slip wall, symmetry plane); its
                                          // index: the axes (bit d) along which the cell lies beyond one
constexpr std::uint8_t outflow = 6;       // convective outflow (its index: the face)
constexpr int kind_bits = 3;
constexpr std::uint8_t kind_mask = 0x7;
constexpr int max_table_entries = 32;
KOKKOS_INLINE_FUNCTION constexpr std::uint8_t kind(std::uint8_t f) { return f & kind_mask; }
KOKKOS_INLINE_FUNCTION constexpr int index(std::uint8_t f) { return f >> kind_bits; }
KOKKOS_INLINE_FUNCTION constexpr std::uint8_t make(std::uint8_t kind, int index) {
  return static_cast<std::uint8_t>(kind | (index << kind_bits));
}
}  // namespace flag

// A box of cells [lo, hi) in global cell coordinates.
struct Box {
  std::array<int, 3> lo{0, 0, 0};
  std::array<int, 3> hi{0, 0, 0};
  int extent(int d) const { return hi[d] - lo[d]; }
  long long cells() const {
    return static_cast<long long>(extent(0)) * extent(1) * extent(2);
  }
  bool contains(int x, int y, int z) const {
    return x >= lo[0] && x < hi[0] && y >= lo[1] && y < hi[1] && z >= lo[2] && z < hi[2];
  }
};

}  // namespace boreas
