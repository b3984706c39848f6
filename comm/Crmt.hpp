#pragma once
// CRMT, communication-reduced multi-time-step halos (seed 000): exchange h ghost layers at once,
// then time-integrate the ghost cells locally, and exchange again only when the valid ghost data
// runs out.
//
// Reach. Every operator between two exchanges eats into the h valid layers: per step, the
// streaming stencil (max |c_q,d| = 1 for DdQq) plus any farther per-step stencil (quadratic
// interpolated bounce-back reads two links behind a wall cell: 2; the CSM velocity gradient and the
// other boundary rules read the neighbours the streaming reads); per exchange, the operators
// applied once to freshly received data (coarse-to-fine level interpolation in AMR leaf halos: 1).
//
// Schedule. After an exchange the ghosts are valid to depth h. Step s of the cycle (s = 1, 2, ..)
// computes the owned cells and the ghost cells to depth v(s) = h - f - s r (r per step, f per
// exchange); it is valid as long as v(s) >= 0, so the cycle has k = floor((h - f) / r) steps and
// the exchange is folded into step k, which computes only the owned cells (its ghosts are about
// to be overwritten). Steps s < k leave the ghosts valid to depth v(s) >= r >= 1, so whatever reads
// them between two steps finds them valid. h = 1 is the classical every-step exchange;
// seed 000's leaf halos (h = 4, r = 1, f = 1) give k = 3.
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace boreas {

struct OperatorReach {
  int per_step = 1;      // cells of ghost data consumed by every step
  int per_exchange = 0;  // cells consumed once after every exchange
};

// The reach of a uniform-grid run of Boreas: lattice streaming (max |c| = 1 for every lattice
// Boreas ships), twice that with quadratic interpolated bounce-back (lbm/physics/Boundary.hpp).
template <class L>
OperatorReach uniform_grid_reach(bool quadratic_walls) {
  int c_max = 0;
  for (int q = 0; q < L::Q; ++q)
    for (int d = 0; d < 3; ++d) c_max = std::max(c_max, std::abs(L::c(q, d)));
  return {quadratic_walls ? 2 * c_max : c_max, 0};
}

class CrmtSchedule {
 public:
  CrmtSchedule(int ghost_width, OperatorReach reach) : h_(ghost_width), reach_(reach) {
    if (reach_.per_step < 1) throw std::invalid_argument("CRMT: the per-step reach must be >= 1");
    if (steps_per_exchange() < 1)
      throw std::invalid_argument("CRMT: ghost width " + std::to_string(h_) +
                                  " is smaller than one step's reach (" +
                                  std::to_string(reach_.per_step + reach_.per_exchange) + ")");
  }

  int ghost_width() const { return h_; }
  const OperatorReach& reach() const { return reach_; }
  // k: steps per exchange (< 1: the ghost width cannot carry one step).
  static int steps_per_exchange(int ghost_width, const OperatorReach& reach) {
    return (ghost_width - reach.per_exchange) / reach.per_step;
  }
  int steps_per_exchange() const { return steps_per_exchange(h_, reach_); }
  // Ghost depth computed by step s (1-based) of a cycle; step k computes none and exchanges.
  int computed_depth(int s) const {
    return s >= steps_per_exchange() ? 0 : h_ - reach_.per_exchange - s * reach_.per_step;
  }
  bool exchanges_at(int s) const { return s >= steps_per_exchange(); }

 private:
  int h_;
  OperatorReach reach_;
};

}  // namespace boreas
