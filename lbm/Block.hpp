#pragma once
// One block of the grid stepped by the streaming variant the deck chose (config.kernel): its storage
// (a Field: box, ghost layers, flags, population layout), the per-cell physics and the population
// lattice(s) with the variant's state (which lattice is current, the AA/swap layout, periodic ghost
// lists, AA outlet saves). A uniform single-rank run is one block; ranks and AMR levels add
// blocks, not code paths.
//
// Streaming variants (lbm/StreamedLayout.hpp describes their storage layouts):
//   ab_pull  two lattices, pull (PullStep.hpp): the reference
//   ab_push  two lattices, push (PushStep.hpp)
//   aa       one lattice, AA pattern, alternating local / neighbour steps (AAStep.hpp)
//   swap     one lattice, ordered swap sweep (SwapStep.hpp)
//   swap_prism  the swap sweep in prism order: tiles of `tile` rows sheared along z (SwapPrism.hpp)
//   merged<k>   ab_pull's lattices, k steps per sweep: temporal blocking by slabs and prisms
//               (MergedStep.hpp, CPUs) or overlapped tiles in team scratch (MergedTiles.hpp,
//               GPUs; config.merge_form); step counts not divisible by k end with single pull steps
//   merged_aa<k>  aa's one lattice, k AA steps per sweep in the slab schedule of merged<k>
//               (MergedAA.hpp); on devices, and on several ranks, it takes single aa steps
// All call the same per-cell physics, so they differ only in memory order.
//
// Canonical state: after every completed step the block's state is defined as the post-collision
// populations f*_q(x) of the fluid cells, exactly what ab_pull stores. The observables of
// lbm/FieldOps.hpp and save_state/restore_state work on it for every variant (in-place
// variants materialise it in a temporary lattice); restore_state rebuilds the variant's own
// layout from it, so a restored run continues bit for bit.
#include <cstdint>
#include <vector>

#include "core/Config.hpp"
#include "core/Error.hpp"
#include "core/ExactSum.hpp"
#include "core/Types.hpp"
#include "lbm/Boundary.hpp"
#include "lbm/Collision.hpp"
#include "lbm/DenseField.hpp"
#include "lbm/Field.hpp"
#include "lbm/FieldOps.hpp"
#include "lbm/Geometry.hpp"
#include "lbm/StreamedLayout.hpp"
#include "lbm/Traversal.hpp"

namespace boreas {

// Whether merged<k> sweeps in tiles (MergedTiles.hpp) rather than slabs (MergedStep.hpp).
inline bool merges_in_tiles(MergeForm form) {
  return form == MergeForm::Tiles || (form == MergeForm::Auto && !exec_is_host);
}

// Periodic ghosts grouped by the interior row (y, z) of their image: ghost(i), image(i) for i in
// [start(r), start(r + 1)), r = z n_y + y. merged<k> refreshes a row's ghosts right after the row
// is computed, so that ghosts always mirror their image in each lattice.
struct RowGhosts {
  DeviceView<long*> start, ghost, image;
};

// Copies data(to(i)) <- data(from(i)) of the flat population storage for i in [start(r),
// start(r + 1)), grouped by the interior row r = z n_y + y after whose step they are due
// (merged_aa<k>'s periodic ghost copies, MergedAA.hpp).
struct RowCopies {
  DeviceView<long*> start, from, to;
};

template <class L, class Real>
class Block {
 public:
  using lattice_type = L;
  using real_type = Real;

  Block(const Config& config, const DomainGeometry& domain, const Box& owned,
        const std::array<int, 3>& ghosts);

  const Field& field() const { return field_; }
  const CellPhysics<Real>& physics() const { return physics_; }
  StreamingKernel kernel() const { return kernel_; }
  // The lattice a step reads (its layout depends on the variant; see the file comment).
  const Populations<Real>& populations() const { return f_[cur_]; }

  // `steps` complete steps of the chosen variant, periodic boundaries included (the block is its
  // own periodic neighbour). The entry point for single-block runs.
  void advance(long steps);

