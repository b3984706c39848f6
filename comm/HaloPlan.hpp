#pragma once
// Which populations a rank sends and receives each step. For every fluid ghost cell of a block,
// the ghost region it lies in (one of up to 26: face, edge or corner, direction o) decides the
// populations the owned cells pull from it: those q with c_q,d = -o_d on every axis where
// o_d != 0 (D3Q19: 5 per face, 1 per edge, none at corners). The cell's owner, found after
// periodic wrapping, is the peer. Sender and receiver enumerate the receiver's ghost cells in the
// same order, so both sides agree on every message without exchanging lists; a ghost owned by
// the block itself (a periodic axis that is not split) becomes a local copy.
#include <array>
#include <map>
#include <vector>

#include "comm/Decomposition.hpp"
#include "lbm/DenseField.hpp"
#include "lbm/Geometry.hpp"

namespace boreas {

struct HaloMessage {
  int peer = 0;
  int tag = 0;      // receiver's ghost direction: (ox+1) + 3 (oy+1) + 9 (oz+1)
  int group = 0;    // send side: the axis whose boundary slabs must be computed before packing
  long offset = 0;  // first value in the plan's flat index list / buffer
  long count = 0;   // values (cells x populations)
};

struct HaloPlan {
  std::vector<HaloMessage> sends, recvs;        // remote messages, sorted by (peer, tag)
  std::vector<long> send_index, recv_index;     // flat population indices q * qstride + cell
  std::vector<long> local_source, local_target; // self copies
  long send_values() const { return send_index.size(); }
  long recv_values() const { return recv_index.size(); }
};

// Populations a ghost in direction o must carry.
template <class L>
std::vector<int> crossing_populations(const std::array<int, 3>& o) {
  std::vector<int> out;
  for (int q = 0; q < L::Q; ++q) {
    bool crosses = true;
    for (int d = 0; d < 3; ++d)
      if (o[d] != 0 && L::c(q, d) != -o[d]) crosses = false;
    if (crosses) out.push_back(q);
  }
  return out;
}

namespace detail {

inline bool boxes_touch(const Box& grown, const Box& b, const DomainGeometry& domain) {
  const auto& n = domain.cells();
  for (int d = 0; d < 3; ++d) {
    bool any = false;
    for (int k = -1; k <= 1; ++k) {
      if (k != 0 && !domain.periodic(d)) continue;
      const int lo = b.lo[d] + k * n[d], hi = b.hi[d] + k * n[d];
      if (lo < grown.hi[d] && grown.lo[d] < hi) any = true;
    }
    if (!any) return false;
  }
  return true;
}

inline Box grow(const Box& b, const std::array<int, 3>& g) {
  Box out = b;
  for (int d = 0; d < 3; ++d) {
    out.lo[d] -= g[d];
    out.hi[d] += g[d];
  }
  return out;
}

// Calls visit(ghost position, direction o, wrapped owner position) for every fluid ghost cell of
// `box`, z slowest, x fastest.
template <class Visit>
void for_each_fluid_ghost(const Box& box, const std::array<int, 3>& g, const DomainGeometry& domain,
                          const Visit& visit) {
  for (int z = box.lo[2] - g[2]; z < box.hi[2] + g[2]; ++z)
    for (int y = box.lo[1] - g[1]; y < box.hi[1] + g[1]; ++y)
      for (int x = box.lo[0] - g[0]; x < box.hi[0] + g[0]; ++x) {
        if (box.contains(x, y, z) || domain.flag_at(x, y, z) != flag::fluid) continue;
        const std::array<int, 3> p{x, y, z};
        std::array<int, 3> o{}, w = p;
        for (int d = 0; d < 3; ++d) o[d] = p[d] < box.lo[d] ? -1 : (p[d] >= box.hi[d] ? 1 : 0);
        domain.wrap(w);
        visit(p, o, w);
      }
}

inline int direction_tag(const std::array<int, 3>& o) { return (o[0] + 1) + 3 * (o[1] + 1) + 9 * (o[2] + 1); }

}  // namespace detail

template <class L>
HaloPlan build_halo_plan(const Decomposition& dec, int rank, const DomainGeometry& domain,
                         const DenseGeometry& geom) {
  const std::array<int, 3> g{geom.g[0], geom.g[1], geom.g[2]};
  const Box& mine = dec.boxes[rank];
  std::vector<int> near;  // ranks whose boxes touch this rank's ghost layer (and vice versa)
  for (int r = 0; r < dec.ranks(); ++r)
    if (detail::boxes_touch(detail::grow(mine, g), dec.boxes[r], domain)) near.push_back(r);
  auto local = [&](const std::array<int, 3>& p, const Box& b) {
    return geom.index(p[0] - b.lo[0], p[1] - b.lo[1], p[2] - b.lo[2]);
  };
  using Key = std::pair<int, int>;  // (peer, tag)
  struct Cells {
    std::vector<int> pops;
    std::vector<long> cells;
    int group = 0;
  };
  std::map<Key, Cells> recv, send;
  HaloPlan plan;

  detail::for_each_fluid_ghost(mine, g, domain, [&](auto p, auto o, auto w) {
    int owner = -1;
    for (int r : near)
      if (dec.boxes[r].contains(w[0], w[1], w[2])) owner = r;
    const auto pops = crossing_populations<L>(o);
    if (owner == rank) {
      for (int q : pops) {
        plan.local_source.push_back(q * geom.qstride + local(w, mine));
        plan.local_target.push_back(q * geom.qstride + local(p, mine));
      }
      return;
    }
    if (pops.empty()) return;
    Cells& c = recv[{owner, detail::direction_tag(o)}];
    c.pops = pops;
    c.cells.push_back(local(p, mine));
  });

  for (int r : near) {
    if (r == rank) continue;
    detail::for_each_fluid_ghost(dec.boxes[r], g, domain, [&](auto, auto o, auto w) {
      if (!mine.contains(w[0], w[1], w[2])) return;
      const auto pops = crossing_populations<L>(o);
      if (pops.empty()) return;
      Cells& c = send[{r, detail::direction_tag(o)}];
      c.pops = pops;
      c.cells.push_back(local(w, mine));
      // Ready once the boundary slabs of the first axis this cell touches are computed.
      int ready = 0;
      for (int d = 2; d >= 0; --d) {
        const int x = w[d] - mine.lo[d];
        if (g[d] > 0 && (x == 0 || x == mine.extent(d) - 1)) ready = d;
      }
      c.group = std::max(c.group, ready);
    });
  }

  auto flatten = [&](const std::map<Key, Cells>& in, std::vector<HaloMessage>& msgs,
                     std::vector<long>& index) {
    for (const auto& [key, c] : in) {
      HaloMessage m;
      m.peer = key.first;
      m.tag = key.second;
      m.group = c.group;
      m.offset = static_cast<long>(index.size());
      for (int q : c.pops)
        for (long cell : c.cells) index.push_back(q * geom.qstride + cell);
      m.count = static_cast<long>(index.size()) - m.offset;
      msgs.push_back(m);
    }
  };
  flatten(recv, plan.recvs, plan.recv_index);
  flatten(send, plan.sends, plan.send_index);
  return plan;
}

}  // namespace boreas
