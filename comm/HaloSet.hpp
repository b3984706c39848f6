#pragma once
// The halos of a rank's blocks by what they move (HaloTransfer; a scheme may alternate between
// two, as aa does), and the traffic their plans predict for the exchanges made so far: what the
// run reports next to what the counting wrapper of comm/Mpi.hpp saw.
#include <map>
#include <memory>

#include "comm/Halo.hpp"

namespace boreas {

template <class L, class Real>
class HaloSet {
 public:
  struct Traffic {
    long long messages = 0, bytes = 0;
  };

  void add(HaloTransfer t, std::unique_ptr<Halo<L, Real>> halo) { halos_[t] = std::move(halo); }
  Halo<L, Real>& operator[](HaloTransfer t) const { return *halos_.at(t); }
  bool staged() const { return !halos_.empty() && halos_.begin()->second->staged(); }

  // The whole exchange through `t`'s halo, blocking.
  void exchange(HaloTransfer t, const Lattices<Real>& f) {
    (*this)[t].exchange(f);
    count(t);
  }
  // Notes one exchange made through `t`'s halo (whole, or phase by phase by comm/Overlap.hpp).
  void count(HaloTransfer t) {
    const HaloPlan& plan = (*this)[t].plan();
    predicted_.messages += plan.remote_messages();
    predicted_.bytes += static_cast<long long>(plan.remote_values()) * static_cast<long long>(sizeof(Real));
    ++exchanges_;
  }
  // This rank's messages and bytes to other ranks over all exchanges so far, by the plans.
  const Traffic& predicted() const { return predicted_; }
  long exchanges() const { return exchanges_; }

 private:
  std::map<HaloTransfer, std::unique_ptr<Halo<L, Real>>> halos_;
  Traffic predicted_;
  long exchanges_ = 0;
};

}  // namespace boreas
