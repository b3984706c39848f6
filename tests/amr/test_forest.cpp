// The block forest (amr/Forest.hpp), checked against brute-force computations on the finest
// level: the leaves partition the domain; leaves that touch (periodic axes wrapped) differ by at
// most one level (2:1 over all 26 neighbours); every neighbour table entry is the same-level block
// at that position or -1 exactly when there is none; parent and child links agree; keys follow
// Morton order and nest; regions asked for are refined to their level and nothing else is refined
// beyond what balance needs.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "amr/Forest.hpp"
#include "core/Error.hpp"

namespace boreas {
namespace {

struct Case {
  std::array<int, 3> cells;
  int leaf;
  std::array<bool, 3> periodic;
};

// A sphere of level-0 radius r around c, refined to `depth`; boxes in level-l cells.
std::function<bool(int, const Box&)> near_point(const std::array<double, 3>& c, double r, bool two_d) {
  return [=](int l, const Box& b) {
    const double s = std::ldexp(1.0, -l);  // level-l cell size in level-0 cells
    double d2 = 0;
    for (int d = 0; d < (two_d ? 2 : 3); ++d) {
      const double lo = b.lo[d] * s, hi = b.hi[d] * s;
      const double x = std::clamp(c[d], lo, hi);
      d2 += (x - c[d]) * (x - c[d]);
    }
    return d2 <= r * r;
  };
}

// Leaf level of every finest-level cell (row-major x fastest), -1 where no leaf covers it, -2
// where two do.
std::vector<int> leaf_map(const Forest& f, const std::array<int, 3>& fine) {
  std::vector<int> owner(static_cast<std::size_t>(fine[0]) * fine[1] * fine[2], -1);
  const int top = f.levels() - 1;
  for (int l = 0; l <= top; ++l)
    for (const ForestBlock& b : f.level(l)) {
      if (!b.leaf()) continue;
      const Box box = f.box(b);
      const int s = 1 << (top - l);
      const int sz = f.two_dimensional() ? 1 : s;
      for (int z = box.lo[2] * sz; z < box.hi[2] * sz; ++z)
        for (int y = box.lo[1] * s; y < box.hi[1] * s; ++y)
          for (int x = box.lo[0] * s; x < box.hi[0] * s; ++x) {
            int& o = owner[(static_cast<std::size_t>(z) * fine[1] + y) * fine[0] + x];
            o = o == -1 ? l : -2;
          }
    }
  return owner;
}

void expect_valid(const Forest& f, const Case& c) {
  const int top = f.levels() - 1;
  const bool two_d = f.two_dimensional();
  const std::array<int, 3> fine{c.cells[0] << top, c.cells[1] << top, two_d ? 1 : c.cells[2] << top};
  const std::vector<int> owner = leaf_map(f, fine);
  for (int o : owner) ASSERT_GE(o, 0) << "a finest cell covered by no leaf (-1) or two (-2)";
  // 2:1: any two finest cells that are neighbours (26 directions, wrapped) lie in leaves at most
  // one level apart.
  auto at = [&](int x, int y, int z) { return owner[(static_cast<std::size_t>(z) * fine[1] + y) * fine[0] + x]; };
  for (int z = 0; z < fine[2]; ++z)
    for (int y = 0; y < fine[1]; ++y)
      for (int x = 0; x < fine[0]; ++x)
        for (int dz = two_d ? 0 : -1; dz <= (two_d ? 0 : 1); ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              std::array<int, 3> p{x + dx, y + dy, z + dz};
              bool inside = true;
              for (int d = 0; d < 3; ++d) {
                if (c.periodic[d]) p[d] = (p[d] + fine[d]) % fine[d];
                inside = inside && p[d] >= 0 && p[d] < fine[d];
              }
              if (inside) ASSERT_LE(std::abs(at(x, y, z) - at(p[0], p[1], p[2])), 1) << x << "," << y << "," << z;
            }
  for (int l = 0; l <= top; ++l) {
    const auto& blocks = f.level(l);
    const std::array<int, 3> extent = f.blocks_per_axis(l);
    std::map<std::array<int, 3>, int> where;
    for (int i = 0; i < int(blocks.size()); ++i) where[blocks[i].index] = i;
    for (int i = 0; i < int(blocks.size()); ++i) {
      const ForestBlock& b = blocks[i];
      EXPECT_EQ(b.key, morton_key(b.index, l));
      if (i > 0) EXPECT_LT(blocks[i - 1].key, b.key);
      EXPECT_EQ(b.neighbours[13], i);
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            std::array<int, 3> p{b.index[0] + dx, b.index[1] + dy, b.index[2] + dz};
            bool inside = true;
            for (int d = 0; d < 3; ++d) {
              if (c.periodic[d]) p[d] = (p[d] % extent[d] + extent[d]) % extent[d];
              inside = inside && p[d] >= 0 && p[d] < extent[d];
            }
            const auto it = where.find(p);
            EXPECT_EQ(b.neighbours[(dx + 1) + 3 * (dy + 1) + 9 * (dz + 1)], inside && it != where.end() ? it->second : -1);
          }
      if (l > 0) {
        const ForestBlock& up = f.level(l - 1)[b.parent];
        for (int d = 0; d < 3; ++d) EXPECT_EQ(up.index[d], two_d && d == 2 ? 0 : b.index[d] / 2);
        EXPECT_FALSE(up.leaf());
        // Keys nest: a child's key lies in [parent key, next parent key).
        EXPECT_GE(b.key, up.key);
      } else {
        EXPECT_EQ(b.parent, -1);
      }
      if (!b.leaf())
        for (int k = 0; k < f.children(); ++k) EXPECT_EQ(f.level(l + 1)[b.first_child + k].parent, i);
    }
  }
}

TEST(Forest, RefinedRegionsAreBalancedLinkedAndPartitionTheDomain) {
  const std::vector<Case> cases{{{32, 16, 16}, 4, {true, false, true}},
                                {{16, 16, 8}, 8, {false, false, false}},
                                {{32, 24, 1}, 4, {true, true, true}},
                                {{24, 16, 8}, 4, {true, true, true}}};
  for (const Case& c : cases)
    for (int depth : {1, 2, 4}) {
      Forest f(c.cells, c.leaf, c.periodic);
      const bool two_d = f.two_dimensional();
      // A small sphere touching a periodic seam: its refinement has to wrap, and balance spreads
      // levels outwards from it.
      const std::array<double, 3> centre{0.5, c.cells[1] * 0.5, two_d ? 0.5 : c.cells[2] * 0.25};
      f.refine(near_point(centre, 1.0, two_d), depth);
      SCOPED_TRACE(std::to_string(c.cells[0]) + "x" + std::to_string(c.cells[1]) + "x" + std::to_string(c.cells[2]) +
                   " leaf " + std::to_string(c.leaf) + " depth " + std::to_string(depth));
      ASSERT_EQ(f.levels(), depth + 1);
      expect_valid(f, c);
      // The leaves holding the centre are on the deepest level.
      const int top = depth;
      const double s = std::ldexp(1.0, top);
      const std::array<int, 3> p{int(centre[0] * s) / c.leaf, int(centre[1] * s) / c.leaf,
                                 two_d ? 0 : int(centre[2] * s) / c.leaf};
      const int i = f.find(top, p);
      ASSERT_GE(i, 0);
      EXPECT_TRUE(f.level(top)[i].leaf());
    }
}

// Refining twice (a second region after the first) keeps every property, and refining nothing
// changes nothing.
TEST(Forest, RepeatedRefinementKeepsTheInvariants) {
  const Case c{{32, 32, 16}, 4, {true, true, false}};
  Forest f(c.cells, c.leaf, c.periodic);
  EXPECT_EQ(f.refine([](int, const Box&) { return false; }, 3), 0);
  EXPECT_EQ(f.levels(), 1);
  EXPECT_EQ(f.leaves(0), 8 * 8 * 4);
  f.refine(near_point({8, 8, 8}, 2.0, false), 3);
  f.refine(near_point({30, 30, 2}, 1.0, false), 2);
  expect_valid(f, c);
  // Level-weighted count: every finest cell accounted for once.
  long long cells = 0;
  for (int l = 0; l < f.levels(); ++l) cells += f.leaves(l) * 64 * (1LL << (3 * (f.levels() - 1 - l)));
  EXPECT_EQ(cells, (32LL * 32 * 16) << (3 * (f.levels() - 1)));
}

// Afterwards no leaf below the level asked for is wanted, also where balance made the leaf: here
// the region R is wanted from level 1 on only, and balance around a sphere refined to level 3
// makes level-1 and level-2 leaves inside R that the first pass never saw.
TEST(Forest, LeavesMadeByBalanceAreOfferedToo) {
  const Case c{{32, 32, 32}, 4, {false, false, false}};
  Forest f(c.cells, c.leaf, c.periodic);
  const auto sphere = near_point({8, 16, 16}, 0.5, false);
  auto wanted = [&](int l, const Box& b) {
    const double s = std::ldexp(1.0, -l);
    const bool inside_r = b.lo[0] * s >= 9 && b.hi[0] * s <= 20 && b.lo[1] * s >= 8 && b.hi[1] * s <= 24 &&
                          b.lo[2] * s >= 8 && b.hi[2] * s <= 24;
    return sphere(l, b) || (l >= 1 && inside_r);
  };
  f.refine(wanted, 3);
  expect_valid(f, c);
  long inside = 0;
  for (int l = 0; l < 3; ++l)
    for (const ForestBlock& b : f.level(l)) {
      if (b.leaf()) EXPECT_FALSE(wanted(l, f.box(b))) << "level " << l << " leaf at " << b.index[0] << "," << b.index[1] << "," << b.index[2];
      inside += l >= 1 && wanted(l, f.box(b));
    }
  EXPECT_GT(inside, 0);  // R was reached at all
}

// Checkpoints store a forest as its refined blocks: the list rebuilds the same forest (blocks,
// order, links), and lists that are no forest (a block under a leaf or outside the domain, one
// listed twice, an unbalanced refinement) are refused.
TEST(Forest, RefinedBlocksRebuildTheForest) {
  const std::vector<Case> cases{{{32, 16, 16}, 4, {true, false, true}}, {{32, 24, 1}, 4, {true, true, true}}};
  for (const Case& c : cases) {
    Forest f(c.cells, c.leaf, c.periodic);
    f.refine(near_point({0.5, c.cells[1] * 0.5, f.two_dimensional() ? 0.5 : 4.0}, 1.0, f.two_dimensional()), 3);
    f.refine(near_point({20, 6, f.two_dimensional() ? 0.5 : 10.0}, 2.0, f.two_dimensional()), 2);
    const std::vector<std::array<int, 4>> refined = f.refined_blocks();
    ASSERT_GT(refined.size(), 10u);
    const Forest g = Forest::from_refined(c.cells, c.leaf, c.periodic, refined);
    EXPECT_TRUE(g == f);
    ASSERT_EQ(g.levels(), f.levels());
    for (int l = 0; l < f.levels(); ++l) {
      ASSERT_EQ(g.level(l).size(), f.level(l).size());
      for (std::size_t b = 0; b < f.level(l).size(); ++b) {
        EXPECT_EQ(g.level(l)[b].index, f.level(l)[b].index);
        EXPECT_EQ(g.level(l)[b].first_child, f.level(l)[b].first_child);
        EXPECT_EQ(g.level(l)[b].neighbours, f.level(l)[b].neighbours);
      }
    }
    auto with = [&](std::vector<std::array<int, 4>> list) {
      return [&c, list] { Forest::from_refined(c.cells, c.leaf, c.periodic, list); };
    };
    std::vector<std::array<int, 4>> twice = refined;
    twice.push_back(refined.front());
    EXPECT_THROW(with(twice)(), Error);
    EXPECT_THROW(with({{0, 100, 0, 0}})(), Error);  // outside the domain
    EXPECT_THROW(with({{1, 0, 0, 0}})(), Error);    // under a level-0 leaf
    // A level-0 block refined two levels deep with level-0 leaves around it breaks the 2:1 balance.
    EXPECT_THROW(with({{0, 2, 1, 0}, {1, 4, 2, 0}})(), Error);
  }
}

TEST(Forest, RefusesDomainsTheLeavesDoNotTile) {
  EXPECT_THROW(Forest({30, 16, 16}, 4, {false, false, false}), Error);
  EXPECT_THROW(Forest({16, 16, 16}, 1, {false, false, false}), Error);
  // 512 roots along an axis fill the 20-bit keys at the deepest level exactly; 513 do not fit.
  EXPECT_NO_THROW(Forest({2048, 4, 4}, 4, {false, false, false}));
  EXPECT_THROW(Forest({2052, 4, 4}, 4, {false, false, false}), Error);
  Forest f({16, 16, 16}, 4, {false, false, false});
  EXPECT_THROW(f.refine([](int, const Box&) { return true; }, Forest::max_levels), Error);
}

}  // namespace
}  // namespace boreas
