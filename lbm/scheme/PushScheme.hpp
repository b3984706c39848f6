#pragma once
// ab_push: two lattices in the streamed layout; a step collides each cell's incoming populations
// and pushes the results into the other lattice.
#include "lbm/scheme/PushStep.hpp"
#include "lbm/scheme/Conversions.hpp"
#include "lbm/scheme/StreamingScheme.hpp"

namespace boreas {

template <class L, class Real>
class PushScheme : public StreamingScheme<L, Real> {
 public:
  explicit PushScheme(const SchemeContext<Real>& context) : StreamingScheme<L, Real>(context) {
    f_[0] = Populations<Real>("populations_a", context.field.storage);
    f_[1] = Populations<Real>("populations_b", context.field.storage);
  }

  void load_canonical(const Populations<Real>& natural) override {
    cur_ = 0;
    copy_canonical<L>(this->c_.field, natural, f_[0], f_[1], 0, this->c_.tile);
    to_streamed<L>(this->c_.field, this->c_.physics, natural, f_[0]);
  }
  Populations<Real> canonical() const override { return from_streamed<L>(this->c_.field, f_[cur_]); }
  const Populations<Real>& current() const override { return f_[cur_]; }

  // Pushes into periodic ghosts of the block's own cells go to their images once all parts are
  // done; those into other blocks' ghosts wait for the exchange (Push).
  void step_from_ghosts() override {
    const DenseGeometry& g = this->c_.field.geom;
    step_part({0, 0, 0}, {g.n[0], g.n[1], g.n[2]});
    finish_parts();
  }
  bool steps_in_parts() const override { return true; }
  void step_part(const std::array<int, 3>& lo, const std::array<int, 3>& hi) override {
    const SchemeContext<Real>& c = this->c_;
    const DeviceView<const std::uint8_t*> flags = c.field.flags;
    dispatch_collision<L>(c.physics.collision, [&](auto collision) {
      using C = decltype(collision);
      for_each_cell("boreas::lbm::push", c.field.geom, lo, hi,
                    PushStep<L, Real, C>{f_[cur_], f_[cur_ ^ 1], flags, c.field.geom, c.physics.bc, c.physics.params},
                    c.traversal);
    });
  }
  const Populations<Real>& parts_target() const override { return f_[cur_ ^ 1]; }
  void finish_parts() override {
    drain_ghosts<L>(this->c_.periodic, f_[cur_ ^ 1]);
    cur_ ^= 1;
  }
  HaloTransfer exchange_needed() const override { return HaloTransfer::Push; }
  std::vector<HaloTransfer> exchanges() const override { return {HaloTransfer::Push}; }
  std::string exchange_description() const override {
    return "reverse: what the step pushed into ghost cells goes to their owners after every step";
  }

 private:
  Populations<Real> f_[2];
  int cur_ = 0;
};

}  // namespace boreas
