// Block sets (comm/BlockSet.hpp, comm/Decomposition.hpp) and the halo plans built on them
// (comm/HaloPlan.hpp), every rank's plan built in one process: the blocks partition the domain,
// ranks own consecutive blocks, neighbour tables are symmetric and complete, and for every transfer
// each message one rank sends is received by its peer with the same tag and count, every local
// copy has its send, and no value travels twice.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "comm/Decomposition.hpp"
#include "comm/HaloPlan.hpp"
#include "core/Deck.hpp"
#include "core/Error.hpp"
#include "lbm/physics/Lattice.hpp"

namespace boreas {
namespace {

Config deck(const std::string& faces, const std::vector<std::string>& overrides = {}) {
  const std::string text = "[simulation]\nsteps = 1\n[lattice]\nmodel = \"D3Q19\"\n[domain]\ncells = [12, 10, 9]\n"
                           "[physics]\ntau = 0.6\n[[obstacle]]\nshape = \"sphere\"\ncenter = [5, 5, 2]\nradius = 2.5\n" +
                           faces;
  return parse_deck_string(text, "blocks", ".", overrides);
}

std::string periodic_faces() {
  std::string f;
  for (const char* face : {"x_min", "x_max", "y_min", "y_max", "z_min", "z_max"})
    f += std::string("[boundary.") + face + "]\ntype = \"periodic\"\n";
  return f;
}

// Every cell in exactly one block; ranks own consecutive blocks, blocks_per_rank each.
void expect_partition(const BlockSet& set, const Config& c, int ranks) {
  const int per_rank = c.parallel.blocks_per_rank;
  ASSERT_EQ(set.size(), ranks * per_rank);
  std::vector<int> hits(c.cells[0] * c.cells[1] * c.cells[2], 0);
  for (const GridBlock& b : set.blocks) {
    EXPECT_EQ(b.owner, b.id / per_rank);
    EXPECT_EQ(set.slot(b.id), b.id % per_rank);
    for (int z = b.box.lo[2]; z < b.box.hi[2]; ++z)
      for (int y = b.box.lo[1]; y < b.box.hi[1]; ++y)
        for (int x = b.box.lo[0]; x < b.box.hi[0]; ++x) ++hits[(z * c.cells[1] + y) * c.cells[0] + x];
  }
  for (int h : hits) ASSERT_EQ(h, 1);
  for (int r = 0; r < ranks; ++r) EXPECT_EQ(int(set.owned_by(r).size()), per_rank);
}

TEST(BlockSet, DecompositionsPartitionTheDomain) {
  for (const char* method : {"cartesian", "bisection"})
    for (int ranks : {1, 2, 3, 4})
      for (int per_rank : {1, 2, 3}) {
        const Config c = deck("", {std::string("parallel.decomposition=\"") + method + "\"",
                                   "parallel.blocks_per_rank=" + std::to_string(per_rank)});
        const DomainGeometry domain(c);
        SCOPED_TRACE(std::string(method) + " ranks " + std::to_string(ranks) + " x " + std::to_string(per_rank));
        const BlockSet set = decompose(c, domain, ranks, 1);
        expect_partition(set, c, ranks);
        long long fluid = 0;
        for (long long f : set.fluid_cells) fluid += f;
        long long expected = 0;
        for (int z = 0; z < c.cells[2]; ++z)
          for (int y = 0; y < c.cells[1]; ++y)
            for (int x = 0; x < c.cells[0]; ++x) expected += domain.flag_at(x, y, z) == flag::fluid;
        EXPECT_EQ(fluid, expected);
      }
}

// Bisection into about as many blocks as cells: every block keeps a cell at least (it cut
// slices per part on one axis, which overlapped blocks and ran past the domain when an axis had
// fewer cells than parts); a box that cannot be halved so is refused.
TEST(BlockSet, BisectionIntoManySmallBlocks) {
  const auto cube = [](const std::string& cells, int per_rank) {
    return parse_deck_string("[simulation]\nsteps = 1\n[lattice]\nmodel = \"" +
                                 std::string(cells.find(',') == cells.rfind(',') ? "D2Q9" : "D3Q19") +
                                 "\"\n[domain]\ncells = [" + cells + "]\n[physics]\ntau = 0.6\n",
                             "blocks", ".",
                             {"parallel.decomposition=\"bisection\"", "parallel.blocks_per_rank=" + std::to_string(per_rank)});
  };
  const std::pair<std::string, std::array<int, 2>> cases[] = {
      {"4, 4, 4", {1, 16}}, {"4, 4, 4", {2, 16}}, {"4, 4, 4", {4, 16}}, {"8, 8", {2, 8}}, {"8, 8", {4, 16}}, {"5, 3, 2", {3, 5}}};
  for (const auto& [cells, split] : cases) {
    const Config c = cube(cells, split[1]);
    SCOPED_TRACE(cells + ": " + std::to_string(split[0]) + " ranks x " + std::to_string(split[1]));
    const BlockSet set = decompose(c, DomainGeometry(c), split[0], 1);
    expect_partition(set, c, split[0]);
    for (const GridBlock& b : set.blocks)
      for (int a = 0; a < 3; ++a) EXPECT_GE(b.box.extent(a), 1) << "block " << b.id;
  }
  const Config c = cube("3, 3", 8);  // 4 + 4 parts need two rows each of 3
  EXPECT_THROW(decompose(c, DomainGeometry(c), 1, 1), Error);
}

// In a fully periodic domain every block has one neighbour entry per direction (26), even when
// the grid has one or two blocks along an axis (the same block then appears with other offsets);
// the relation is symmetric with opposite offset and direction.
TEST(BlockSet, NeighbourTablesPeriodicAndWalled) {
  const std::vector<std::array<int, 3>> grids{{3, 2, 1}, {2, 2, 2}, {1, 1, 1}, {4, 1, 3}};
  for (const std::array<int, 3>& dims : grids) {
    const Config c = deck(periodic_faces());
    const BlockSet set = cartesian(DomainGeometry(c), dims);
    for (const GridBlock& b : set.blocks) {
      EXPECT_EQ(b.neighbours.size(), 26u) << "block " << b.id;
      std::set<std::array<int, 3>> directions;
      for (const BlockNeighbour& n : b.neighbours) {
        directions.insert(n.direction);
        int back = 0;
        for (const BlockNeighbour& m : set.blocks[n.block].neighbours)
          back += m.block == b.id && m.offset == std::array<int, 3>{-n.offset[0], -n.offset[1], -n.offset[2]} &&
                  m.direction == std::array<int, 3>{-n.direction[0], -n.direction[1], -n.direction[2]};
        EXPECT_EQ(back, 1) << "block " << b.id << " -> " << n.block;
      }
      EXPECT_EQ(directions.size(), 26u);
    }
  }
  // Walls everywhere: the corner blocks of a 2 x 2 x 2 grid see 7 neighbours, no offsets.
  const Config walled = deck("");
  const BlockSet set = cartesian(DomainGeometry(walled), {2, 2, 2});
  for (const GridBlock& b : set.blocks) {
    EXPECT_EQ(b.neighbours.size(), 7u);
    for (const BlockNeighbour& n : b.neighbours) EXPECT_EQ(n.offset, (std::array<int, 3>{0, 0, 0}));
  }
}

// The neighbour table within a reach deeper than the blocks are thick: every cell within the reach
// of a block and inside the domain has one entry holding it, and that entry's block owns the
// cell's periodic image (DomainGeometry::wrap, an independent computation); cells beyond a wall
// have none. Grids of blocks 1 to 4 cells thick, reaches 1 to 5 (past whole domain lengths along
// z, 4 cells or a single periodic layer).
TEST(BlockSet, NeighbourTablesCoverTheirReach) {
  for (const char* cells : {"domain.cells=[12, 10, 4]", "domain.cells=[12, 10, 1]"}) {
  const Config mixed = deck("[boundary.x_min]\ntype = \"periodic\"\n[boundary.x_max]\ntype = \"periodic\"\n"
                           "[boundary.z_min]\ntype = \"periodic\"\n[boundary.z_max]\ntype = \"periodic\"\n",
                           {cells});
  const DomainGeometry domain(mixed);
  for (const std::array<int, 3>& dims : std::vector<std::array<int, 3>>{{6, 1, 1}, {3, 5, 1}, {12, 2, 1}})
    for (int reach = 1; reach <= 5; ++reach) {
      const BlockSet set = cartesian(domain, dims, 1, {reach, reach, reach});
      for (const GridBlock& b : set.blocks) {
        long held = 0;
        for (int z = b.box.lo[2] - reach; z < b.box.hi[2] + reach; ++z)
          for (int y = b.box.lo[1] - reach; y < b.box.hi[1] + reach; ++y)
            for (int x = b.box.lo[0] - reach; x < b.box.hi[0] + reach; ++x) {
              if (b.box.contains(x, y, z)) continue;
              std::array<int, 3> w{x, y, z};
              const bool inside = domain.wrap(w);
              const BlockNeighbour* n = set.holder(b, {x, y, z});
              ASSERT_EQ(n != nullptr, inside) << "block " << b.id << " reach " << reach << " cell " << x << "," << y << "," << z;
              if (!n) continue;
              ++held;
              EXPECT_TRUE(set.blocks[n->block].box.contains(w[0], w[1], w[2]));
              EXPECT_EQ((std::array<int, 3>{x - n->offset[0], y - n->offset[1], z - n->offset[2]}), w);
            }
        EXPECT_GT(held, 0);
      }
    }
  }
}

// The neighbour tables link_neighbours builds from its bins are those of every pair of blocks and
// periodic images tested against the reach, in the same order (block, then offset z, y, x): uneven
// bisections, Cartesian grids, periodic and walled axes, reaches past the domain's length.
TEST(BlockSet, BinnedNeighbourTablesAreThoseOfEveryPair) {
  const auto every_pair = [](const BlockSet& set, const std::array<int, 3>& cells, const std::array<bool, 3>& periodic,
                             const std::array<int, 3>& reach, const GridBlock& a) {
    std::vector<std::tuple<int, int, int, int, int, int, int>> out;  // block, offset z y x, direction x y z
    for (const GridBlock& b : set.blocks)
      for (int kz = -3; kz <= 3; ++kz)
        for (int ky = -3; ky <= 3; ++ky)
          for (int kx = -3; kx <= 3; ++kx) {
            const int k[3] = {kx, ky, kz};
            int o[3], dir[3];
            bool near = true;
            for (int d = 0; d < 3; ++d) {
              near = near && (periodic[d] || k[d] == 0);
              o[d] = k[d] * cells[d];
              const int lo = b.box.lo[d] + o[d], hi = b.box.hi[d] + o[d];
              near = near && lo < a.box.hi[d] + reach[d] && hi > a.box.lo[d] - reach[d];
              dir[d] = hi <= a.box.lo[d] ? -1 : (lo >= a.box.hi[d] ? 1 : 0);
            }
            if (near && (dir[0] || dir[1] || dir[2])) out.emplace_back(b.id, o[2], o[1], o[0], dir[0], dir[1], dir[2]);
          }
    return out;
  };
  const Config c = deck(periodic_faces(), {"domain.cells=[13, 11, 7]"});
  const DomainGeometry domain(c);
  int compared = 0;
  for (const std::array<bool, 3>& periodic : std::vector<std::array<bool, 3>>{{true, true, true}, {false, true, false}})
    for (int reach = 1; reach <= 9; reach += 4)
      for (BlockSet set : {bisection(domain, 37, 3), bisection(domain, 6, 3, 4), cartesian(domain, {4, 3, 2})}) {
        link_neighbours(set, c.cells, periodic, {reach, reach, reach});
        for (const GridBlock& a : set.blocks) {
          std::vector<std::tuple<int, int, int, int, int, int, int>> got;
          for (const BlockNeighbour& n : a.neighbours)
            got.emplace_back(n.block, n.offset[2], n.offset[1], n.offset[0], n.direction[0], n.direction[1], n.direction[2]);
          ASSERT_EQ(got, every_pair(set, c.cells, periodic, {reach, reach, reach}, a)) << "block " << a.id << " reach " << reach;
          compared += int(got.size());
        }
      }
  EXPECT_GT(compared, 1000);
}

// Builds every rank's plan and checks that they fit together.
template <class L>
void expect_plans_match(const Config& c, int ranks, const std::array<int, 3>& depth, HaloTransfer transfer) {
  const DomainGeometry domain(c);
  const BlockSet set = decompose(c, domain, ranks, std::max({depth[0], depth[1], depth[2]}));
  ASSERT_LE(depth[2], set.reach[2]);
  std::vector<HaloPlan> plans;
  for (int r = 0; r < ranks; ++r) {
    std::vector<BlockStorage> storage;
    for (int id : set.owned_by(r)) {
      const Box& b = set.blocks[id].box;
      const DenseGeometry g({b.extent(0), b.extent(1), b.extent(2)}, {4, 4, 4}, 8);
      storage.push_back({id, g, PopulationLayout::make_soa(g, L::Q)});
    }
    plans.push_back(build_halo_plan<L>(set, r, domain, storage, depth, transfer));
  }
  using Key = std::tuple<int, int, int>;  // (sender, receiver, tag)
  std::map<Key, long> sent, received;
  for (int r = 0; r < ranks; ++r) {
    const HaloPlan& p = plans[r];
    for (const HaloMessage& m : p.sends) {
      EXPECT_GT(m.count, 0);
      EXPECT_TRUE(sent.emplace(Key{r, m.peer, m.tag}, m.count).second) << "tag used twice: rank " << r << " tag " << m.tag;
      EXPECT_LT(m.tag, 32768);
    }
    for (const HaloMessage& m : p.recvs) {
      EXPECT_TRUE(received.emplace(Key{m.peer, r, m.tag}, m.count).second);
      if (m.peer == r) {  // a local copy reads its send from the send buffer
        ASSERT_TRUE(m.local());
        bool found = false;
        for (const HaloMessage& s : p.sends) found = found || (s.peer == r && s.tag == m.tag && s.offset == m.local_offset);
        EXPECT_TRUE(found);
      } else {
        EXPECT_FALSE(m.local());
      }
    }
    // No ghost value is written twice by the receives.
    std::set<std::pair<int, long>> targets;
    for (const HaloMessage& m : p.recvs)
      for (long i = m.offset; i < m.offset + m.count; ++i)
        if (transfer != HaloTransfer::Swap || m.tag % 8 < 3) EXPECT_TRUE(targets.insert({m.slot, p.recv_index[i]}).second);
  }
  EXPECT_EQ(sent, received);
}

TEST(HaloPlans, EveryRanksPlanMatchesItsPeers) {
  const HaloTransfer transfers[] = {HaloTransfer::Pull, HaloTransfer::PullReversed, HaloTransfer::Push,
                                    HaloTransfer::Swap};
  for (const std::string& faces : {std::string(), periodic_faces()})
    for (const char* method : {"cartesian", "bisection"})
      for (int ranks : {1, 2, 3, 4})
        for (int per_rank : {1, 3})
          for (HaloTransfer t : transfers)
            for (int h : {1, 3}) {
              if (h > 1 && t != HaloTransfer::Pull) continue;
              const Config c = deck(faces, {std::string("parallel.decomposition=\"") + method + "\"",
                                            "parallel.blocks_per_rank=" + std::to_string(per_rank)});
              SCOPED_TRACE(std::string(method) + (faces.empty() ? " walled" : " periodic") + " ranks " +
                           std::to_string(ranks) + " x " + std::to_string(per_rank) + " transfer " +
                           std::to_string(int(t)) + " h " + std::to_string(h));
              expect_plans_match<D3Q19>(c, ranks, {h, h, h}, t);
            }
}

}  // namespace
}  // namespace boreas
