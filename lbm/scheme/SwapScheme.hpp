#pragma once
// swap and swap_prism: one lattice in the streamed layout, updated by an ordered sweep that swaps
// each link's pair of populations in place (Mattila et al. 2007); swap_prism visits the rows in
// prism order (tiles of `tile` rows sheared along z).
#include "lbm/scheme/SwapPrism.hpp"
#include "lbm/scheme/SwapStep.hpp"
#include "lbm/scheme/Conversions.hpp"
#include "lbm/scheme/StreamingScheme.hpp"

namespace boreas {

template <class L, class Real>
class SwapScheme : public StreamingScheme<L, Real> {
 public:
  SwapScheme(const SchemeContext<Real>& context, bool prism)
      : StreamingScheme<L, Real>(context), f_("populations_a", context.field.storage), prism_(prism) {}

  void load_canonical(const Populations<Real>& natural) override {
    copy_canonical<L>(this->c_.field, natural, f_, Populations<Real>{}, 0, this->c_.tile);
    to_streamed<L>(this->c_.field, this->c_.physics, natural, f_);
    links_open_ = false;
  }
  Populations<Real> canonical() const override { return from_streamed<L>(this->c_.field, f_); }
  const Populations<Real>& current() const override { return f_; }

  // Links across the block's own periodic axes are swapped after the sweep; links to other
  // blocks stay open until the exchange (Swap).
  void step_from_ghosts() override {
    const SchemeContext<Real>& c = this->c_;
    const DeviceView<const std::uint8_t*> flags = c.field.flags;
    dispatch_collision<L>(c.physics.collision, [&](auto collision) {
      using C = decltype(collision);
      const SwapRow<L, Real, C> row{f_, flags, c.field.geom, c.physics.bc, c.physics.params};
      if (prism_)
        swap_prism_sweep(row, c.tile);
      else
        swap_sweep(row);
    });
    swap_periodic<L>(c.periodic, f_, c.field.geom);
    links_open_ = true;
  }
  // After a sweep its links to other blocks' cells are open (Swap); a state just loaded pushed
  // into ghost cells instead (Push).
  HaloTransfer exchange_needed() const override { return links_open_ ? HaloTransfer::Swap : HaloTransfer::Push; }
  std::vector<HaloTransfer> exchanges() const override { return {HaloTransfer::Push, HaloTransfer::Swap}; }
  std::string exchange_description() const override {
    return "swap: the sweep's links across blocks are swapped after every step";
  }

 private:
  Populations<Real> f_;
  bool prism_;
  bool links_open_ = false;
};

}  // namespace boreas
