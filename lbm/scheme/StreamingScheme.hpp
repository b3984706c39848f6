#pragma once
// A streaming scheme: one variant of the fused collision-streaming step over a block's Field. It
// owns its lattice(s) and their parity, converts to and from the canonical state (the
// post-collision populations in natural layout, what ab_pull stores), and states what a halo
// exchange has to move after its step. The per-cell physics (CellPhysics) is called from its
// kernels and knows nothing of it. Schemes (lbm/scheme/*Scheme.hpp):
//   PullScheme       ab_pull: two lattices, pull (PullStep.hpp); the reference
//   MergedScheme     merged<k>: ab_pull's lattices, k steps per sweep (MergedStep.hpp slabs on
//                    CPUs, MergedTiles.hpp tiles on GPUs; config.merge_form)
//   PushScheme       ab_push: two lattices, push (PushStep.hpp)
//   AAScheme         aa: one lattice, alternating local / neighbour steps (AAStep.hpp)
//   MergedAAScheme   merged_aa<k>: aa's lattice, k AA steps per sweep (MergedAA.hpp)
//   SwapScheme       swap and swap_prism: one lattice, ordered swap sweep (SwapStep.hpp,
//                    SwapPrism.hpp)
#include <memory>
#include <string>
#include <vector>

#include "core/Config.hpp"
#include "core/Error.hpp"
#include "lbm/physics/Boundary.hpp"
#include "lbm/field/Field.hpp"
#include "lbm/scheme/StreamedLayout.hpp"
#include "lbm/scheme/Traversal.hpp"
#include "lbm/scheme/HaloTransfer.hpp"

namespace boreas {

// Whether merged<k> sweeps in tiles (MergedTiles.hpp) rather than slabs (MergedStep.hpp).
inline bool merges_in_tiles(MergeForm form) {
  return form == MergeForm::Tiles || (form == MergeForm::Auto && !exec_is_host);
}

// What every scheme of a block reads: its storage, the physics, the periodic ghosts that mirror
// its own cells (axes it spans whole), the deck's prism tile and how the steps visit cells.
template <class Real>
struct SchemeContext {
  Field field;
  CellPhysics<Real> physics;
  PeriodicGhosts periodic;
  int tile = 16;
  Traversal traversal = Traversal::Auto;
};

template <class L, class Real>
class StreamingScheme {
 public:
  explicit StreamingScheme(const SchemeContext<Real>& context) : c_(context) {}
  virtual ~StreamingScheme() = default;
  StreamingScheme(const StreamingScheme&) = delete;
  StreamingScheme& operator=(const StreamingScheme&) = delete;

  const SchemeContext<Real>& context() const { return c_; }

  // Sets the lattice(s) from a canonical state (natural layout, ghost cells included).
  virtual void load_canonical(const Populations<Real>& natural) = 0;
  // The canonical state: the current lattice itself or a fresh copy.
  virtual Populations<Real> canonical() const = 0;
  // The lattice the next step reads, in the scheme's current layout (what an exchange fills).
  virtual const Populations<Real>& current() const = 0;

  // `steps` complete steps of a block that is its own periodic neighbour (single-block runs).
  // Schemes whose step completes the links across the block's own periodic axes take it as is.
  virtual void advance(long steps) {
    for (long s = 0; s < steps; ++s) step_from_ghosts();
  }

  // Several blocks: one step from ghosts an exchange filled; afterwards exchange_needed() says
  // what the next exchange moves (every exchange a scheme can need: exchanges()).
  virtual void step_from_ghosts() = 0;
  virtual HaloTransfer exchange_needed() const = 0;
  virtual std::vector<HaloTransfer> exchanges() const = 0;
  virtual std::string exchange_description() const = 0;
  // A sweep of steps_per_sweep() steps from that many exchanged ghost layers (merged<k>).
  virtual int steps_per_sweep() const { return 1; }
  virtual void sweep_from_ghosts() { step_from_ghosts(); }

  // Schemes that can compute one step in any partition of the owned box (Scheme::steps_in_parts,
  // core/Scheme.hpp): what the overlap strategies of comm/Overlap.hpp need. A step is
  // begin_parts(), step_part() over the parts, then finish_parts(); the exchange its new state
  // needs (exchange_after_step(), known before the step) runs between the parts and the finish.
  // Pull-type schemes also take parts reaching into the ghosts (CRMT's redundant cells).
  virtual bool steps_in_parts() const { return false; }
  virtual void begin_parts() {}
  virtual void step_part(const std::array<int, 3>&, const std::array<int, 3>&) {
    throw Error("this streaming variant cannot be stepped in sub-boxes (the overlap strategies need ab_pull, ab_push or aa)");
  }
  // The lattice the parts write, and the completion of the step once all parts are computed.
  virtual const Populations<Real>& parts_target() const { return current(); }
  virtual void finish_parts() {}
  virtual HaloTransfer exchange_after_step() const { return exchange_needed(); }

 protected:
  SchemeContext<Real> c_;
};

}  // namespace boreas
