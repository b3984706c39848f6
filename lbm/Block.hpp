#pragma once
// One block of the grid: its storage (a Field: box, ghost layers, flags, population layout), the
// per-cell physics and the streaming scheme the deck chose (config.kernel; lbm/scheme/), which
// owns the population lattice(s). A uniform single-rank run is one block; ranks and AMR levels add
// blocks, not code paths.
//
// Canonical state: after every completed step the block's state is defined as the post-collision
// populations f*_q(x) of the fluid cells, exactly what ab_pull stores. Every scheme converts to and
// from it; the observables of lbm/field/FieldOps.hpp and save_state/restore_state work on it, so all
// variants hash, check and restore alike, and a restored run continues bit for bit.
#include <array>
#include <memory>
#include <vector>

#include "core/Config.hpp"
#include "lbm/field/Field.hpp"
#include "lbm/field/FieldOps.hpp"
#include "lbm/field/Geometry.hpp"
#include "lbm/physics/InflowGenerator.hpp"
#include "lbm/scheme/StreamingScheme.hpp"

namespace boreas {

template <class L, class Real>
class Block {
 public:
  // `self_offsets`: the periodic shifts under which the block is its own neighbour
  // (GridBlock::self_offsets of the block set; its ghosts there mirror its own cells).
  Block(const Config& config, const DomainGeometry& domain, const Box& owned, const std::array<int, 3>& ghosts,
        const std::vector<std::array<int, 3>>& self_offsets);

  const Field& field() const { return scheme_->context().field; }
  const CellPhysics<Real>& physics() const { return scheme_->context().physics; }
  StreamingScheme<L, Real>& scheme() { return *scheme_; }
  const StreamingScheme<L, Real>& scheme() const { return *scheme_; }

  // The lattice the next step reads, in the scheme's layout (what halo exchanges fill).
  const Populations<Real>& populations() const { return scheme_->current(); }
  Populations<Real> canonical() const { return scheme_->canonical(); }
  // `steps` complete steps of a block that is its own periodic neighbour (single-block runs).
  void advance(long steps) { scheme_->advance(steps); }
  // The synthetic inflow turbulence for time step `step` (the next one computed); with it the
  // driver steps one step at a time.
  void update_inflow(long step) const { inflow_.update(step); }

  // Fills the ghosts of `natural` (a canonical state) that mirror this block's own cells across a
  // periodic axis it spans, with the populations the links into the block read: a single-block
  // run fills them before each step, so after it they lag behind.
  void fill_periodic_ghosts(const Populations<Real>& natural) const;
  // Density and velocity of the owned cells from a canonical state (its owned cells only).
  HostMacroscopic macroscopic(const Populations<Real>& natural) const;
  // The same on the device, into `out` (owned cells x 4: rho, ux, uy, uz).
  void moments(const Populations<Real>& natural, const CellMoments& out) const;

  // The owned cells' canonical populations on the host, cells x fastest, directions fastest within
  // a cell (what a checkpoint stores; `out` holds Q x the owned cells), and their replacement from
  // `count` such values: the ghosts keep what they hold until the next exchange, as after
  // restore_state.
  void owned_populations(Real* out) const;
  void load_owned_populations(const Real* values, std::size_t count);

  // A device copy of the canonical state, to fall back to the last good state.
  void save_state();
  void restore_state();

 private:
  InflowGenerator<Real> inflow_;  // before scheme_: the physics it builds holds the field
  std::unique_ptr<StreamingScheme<L, Real>> scheme_;
  DeviceView<Real*> saved_;
};

}  // namespace boreas
