#pragma once
// Which populations a rank's blocks send and receive at an exchange, built per (block, neighbour
// block) of the block set (comm/BlockSet.hpp). The ghost layer is `depth` cells deep (1 for the
// every-step exchange; h for CRMT, comm/Crmt.hpp). A fluid ghost cell p lies in one of up to 26
// ghost regions (face, edge or corner, direction o) and carries the populations a cell computed
// before the next exchange reads (crossing_populations; depth 1: those q with c_q,d = -o_d whose
// p + c_q is a cell of the box, D3Q19: 5 per face cell away from the face's rim, 1 per edge, none
// at corners; deeper layers carry all but the outward-pointing ones, and those too next to a
// boundary). The block holding the cell, found after periodic wrapping, is the source; a source
// block's cells for one destination block travel in one message per boundary-slab group of the
// source (at most 3). Sender and receiver enumerate the destination's ghost cells in the same
// order, so both sides agree on every message without exchanging lists. A message between two
// blocks of one rank is a local copy (through the send buffer, no MPI); a ghost held by the block
// itself (a periodic axis the block spans) is a self copy.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "comm/BlockSet.hpp"
#include "core/Error.hpp"
#include "lbm/field/DenseField.hpp"
#include "lbm/field/Geometry.hpp"
#include "lbm/scheme/SwapStep.hpp"
#include "lbm/scheme/HaloTransfer.hpp"

