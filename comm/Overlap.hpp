#pragma once
// One time step of a rank's blocks whose ghosts come from other blocks, under the five overlap
// strategies of [parallel] overlap (seed 001 systolic scheme, seed 003 strategies 1-3), for any
// scheme that steps in parts (StreamingScheme::step_part: ab_pull, ab_push, aa); the exchange
// after the step is the one the scheme's new state needs (a pull of ghosts, or the return of what
// a push-type step wrote into them). Every phase below runs over all of the rank's blocks before
// the next:
//   none         compute all cells, then the blocking exchange
//   nonblocking  receives posted first, compute all cells, then pack, send, wait
//   interior     boundary slabs, pack + send, interior in chunks while polling (MPI_Testsome) and
//                unpacking arrivals, wait for the rest
//   streams      boundary slabs, each message packed on its own execution-space instance while
//                the interior runs on the default one; sends after each pack's fence; unpack on
//                arrival on the message's instance
//   systolic     boundary slabs one axis pair at a time, each pair's messages sent as soon as it
//                is computed, then the interior while polling
// All write exactly the same values (only the order changes), so fields are bitwise identical.
// The step leaves the ghosts of the new lattice filled, sends completed and the device fenced.
//
// CRMT (comm/Crmt.hpp): with ghosts h deep the strategies above run only on the last step of each
// k-step cycle, with boundary slabs h cells thick (the cells the deep messages carry); the other
// steps exchange nothing and compute the owned box grown by the ghost depth that stays valid.
//
// Timing per seed 001: C_B boundary compute, C_NB interior compute (none / nonblocking: all
// compute counts as C_NB, C_B = 0), M communication (first send posted until the last receive is
// seen complete), W time blocked waiting after the compute, pack and unpack (kernels and
// staging copies).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <vector>

#include "comm/Crmt.hpp"
#include "comm/ExecInstances.hpp"
#include "comm/HaloSet.hpp"
#include "core/Config.hpp"
#include "core/Timers.hpp"
#include "lbm/Block.hpp"
#include "lbm/scheme/Traversal.hpp"

namespace boreas {

struct OverlapTiming {
  double boundary = 0, interior = 0, comm = 0, wait = 0, pack = 0, unpack = 0;
  double calls = 0;  // posting receives and sends
  long steps = 0, exchanges = 0;
  long long redundant_cells = 0;  // fluid ghost cells computed by CRMT's local steps
  // Time the rank spends on communication: MPI calls, waiting, packing and unpacking.
  double mpi() const { return calls + wait + pack + unpack; }
};

// Seed 001's model for one run, from per-step C_B, C_NB, M, W (slowest rank). Without overlap
// T_n = C + M. With overlap, communication is hidden when C_NB > M and T_m = C + W; otherwise
// the computation is hidden and T_p = C_B + M. hidden_fraction = 1 - W / M.
struct OverlapModel {
  const char* regime;  // "no_overlap", "communication_hidden", "computation_hidden"
  double predicted_step_s;
  double hidden_fraction;
};

inline OverlapModel classify_overlap(OverlapKind k, double c_b, double c_nb, double m, double w) {
  const double c = c_b + c_nb;
  const double hidden = m > 0 ? 1.0 - w / m : 1.0;
  if (k == OverlapKind::None || k == OverlapKind::NonBlocking) return {"no_overlap", c + m, hidden};
  if (c_nb > m) return {"communication_hidden", c + w, hidden};
  return {"computation_hidden", c_b + m, hidden};
}

// Boundary slabs (`thickness` cells, the depth the messages carry, per axis with ghosts) grouped
// by axis, and the interior box, in block-local coordinates. Group d covers every cell within
// `thickness` of a low/high face of axis d that lies in no slab of an axis < d, so the groups and
// the interior partition the owned box.
struct StepRegions {
  using Range = std::pair<std::array<int, 3>, std::array<int, 3>>;
  std::array<std::vector<Range>, 3> groups;
  Range interior;
  std::vector<Range> interior_chunks;  // the interior cut along its slowest axis, for polling
  Range empty{{0, 0, 0}, {0, 0, 0}};