  // One sweep of merged<k> (k steps) in tiles, reading the ghost cells as they are: for callers
  // that filled k ghost layers with a halo exchange (several ranks).
  void merged_sweep_from_ghosts();
  int merge_steps() const { return merge_steps_; }

  // One step in parts, for callers that exchange ghosts themselves (comm/Halo before every
  // step). ab_pull: collide_stream over any partition of the owned box into sub-boxes, then
  // finish_step(). Other variants: collide_stream_all() is one whole step (their periodic links
  // are completed inside; a Halo exchange before it is harmless) and finish_step() is a no-op.
  void collide_stream(const std::array<int, 3>& lo, const std::array<int, 3>& hi);
  void collide_stream_all();
  void finish_step();

  // The canonical state: the current lattice itself (natural layout) or a temporary copy. What
  // the observables of lbm/FieldOps.hpp read.
  Populations<Real> canonical() const;
  // Ghost slots of a canonical state that mirror this block's own cells across a periodic axis it
  // spans, as the moments' gather reads them (ghosts facing other blocks are the halo's).
  void fill_periodic_ghosts(const Populations<Real>& natural) const;

  // A device copy of the current populations, to fall back to the last good state.
  void save_state();
  void restore_state();

  // Where the current lattice keeps f*_q(x).
  enum class Layout { Natural, Reversed, Streamed };
  Layout layout() const { return layout_; }
  // swap / swap_prism on several ranks: true after a sweep, whose links to other ranks' cells a
  // halo exchange still has to swap (comm/HaloPlan.hpp, HaloTransfer::Swap); false after a state
  // was loaded, whose streamed layout pushed into ghost cells instead.
  bool swap_links_open() const { return swap_links_open_; }

  // Implementation steps, public only because nvcc requires the function enclosing an extended
  // device lambda to be publicly accessible; not meant for callers outside Block.
  void init_periodic(const DomainGeometry& domain);
  void init_outlet_saves();
  // Sets the variant's lattice(s) from a canonical (natural-layout) state.
  void load_canonical(const Populations<Real>& natural);
  void step_in_place();
  // Both ab_pull and merged<k> keep two natural-layout lattices and can take plain pull steps.
  bool two_natural_lattices() const {
    return kernel_ == StreamingKernel::ABPull || kernel_ == StreamingKernel::Merged;
  }
  // aa and merged_aa<k> keep one lattice in AA's alternating layouts.
  bool aa_pattern() const { return kernel_ == StreamingKernel::AA || kernel_ == StreamingKernel::MergedAA; }
  void pull_step();
  void init_row_ghosts();
  // `groups` sweeps of merged<k>, k steps each.
  void advance_merged(long groups);
  // Single block: periodic axes wrap; from_ghosts: ghosts were filled by a halo exchange.
  void advance_merged_tiles(long groups, bool from_ghosts);
  void init_aa_row_copies();
  void prepare_aa_neighbour_step();
  // `groups` sweeps of merged_aa<k>, k AA steps each.
  void advance_merged_aa(long groups);

 private:
  Field field_;
  CellPhysics<Real> physics_;
  StreamingKernel kernel_;
  Layout layout_ = Layout::Natural;
  bool swap_links_open_ = false;
  Populations<Real> f_[2];
  int cur_ = 0;
  PeriodicGhosts periodic_;
  int tile_;
  int merge_steps_;
  bool merge_tiles_;  // merged<k> sweeps in tiles (MergedTiles.hpp) rather than slabs
  RowGhosts row_ghosts_;  // merged<k>: periodic ghosts grouped by the row of their image
  DeviceView<int*> outlet_slot_;   // AA: column of a cell in outlet_post_, or -1
  DeviceView<long*> outlet_cells_;
  DeviceView<long*> outlet_row_start_;  // outlet cells of interior row r: [start(r), start(r + 1))
  RowCopies aa_fill_, aa_drain_;        // merged_aa<k>: periodic ghost copies by row
  DeviceView<Real**> outlet_post_;
  DeviceView<Real*> saved_;
};

}  // namespace boreas