namespace boreas {

struct HaloMessage {
  int peer = 0;     // rank; this rank's own for a local copy
  int tag = 0;      // unique per (sender, receiver) rank pair within an exchange
  int group = 0;    // the axis whose boundary slabs the sender computes before packing
  int slot = 0;     // this rank's block (its position among the rank's blocks) the values belong to
  long offset = 0;  // first value in the plan's flat index list / buffer
  long count = 0;   // values (cells x populations)
  long local_offset = -1;  // a local receive: where the matching send sits in the send buffer
  bool local() const { return local_offset >= 0; }
};

// Copies within one block: local_source -> local_target, [offset, offset + count).
struct SelfCopies {
  int slot = 0;
  long offset = 0, count = 0;
};

struct HaloPlan {
  std::vector<HaloMessage> sends, recvs;        // sorted by (peer, tag); local copies among them
  std::vector<long> send_index, recv_index;     // flat population indices (PopulationLayout::index)
  std::vector<SelfCopies> self;                 // per block with self copies
  std::vector<long> local_source, local_target;
  long send_values() const { return send_index.size(); }
  long recv_values() const { return recv_index.size(); }
  // What goes through MPI: messages to other ranks and their values.
  long remote_messages() const {
    long n = 0;
    for (const HaloMessage& m : sends) n += m.peer != rank;
    return n;
  }
  long remote_values() const {
    long n = 0;
    for (const HaloMessage& m : sends) n += m.peer != rank ? m.count : 0;
    return n;
  }
  int rank = 0;
};

// The storage of one of a rank's blocks, as plans index it.
struct BlockStorage {
  int block = 0;  // id in the block set
  DenseGeometry geom;
  PopulationLayout layout;
};

// Populations the ghost cell p of `box` (ghost layer `depth` deep) must carry, as a mask with bit
// q set for population q: those a computed cell pulls (p + c_q within depth - 1 of the box: in the
// box itself for depth 1, so a face ghost carries no link to a neighbouring ghost) and, when p
// is itself computed (within depth - 1), those its own boundary links read: the bounced-back f*_q
// where p + c_q is not fluid, and all of them next to an outlet (the outlet rule uses the cell's
// own velocity). Interpolated bounce-back also reads the cell's f*_qb across a link to a wall
// (lbm/physics/Boundary.hpp), a free-slip face reflects f*_q of p into the computed cell beside
// p (lbm/scheme/PullStep.hpp), and the quadratic rule f*_q of p where p - c_q is a computed cell
// whose link along q comes from a wall; all of them when the SGS model takes velocities from them (CSM),
// and when p is the cell inside a computed cell of an outflow face (the convective rule reads it).
template <class L>
std::uint32_t crossing_populations(const Box& box, const std::array<int, 3>& p, const std::array<int, 3>& depth,
                                   const DomainGeometry& domain) {
  const int reach = depth[0] - 1;  // depth is the same on every axis with ghosts
  auto within = [&](const std::array<int, 3>& x) {
    for (int d = 0; d < 3; ++d)
      if (x[d] < box.lo[d] - (depth[d] > 0 ? reach : 0) || x[d] >= box.hi[d] + (depth[d] > 0 ? reach : 0))
        return false;
    return true;
  };
  const bool computed = within(p), per_link = domain.wall_links(), free_slip = domain.free_slip(),
             quadratic = domain.quadratic_walls();
  std::uint32_t pulled = 0, boundary_links = 0;
  bool all = false;
  for (int q = 0; q < L::Q; ++q) {
    const std::array<int, 3> x{p[0] + L::c(q, 0), p[1] + L::c(q, 1), p[2] + L::c(q, 2)};
    if (within(x)) pulled |= std::uint32_t(1) << q;
    if (quadratic) {
      const std::array<int, 3> front{p[0] - L::c(q, 0), p[1] - L::c(q, 1), p[2] - L::c(q, 2)};
      if (within(front) && domain.flag_at(front[0], front[1], front[2]) == flag::fluid &&
          domain.flag_at(front[0] - L::c(q, 0), front[1] - L::c(q, 1), front[2] - L::c(q, 2)) == flag::wall)
        pulled |= std::uint32_t(1) << q;
    }
    if (free_slip)
      if (auto target = domain.reflected_cell(p, {L::c(q, 0), L::c(q, 1), L::c(q, 2)}))
        if (within(*target) && domain.flag_at((*target)[0], (*target)[1], (*target)[2]) == flag::fluid)
          pulled |= std::uint32_t(1) << q;
    if (!computed) continue;
    const std::uint8_t link = domain.flag_at(x[0], x[1], x[2]);
    if (link != flag::fluid) boundary_links |= std::uint32_t(1) << q;
    if (link == flag::wall && per_link) boundary_links |= std::uint32_t(1) << opposite<L>(q);
    all |= flag::kind(link) == flag::outlet || flag::kind(link) == flag::outflow;
  }
  all |= domain.velocity_gradients();
  if (domain.outflow())
    for (int face = 0; face < num_faces && !all; ++face) {
      int n[3];
      outward_normal(face, n);
      const std::array<int, 3> x{p[0] + n[0], p[1] + n[1], p[2] + n[2]};
      all = within(x) && domain.flag_at(x[0], x[1], x[2]) == flag::fluid &&
            domain.flag_at(x[0] + n[0], x[1] + n[1], x[2] + n[2]) == flag::make(flag::outflow, face);
    }
  return pulled | (all ? (std::uint32_t(1) << L::Q) - 1 : boundary_links);
}

namespace detail {

// Calls visit(ghost position, the neighbour entry holding it, the owned position it mirrors) for
// every fluid ghost cell of block `b`, `g` layers deep, within the domain; with `held_by` >= 0
// only for those that block holds, whose holder is tested before the flag: a rank knows the flags
// of the cells its own blocks reach only (a voxel file read in parallel, comm/VoxelInput.hpp).
template <class Visit>
void for_each_fluid_ghost(const BlockSet& set, const GridBlock& b, const std::array<int, 3>& g,
                          const DomainGeometry& domain, const Visit& visit, int held_by = -1) {
  const Box around{{b.box.lo[0] - g[0], b.box.lo[1] - g[1], b.box.lo[2] - g[2]},
                   {b.box.hi[0] + g[0], b.box.hi[1] + g[1], b.box.hi[2] + g[2]}};
  for_each_cell_around(set, b, around, [&](const std::array<int, 3>& p, const BlockNeighbour& n, const std::array<int, 3>& w) {
    if (held_by >= 0 && n.block != held_by) return;
    if (domain.flag_at(p[0], p[1], p[2]) == flag::fluid) visit(p, n, w);
  });
}

// The boundary-slab group after which the owner of cell w (box `owner`) can send it: the first
// axis d with ghosts whose slab (g[d] cells from a face) holds w (comm/Overlap.hpp StepRegions).
inline int ready_group(const std::array<int, 3>& w, const Box& owner, const std::array<int, 3>& g) {
  for (int d = 0; d < 3; ++d) {
    const int x = w[d] - owner.lo[d];
    if (g[d] > 0 && (x < g[d] || x >= owner.extent(d) - g[d])) return d;
  }
  return 2;
}

// The same for a push-type transfer: ghost p of box `writer` holds what the cells p - c_q (the q
// of `pops`) pushed there, so it can go once the last of their groups is computed.
template <class L>
int pushed_ready_group(const std::array<int, 3>& p, const Box& writer, const std::array<int, 3>& g, std::uint32_t pops) {
  int group = 0;
  for (int q = 0; q < L::Q; ++q)
    if (pops >> q & 1)
      group = std::max(group, ready_group({p[0] - L::c(q, 0), p[1] - L::c(q, 1), p[2] - L::c(q, 2)}, writer, g));
  return group;
}

}  // namespace detail

// The backward members a of the swap pairs (lbm/scheme/SwapStep.hpp), as a population mask.
template <class L>
constexpr std::uint32_t swap_backward_mask() {
  std::uint32_t mask = 0;
  for (int p = 1; p <= L::H; ++p) mask |= std::uint32_t(1) << swap_backward<L>(p);
  return mask;
}

// `blocks`: this rank's blocks in slot order (BlockSet::owned_by); `depth`: ghost layers to fill
// per axis, at most every block's allocated ghosts and the reach of the set's neighbour tables;
// `transfer`: what moves (HaloTransfer; all but Pull have depth 1).
template <class L>
HaloPlan build_halo_plan(const BlockSet& set, int rank, const DomainGeometry& domain,
                         const std::vector<BlockStorage>& blocks, const std::array<int, 3>& depth,
                         HaloTransfer transfer = HaloTransfer::Pull) {
  const std::array<int, 3> g = depth;
  for (int d = 0; d < 3; ++d)
    if (g[d] > set.reach[d])
      throw Error("halo plan: ghost depth " + std::to_string(g[d]) + " along axis " + std::to_string(d) +
                  " exceeds the block set's neighbour reach " + std::to_string(set.reach[d]));
  const bool pull = transfer == HaloTransfer::Pull || transfer == HaloTransfer::PullReversed;
  auto carried = [&](const Box& box, const std::array<int, 3>& p) {
    if (pull) return crossing_populations<L>(box, p, g, domain);
    const std::uint32_t pushed = pushed_populations<L>(box, p, domain);
    return transfer == HaloTransfer::Swap ? pushed & swap_backward_mask<L>() : pushed;
  };
  // Tags: the group (0-2; a swap's return values 3-5) and the slots of the key's two blocks.
  const int per_rank = set.max_blocks_per_rank();
  auto tag_of = [&](int first, int second, int group) {
    return group + 8 * (set.slot(first) * per_rank + set.slot(second));
  };
  // One message per (peer rank, source block, destination block, group), the block pair in the
  // direction a pull moves data (for push-type transfers values travel the other way).
  struct Key {
    int peer, from, to, group;
    bool operator<(const Key& o) const {
      return std::tie(peer, from, to, group) < std::tie(o.peer, o.from, o.to, o.group);
    }
  };
  struct Cells {
    int slot = 0;  // the local block the cells belong to
    std::vector<long> cells;
    std::vector<std::uint32_t> pops;  // per cell, bit q set when population q is carried
  };
  std::map<Key, Cells> recv, send;
  HaloPlan plan;
  plan.rank = rank;
  auto local = [](const std::array<int, 3>& p, const Box& b, const DenseGeometry& geom) {
    return geom.index(p[0] - b.lo[0], p[1] - b.lo[1], p[2] - b.lo[2]);
  };

  for (int s = 0; s < int(blocks.size()); ++s) {
    const BlockStorage& st = blocks[s];
    const GridBlock& me = set.blocks[st.block];
    const Box& mine = me.box;
    SelfCopies self{s, long(plan.local_source.size()), 0};
    detail::for_each_fluid_ghost(set, me, g, domain, [&](auto p, const BlockNeighbour& n, auto w) {
      const auto pops = carried(mine, p);
      if (n.block == st.block) {
        if (transfer != HaloTransfer::Pull) return;
        for (int q = 0; q < L::Q; ++q)
          if (pops >> q & 1) {
            plan.local_source.push_back(st.layout.index(q, local(w, mine, st.geom)));
            plan.local_target.push_back(st.layout.index(q, local(p, mine, st.geom)));
          }
        return;
      }
      if (pops == 0) return;
      const GridBlock& from = set.blocks[n.block];
      const int group = transfer == HaloTransfer::Push ? detail::pushed_ready_group<L>(p, mine, g, pops)
                                                       : detail::ready_group(w, from.box, g);
      Cells& c = recv[{from.owner, n.block, st.block, group}];
      c.slot = s;
      c.pops.push_back(pops);
      c.cells.push_back(local(p, mine, st.geom));
    });
    self.count = long(plan.local_source.size()) - self.offset;
    if (self.count > 0) plan.self.push_back(self);

    // The ghosts of every other block in the table that this block's cells fill (the table is
    // symmetric and ordered by block).
    int previous = -1;
    for (const BlockNeighbour& nb : me.neighbours) {
      if (nb.block == st.block || nb.block == previous) continue;
      previous = nb.block;
      const GridBlock& to = set.blocks[nb.block];
      detail::for_each_fluid_ghost(set, to, g, domain, [&](auto p, const BlockNeighbour&, auto w) {
        const auto pops = carried(to.box, p);
        if (pops == 0) return;
        const int group = transfer == HaloTransfer::Push ? detail::pushed_ready_group<L>(p, to.box, g, pops)
                                                         : detail::ready_group(w, mine, g);
        Cells& c = send[{to.owner, st.block, nb.block, group}];
        c.slot = s;
        c.pops.push_back(pops);
        c.cells.push_back(local(w, mine, st.geom));
      }, st.block);
    }
  }

  // One message per key of `in`, tags shifted by `tag_base`; slot(q, cells, cell) is the flat
  // index population q of a listed cell travels from or to.
  auto flatten = [&](const std::map<Key, Cells>& in, std::vector<HaloMessage>& msgs, std::vector<long>& index,
                     int tag_base, const auto& slot) {
    for (const auto& [key, c] : in) {
      HaloMessage m;
      m.peer = key.peer;
      m.tag = tag_of(key.from, key.to, tag_base + key.group);
      m.group = key.group;
      m.slot = c.slot;
      m.offset = static_cast<long>(index.size());
      for (int q = 0; q < L::Q; ++q)
        for (std::size_t i = 0; i < c.cells.size(); ++i)
          if (c.pops[i] >> q & 1) index.push_back(slot(q, c.slot, c.cells[i]));
      m.count = static_cast<long>(index.size()) - m.offset;
      msgs.push_back(m);
    }
  };
  // Receives from this rank's own blocks read the matching send (same tag) from the send buffer.
  auto link_local = [&] {
    for (HaloMessage& r : plan.recvs)
      if (r.peer == rank)
        for (const HaloMessage& m : plan.sends)
          if (m.peer == rank && m.tag == r.tag) r.local_offset = m.offset;
  };
  const auto same = [&](int q, int s, long cell) { return blocks[s].layout.index(q, cell); };
  const auto reversed = [&](int q, int s, long cell) { return blocks[s].layout.index(opposite<L>(q), cell); };
  if (pull) {
    const auto slot = [&](int q, int s, long cell) {
      return transfer == HaloTransfer::PullReversed ? reversed(q, s, cell) : same(q, s, cell);
    };
    flatten(recv, plan.recvs, plan.recv_index, 0, slot);
    flatten(send, plan.sends, plan.send_index, 0, slot);
    link_local();
    return plan;
  }
  // Ghost slots travel to the owners' cells.
  flatten(recv, plan.sends, plan.send_index, 0, same);
  flatten(send, plan.recvs, plan.recv_index, 0, same);
  if (transfer != HaloTransfer::Swap) {
    link_local();
    return plan;
  }
  // Swap: the parked f*_b(P) of each such owned slot (a, P) goes to M = P - c_a of the peer (tags
  // after the three groups), and stays readable in this block's ghost slot (b, P + c_b).
  const auto shifted = [&](int q, int s, long cell) {
    return blocks[s].layout.index(opposite<L>(q), cell - blocks[s].geom.shift(L::c(q, 0), L::c(q, 1), L::c(q, 2)));
  };
  flatten(send, plan.sends, plan.send_index, 3, same);
  flatten(recv, plan.recvs, plan.recv_index, 3, shifted);
  std::map<int, SelfCopies> parked;  // per slot, contiguous
  for (const auto& [key, c] : send) parked[c.slot].slot = c.slot;
  for (auto& [s, copies] : parked) {
    copies.offset = long(plan.local_source.size());
    for (const auto& [key, c] : send) {
      if (c.slot != s) continue;
      for (std::size_t i = 0; i < c.cells.size(); ++i)
        for (int q = 0; q < L::Q; ++q)
          if (c.pops[i] >> q & 1) {
            plan.local_source.push_back(same(q, s, c.cells[i]));
            plan.local_target.push_back(shifted(q, s, c.cells[i]));
          }
    }
    copies.count = long(plan.local_source.size()) - copies.offset;
    if (copies.count > 0) plan.self.push_back(copies);
  }
  link_local();
  return plan;
}

}  // namespace boreas