  StepRegions(const DenseGeometry& g, int chunks, int thickness) {
    std::array<int, 3> in_lo{0, 0, 0}, in_hi{g.n[0], g.n[1], g.n[2]};
    for (int d = 0; d < 3; ++d) {
      if (g.g[d] == 0) continue;
      const int low_end = std::min(thickness, g.n[d]), high_start = std::max(low_end, g.n[d] - thickness);
      std::array<int, 3> lo = in_lo, hi = in_hi;  // axes < d already restricted
      lo[d] = 0;
      hi[d] = low_end;
      groups[d].push_back({lo, hi});
      lo[d] = high_start;
      hi[d] = g.n[d];
      groups[d].push_back({lo, hi});
      in_lo[d] = low_end;
      in_hi[d] = high_start;
    }
    interior = {in_lo, in_hi};
    const int axis = g.n[2] > 1 ? 2 : 1;
    const int len = std::max(0, in_hi[axis] - in_lo[axis]);
    const int parts = std::max(1, std::min(chunks, len));
    for (int c = 0; c < parts; ++c) {
      Range r = interior;
      r.first[axis] = in_lo[axis] + len * c / parts;
      r.second[axis] = in_lo[axis] + len * (c + 1) / parts;
      interior_chunks.push_back(r);
    }
  }
};

// Fluid ghost cells within depth e of a block's owned box, for e = 0..max_depth (one pass over
// the flags): the cells a CRMT local step computes beyond the owned ones.
template <class L, class Real>
std::vector<long long> fluid_shell_cells(const Block<L, Real>& block, int max_depth) {
  const DenseGeometry& g = block.field().geom;
  auto flags = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), block.field().flags);
  const int e[3] = {g.g[0] ? max_depth : 0, g.g[1] ? max_depth : 0, g.g[2] ? max_depth : 0};
  auto outside = [](int x, int n) { return x < 0 ? -x : (x >= n ? x - n + 1 : 0); };
  std::vector<long long> within(max_depth + 1, 0);
  for (int z = -e[2]; z < g.n[2] + e[2]; ++z)
    for (int y = -e[1]; y < g.n[1] + e[1]; ++y)
      for (int x = -e[0]; x < g.n[0] + e[0]; ++x) {
        const int depth = std::max({outside(x, g.n[0]), outside(y, g.n[1]), outside(z, g.n[2])});
        if (depth > 0 && flags(g.index(x, y, z)) == flag::fluid) ++within[depth];
      }
  for (int d = 1; d <= max_depth; ++d) within[d] += within[d - 1];
  return within;
}

// The same, summed over a rank's blocks.
template <class L, class Real>
std::vector<long long> fluid_shell_cells(const std::vector<Block<L, Real>*>& blocks, int max_depth) {
  std::vector<long long> sum(max_depth + 1, 0);
  for (const Block<L, Real>* b : blocks) {
    const std::vector<long long> one = fluid_shell_cells(*b, max_depth);
    for (int d = 0; d <= max_depth; ++d) sum[d] += one[d];
  }
  return sum;
}

template <class L, class Real>
class OverlapStepper {
 public:
  // `halos` fill the schedule's ghost width (at most the blocks' allocated ghosts) of `blocks`
  // (the rank's, in the halos' slot order), one halo for each exchange the scheme needs.
  OverlapStepper(const std::vector<Block<L, Real>*>& blocks, HaloSet<L, Real>& halos, OverlapKind kind,
                 const CrmtSchedule& schedule)
      : blocks_(blocks), halos_(halos), kind_(kind), schedule_(schedule),
        instances_(kind == OverlapKind::Streams ? 4 : 0) {
    for (const Block<L, Real>* b : blocks_) regions_.emplace_back(b->field().geom, 4, schedule.ghost_width());
    const std::vector<long long> shells = fluid_shell_cells(blocks_, schedule_.ghost_width());
    for (int s = 1; s < schedule_.steps_per_exchange(); ++s) shell_cells_.push_back(shells[schedule_.computed_depth(s)]);
  }

  const OverlapTiming& timing() const { return t_; }
  OverlapKind kind() const { return kind_; }
  const CrmtSchedule& schedule() const { return schedule_; }
  // The ghosts were just filled (initial state, restore): the next cycle starts.
  void restart_cycle() { cycle_step_ = 0; }

