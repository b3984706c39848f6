// CRMT computes exactly the ghost depth that stays valid: after step s < k of a cycle, every fluid
// ghost cell within h - s of the block holds, in all Q populations, bitwise the values the owning
// rank's cell has (checked against a one-block run of the whole domain stepped alongside), for
// every overlap strategy and ghost widths 2 to 4, on a deck with walls, a lid, an obstacle, an
// inlet, an outlet and a periodic axis.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>

#include "comm/Crmt.hpp"
#include "comm/Decomposition.hpp"
#include "comm/Halo.hpp"
#include "comm/Mpi.hpp"
#include "comm/Overlap.hpp"
#include "core/Deck.hpp"
#include "lbm/Block.hpp"
#include "lbm/physics/Lattice.hpp"

namespace boreas {
namespace {

const char* deck = R"(
[simulation]
steps = 9
[lattice]
model = "D3Q19"
[domain]
cells = [16, 12, 10]
[physics]
tau = 0.6
[boundary.x_min]
type = "velocity_inlet"
velocity = [0.03, 0, 0]
[boundary.x_max]
type = "pressure_outlet"
density = 0.995
[boundary.y_max]
type = "moving_wall"
velocity = [0.04, 0, 0.01]
[boundary.z_min]
type = "periodic"
[boundary.z_max]
type = "periodic"
[[obstacle]]
shape = "sphere"
center = [8, 6, 5]
radius = 2.5
[parallel]
dims = [2, 1, 2]
[output]
vtk = false
)";

using L = D3Q19;
using Real = double;

// Mismatching values among the fluid ghost cells within `depth` of `mine`.
long mismatches(const Block<L, Real>& block, const Block<L, Real>& whole, const DomainGeometry& domain,
                int depth) {
  const auto mine = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), block.populations().data);
  const auto ref = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), whole.populations().data);
  const DenseGeometry& g = block.field().geom;
  const DenseGeometry& gw = whole.field().geom;
  const Box& box = block.field().box;
  long bad = 0;
  for (int z = -depth; z < g.n[2] + depth; ++z)
    for (int y = -depth; y < g.n[1] + depth; ++y)
      for (int x = -depth; x < g.n[0] + depth; ++x) {
        if (x >= 0 && y >= 0 && z >= 0 && x < g.n[0] && y < g.n[1] && z < g.n[2]) continue;
        std::array<int, 3> p{box.lo[0] + x, box.lo[1] + y, box.lo[2] + z};
        if (domain.flag_at(p[0], p[1], p[2]) != flag::fluid || !domain.wrap(p)) continue;
        const long a = g.index(x, y, z), b = gw.index(p[0], p[1], p[2]);
        for (int q = 0; q < L::Q; ++q)
          if (mine(block.populations().layout.index(q, a)) != ref(whole.populations().layout.index(q, b))) ++bad;
      }
  return bad;
}

TEST(CrmtGhosts, LocalStepsKeepExactlyTheClaimedDepthValid) {
  ensure_mpi_initialized();
  Comm comm(MPI_COMM_WORLD);
  ASSERT_EQ(comm.size(), 4) << "run under mpiexec with 4 ranks (dims 2 x 1 x 2)";
  const Config config = parse_deck_string(deck, "crmt_ghosts", ".");
  const DomainGeometry domain(config);
  const BlockSet set = decompose(config, domain, comm.size(), 4);  // one block per rank, ghosts up to 4 deep
  const GridBlock one = cartesian(domain, {1, 1, 1}).blocks[0];
  const OperatorReach reach = uniform_grid_reach<L>(false);
  for (OverlapKind overlap : {OverlapKind::None, OverlapKind::NonBlocking, OverlapKind::Interior,
                              OverlapKind::Streams, OverlapKind::Systolic})
    for (int h = 2; h <= 4; ++h) {
      const std::array<int, 3> depth{h, h, h};
      Block<L, Real> block(config, domain, set.blocks[comm.rank()].box, depth, set.blocks[comm.rank()].self_offsets());
      Block<L, Real> whole(config, domain, one.box, {1, 1, 1}, one.self_offsets());
      HaloSet<L, Real> halos;
      halos.add(HaloTransfer::Pull,
                std::make_unique<Halo<L, Real>>(std::vector<const Block<L, Real>*>{&block}, std::vector<int>{comm.rank()},
                                                domain, set, comm, false, depth));
      halos.exchange(HaloTransfer::Pull, {block.populations()});
      const CrmtSchedule schedule(h, reach);
      OverlapStepper<L, Real> stepper({&block}, halos, overlap, schedule);
      long checked_steps = 0;
      for (int step = 1; step <= config.steps; ++step) {
        stepper.step();
        whole.advance(1);
        const int s = (step - 1) % schedule.steps_per_exchange() + 1;
        if (schedule.exchanges_at(s)) continue;  // ghosts then hold only what the exchange carries
        EXPECT_EQ(mismatches(block, whole, domain, schedule.computed_depth(s)), 0)
            << overlap_name(overlap) << " h=" << h << " step " << step << " rank " << comm.rank();
        ++checked_steps;
      }
      EXPECT_GT(checked_steps, 0);
      // The owned cells too (depth 0 finds no ghosts; compare through the fields hash).
      EXPECT_EQ(comm.sum(fields_hash<L>(block.field(), block.canonical())), fields_hash<L>(whole.field(), whole.canonical())) << overlap_name(overlap) << " h=" << h;
    }
}

}  // namespace
}  // namespace boreas