  void step() {
    for (Block<L, Real>* b : blocks_) b->scheme().begin_parts();
    ++cycle_step_;
    if (!schedule_.exchanges_at(cycle_step_)) {
      step_local(schedule_.computed_depth(cycle_step_));
      t_.redundant_cells += shell_cells_[cycle_step_ - 1];
    } else {
      // All blocks step together, so the first tells what their new state needs.
      const HaloTransfer transfer = blocks_.front()->scheme().exchange_after_step();
      halo_ = &halos_[transfer];
      halos_.count(transfer);
      switch (kind_) {
        case OverlapKind::None: step_none(); break;
        case OverlapKind::NonBlocking: step_nonblocking(); break;
        case OverlapKind::Interior: step_interior(); break;
        case OverlapKind::Streams: step_streams(); break;
        case OverlapKind::Systolic: step_systolic(); break;
      }
      cycle_step_ = 0;
      ++t_.exchanges;
    }
    Kokkos::fence();  // unpacks done before the receive buffers are posted again
    for (Block<L, Real>* b : blocks_) b->scheme().finish_parts();
    ++t_.steps;
  }

 private:
  using Clock = std::chrono::steady_clock;
  // Region `r` of every block: r(regions of block b) -> range.
  template <class Pick>
  void compute(const Pick& pick) {
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      const StepRegions::Range& r = pick(regions_[b]);
      blocks_[b]->scheme().step_part(r.first, r.second);
    }
  }

  void compute_all(double& into) {
    const auto t0 = Clock::now();
    for (Block<L, Real>* b : blocks_) {
      const DenseGeometry& g = b->field().geom;
      b->scheme().step_part({0, 0, 0}, {g.n[0], g.n[1], g.n[2]});
    }
    ExecSpace().fence();
    into += seconds_since(t0);
  }

  // A CRMT step without exchange: the owned box and the ghost cells to `depth`, in one sweep.
  void step_local(int depth) {
    const auto t0 = Clock::now();
    for (Block<L, Real>* b : blocks_) {
      const DenseGeometry& g = b->field().geom;
      std::array<int, 3> lo{}, hi{};
      for (int d = 0; d < 3; ++d) {
        const int e = g.g[d] ? depth : 0;
        lo[d] = -e;
        hi[d] = g.n[d] + e;
      }
      b->scheme().step_part(lo, hi);
    }
    ExecSpace().fence();
    t_.interior += seconds_since(t0);
  }

  void post_receives() {
    const auto t0 = Clock::now();
    halo_->post_receives();
    t_.calls += seconds_since(t0);
  }

  void send(int m) {
    const auto t0 = Clock::now();
    halo_->send(m);
    t_.calls += seconds_since(t0);
  }

  void compute_group(int d) {
    const auto t0 = Clock::now();
    for (std::size_t b = 0; b < blocks_.size(); ++b)
      for (const auto& r : regions_[b].groups[d]) blocks_[b]->scheme().step_part(r.first, r.second);
    ExecSpace().fence();
    t_.boundary += seconds_since(t0);
  }

  // The lattices this step writes.
  Lattices<Real> target() const {
    Lattices<Real> f;
    for (Block<L, Real>* b : blocks_) f.push_back(b->scheme().parts_target());
    return f;
  }

  void pack_and_send_all(const Lattices<Real>& f) {
    auto t0 = Clock::now();
    const auto& sends = halo_->plan().sends;
    for (std::size_t m = 0; m < sends.size(); ++m) halo_->pack(int(m), f);
    halo_->copy_local(f);
    ExecSpace().fence();
    t_.pack += seconds_since(t0);
    first_send_ = Clock::now();
    for (std::size_t m = 0; m < sends.size(); ++m) send(int(m));
    unpack_local(f, -1);
  }

  // Copies between the rank's own blocks, once their sends are packed.
  void unpack_local(const Lattices<Real>& f, int group) {
    const auto t0 = Clock::now();
    halo_->unpack_local(f, group);
    ExecSpace().fence();
    t_.unpack += seconds_since(t0);
  }

  void pack_and_send_group(const Lattices<Real>& f, int d) {
    auto t0 = Clock::now();
    const auto& sends = halo_->plan().sends;
    bool any = false;
    for (std::size_t m = 0; m < sends.size(); ++m)
      if (sends[m].group == d) {
        halo_->pack(int(m), f);
        any = true;
      }
    if (!any) return;
    ExecSpace().fence();
    t_.pack += seconds_since(t0);
    if (!sending_) first_send_ = Clock::now();
    sending_ = true;
    for (std::size_t m = 0; m < sends.size(); ++m)
      if (sends[m].group == d) send(int(m));
    unpack_local(f, d);
  }

  // Polls between interior chunks; notes when the last message is in.
  void interior_with_progress(const Lattices<Real>& f) {
    std::size_t chunks = 0;
    for (const StepRegions& r : regions_) chunks = std::max(chunks, r.interior_chunks.size());
    for (std::size_t c = 0; c < chunks; ++c) {
      const auto t0 = Clock::now();
      compute([&](const StepRegions& r) -> const StepRegions::Range& {
        return c < r.interior_chunks.size() ? r.interior_chunks[c] : r.empty;
      });
      ExecSpace().fence();
      t_.interior += seconds_since(t0);
      poll(f);
    }
  }

  void poll(const Lattices<Real>& f) {
    if (arrived_) return;
    const auto t0 = Clock::now();
    if (halo_->progress(f)) {
      arrived_ = true;
      t_.comm += seconds_since(first_send_);
    }
    ExecSpace().fence();
    t_.unpack += seconds_since(t0);
  }

  void finish(const Lattices<Real>& f) {
    if (!arrived_) {
      const auto t0 = Clock::now();
      halo_->wait_receives(f);
      ExecSpace().fence();
      t_.wait += seconds_since(t0);
      t_.comm += seconds_since(first_send_);
    }
    halo_->wait_sends();
    arrived_ = false;
    sending_ = false;
  }

  void step_none() {
    const auto f = target();
    compute_all(t_.interior);
    post_receives();
    pack_and_send_all(f);
    finish(f);
  }

  void step_nonblocking() {
    const auto f = target();
    post_receives();
    compute_all(t_.interior);
    pack_and_send_all(f);
    finish(f);
  }

  void step_interior() {
    const auto f = target();
    post_receives();
    for (int d = 0; d < 3; ++d) compute_group(d);
    pack_and_send_all(f);
    interior_with_progress(f);
    finish(f);
  }

  void step_systolic() {
    const auto f = target();
    post_receives();
    for (int d = 0; d < 3; ++d) {
      compute_group(d);
      pack_and_send_group(f, d);
      if (sending_) poll(f);
    }
    halo_->copy_local(f);
    interior_with_progress(f);
    finish(f);
  }

  void step_streams() {
    const auto f = target();
    post_receives();
    for (int d = 0; d < 3; ++d) compute_group(d);
    const auto& sends = halo_->plan().sends;
    auto t0 = Clock::now();
    for (std::size_t m = 0; m < sends.size(); ++m) halo_->pack(int(m), f, instances_[m]);
    t_.pack += seconds_since(t0);
    auto send_all = [&] {
      first_send_ = Clock::now();
      for (std::size_t m = 0; m < sends.size(); ++m) {
        instances_[m].fence();
        send(int(m));
      }
      halo_->unpack_local(f);
    };
    // On devices the interior runs on the default instance while the packs drain on theirs
    // (non-blocking streams: nothing orders them but fences; compute_group fenced the boundary
    // cells the packs read, and the interior writes none of them); on host backends kernels
    // return only when done, so the sends must go out first.
    if (exec_is_host) send_all();
    const auto t_interior = Clock::now();
    compute([](const StepRegions& r) -> const StepRegions::Range& { return r.interior; });
    halo_->copy_local(f);
    if (!exec_is_host) send_all();
    ExecSpace().fence();
    t_.interior += seconds_since(t_interior);
    const auto t_wait = Clock::now();
    for (int m = halo_->wait_one(); m != MPI_UNDEFINED; m = halo_->wait_one())
      halo_->unpack(m, f, instances_[m]);  // on arrival, on the message's own instance
    instances_.fence();
    t_.comm += seconds_since(first_send_);
    t_.wait += seconds_since(t_wait);
    halo_->wait_sends();
  }

  std::vector<Block<L, Real>*> blocks_;
  HaloSet<L, Real>& halos_;
  Halo<L, Real>* halo_ = nullptr;  // the current step's
  OverlapKind kind_;
  CrmtSchedule schedule_;
  std::vector<StepRegions> regions_;  // per block
  std::vector<long long> shell_cells_;  // per local step s of a cycle: fluid_shell_cells(depth)
  int cycle_step_ = 0;
  ExecInstances instances_;
  OverlapTiming t_;
  Clock::time_point first_send_;
  bool arrived_ = false, sending_ = false;
};

}  // namespace boreas
