#pragma once
// The time loop (ARCHITECTURE.md "One step"). A uniform run is level 0 of the schedule that
// AMR's subcycling extends: there a finer level takes two of these steps per coarser step between
// its couplings. One step of a level is every block's scheme step followed by the exchange its new
// state needs (StreamingScheme::exchange_needed), under the exchange policy the run calls for:
//   OwnGhosts   one block whose ghosts mirror only its own cells (a single-block run whose ghost
//               width is one step's reach: 1, or 2 with quadratic walls): the scheme completes
//               its periodic links itself and sweeps as many steps at once as it can (merged<k>:
//               k steps per sweep)
//   Blocking    schemes that sweep whole blocks (merged, swap families): a sweep (k steps from k
//               exchanged layers for merged<k>, one step otherwise), then the blocking exchange
//   Overlapped  schemes that step in parts (ab_pull, ab_push, aa): the deck's overlap strategy
//               around every exchange and, for pull-type schemes, CRMT's cycle of h steps per
//               exchange of h layers (comm/Overlap.hpp, comm/Crmt.hpp)
// Every policy moves the same values, so all give the same fields bit for bit.
#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <numeric>
#include <vector>

#include "comm/Crmt.hpp"
#include "comm/HaloSet.hpp"
#include "comm/Mpi.hpp"
#include "comm/Overlap.hpp"
#include "core/Config.hpp"
#include "core/Timers.hpp"
#include "io/Json.hpp"
#include "lbm/Block.hpp"

namespace boreas {

// What the policies need of the run: the rank's blocks (slot order), the run's communicator,
// and halos of a given depth and transfer over those blocks.
template <class L, class Real>
struct StepperSetup {
  const Config* config = nullptr;
  std::vector<Block<L, Real>*> blocks;
  Comm* comm = nullptr;
  std::function<std::unique_ptr<Halo<L, Real>>(int depth, HaloTransfer)> make_halo;

  // Every block's current lattice, in slot order.
  Lattices<Real> lattices() const {
    Lattices<Real> f;
    for (const Block<L, Real>* b : blocks) f.push_back(b->populations());
    return f;
  }
  // Halos `depth` deep for every exchange the blocks' scheme can need.
  HaloSet<L, Real> halos(int depth) const {
    HaloSet<L, Real> set;
    for (HaloTransfer t : blocks.front()->scheme().exchanges()) set.add(t, make_halo(depth, t));
    return set;
  }
  // The exchange the blocks' current state needs (all blocks step together, so the first tells).
  void exchange(HaloSet<L, Real>& halos) const { halos.exchange(blocks.front()->scheme().exchange_needed(), lattices()); }
  long long fluid_cells() const {
    long long n = 0;
    for (const Block<L, Real>* b : blocks) n += b->field().fluid_cells;
    return n;
  }
};

template <class L, class Real>
class ExchangePolicy {
 public:
  virtual ~ExchangePolicy() = default;
  // At least one and at most `remaining` steps of every block; returns how many.
  virtual long step(long remaining, Timers& timers) = 0;
  // The blocks' lattices were reloaded (a restore): their ghosts are filled anew.
  virtual void reloaded() {}
  // The exchanges' part of the run's parallel report, over the steps this policy made.
  virtual void report(Json& parallel) const = 0;
};

// Messages and bytes: what the plans predict for every exchange of the run, what the counting
// wrapper saw, and the means per exchange and per step (`in_steps` of the exchanges were made
// by steps, the others filled ghosts of a new or reloaded state), all ranks together.
template <class L, class Real>
Json message_report(const Comm& comm, const HaloSet<L, Real>& halos, long in_steps, double steps) {
  const long total = std::max(1L, halos.exchanges());
  const long long messages = comm.sum(halos.predicted().messages), bytes = comm.sum(halos.predicted().bytes);
  Json msgs = Json::object();
  msgs["predicted"] = messages;
  msgs["counted"] = comm.sum(comm.messages_sent());
  msgs["predicted_bytes"] = bytes;
  msgs["counted_bytes"] = comm.sum(comm.bytes_sent());
  msgs["predicted_per_exchange"] = double(messages) / total;  // the mean where plans alternate (aa, swap)
  msgs["predicted_bytes_per_exchange"] = double(bytes) / total;
  msgs["exchanges"] = halos.exchanges();
  msgs["per_step"] = double(messages) / total * double(in_steps) / steps;
  msgs["bytes_per_step"] = double(bytes) / total * double(in_steps) / steps;
  return msgs;
}

template <class L, class Real>
class OwnGhosts final : public ExchangePolicy<L, Real> {
 public:
  explicit OwnGhosts(Block<L, Real>& block) : block_(block) {}
  long step(long remaining, Timers& timers) override {
    auto t = timers.scope("lbm");
    block_.advance(remaining);
    return remaining;
  }
  void report(Json&) const override {}

 private:
  Block<L, Real>& block_;
};

template <class L, class Real>
class Blocking final : public ExchangePolicy<L, Real> {
 public:
  explicit Blocking(const StepperSetup<L, Real>& setup)
      : s_(setup), halos_(setup.halos(setup.blocks.front()->scheme().steps_per_sweep())) {
    s_.comm->reset_counters();
    reloaded();  // the initial state's ghosts; for streamed layouts, what the conversion wrote into ghosts
  }

  long step(long remaining, Timers& timers) override {
    const int k = s_.blocks.front()->scheme().steps_per_sweep();
    const bool sweep = k > 1 && remaining >= k;
    auto t0 = std::chrono::steady_clock::now();
    for (Block<L, Real>* b : s_.blocks) {
      if (sweep)
        b->scheme().sweep_from_ghosts();
      else
        b->scheme().step_from_ghosts();
    }
    ExecSpace().fence();
    timers.add("lbm", seconds_since(t0));
    t0 = std::chrono::steady_clock::now();
    s_.exchange(halos_);
    timers.add("boundaries", seconds_since(t0));
    const long made = sweep ? k : 1;
    ++in_steps_;
    steps_ += made;
    return made;
  }
  void reloaded() override { s_.exchange(halos_); }

  void report(Json& p) const override {
    p["overlap"] = "none";
    p["exchange"] = s_.blocks.front()->scheme().exchange_description();
    p["messages"] = message_report(*s_.comm, halos_, in_steps_, double(std::max(1L, steps_)));
  }

 private:
  StepperSetup<L, Real> s_;
  HaloSet<L, Real> halos_;
  long in_steps_ = 0;  // exchanges made by steps (sweeps count one)
  long steps_ = 0;     // steps made (a restart's run counts from its checkpoint)
};

template <class L, class Real>
class Overlapped final : public ExchangePolicy<L, Real> {
 public:
  // `ghost_width`: CRMT's h (pull-type schemes; 1 otherwise), 0 for "auto".
  Overlapped(const StepperSetup<L, Real>& setup, int ghost_width) : s_(setup) {
    // Only a pull-type state has its ghosts to compute into; deck validation refuses the rest.
    const std::vector<HaloTransfer> pull_only{HaloTransfer::Pull};
    if (ghost_width != 1 && s_.blocks.front()->scheme().exchanges() != pull_only)
      throw Error("parallel.ghost_width other than 1 needs a pull-type scheme (ab_pull)");
    const OperatorReach reach = uniform_grid_reach<L>(s_.config->quadratic_walls());
    const int h = ghost_width == 0 ? choose_ghost_width(reach) : ghost_width;
    const CrmtSchedule schedule = make_schedule(h, reach);
    halos_ = s_.halos(h);
    s_.comm->reset_counters();  // count the run's exchanges only, not the probes of "auto"
    s_.exchange(halos_);
    stepper_ = std::make_unique<OverlapStepper<L, Real>>(s_.blocks, halos_, s_.config->parallel.overlap, schedule);
  }

  long step(long, Timers& timers) override {
    const OverlapTiming before = stepper_->timing();
    const auto t0 = std::chrono::steady_clock::now();
    stepper_->step();
    const double total = seconds_since(t0);
    const OverlapTiming& after = stepper_->timing();
    const double compute = after.boundary + after.interior - before.boundary - before.interior;
    timers.add("lbm", compute);
    timers.add("boundaries", total - compute);  // exchange time not hidden behind compute
    return 1;
  }
  void reloaded() override {
    s_.exchange(halos_);
    stepper_->restart_cycle();
  }

  void report(Json& p) const override {
    const Comm& comm = *s_.comm;
    const OverlapTiming& t = stepper_->timing();
    p["overlap"] = overlap_name(stepper_->kind());
    p["exchange"] = s_.blocks.front()->scheme().exchange_description();
    p["buffers"] = halos_.staged() ? "host" : "device";
    const double steps = std::max(1L, t.steps);
    // Per step, slowest rank and mean (seed 001 reports the slowest rank).
    Json per_step = Json::object();
    const std::pair<const char*, double> terms[] = {
        {"C_B", t.boundary}, {"C_NB", t.interior}, {"M", t.comm},        {"W", t.wait},
        {"pack", t.pack},    {"unpack", t.unpack}, {"mpi_calls", t.calls}, {"mpi", t.mpi()}};
    double slowest[8], mean[8];
    for (int i = 0; i < 8; ++i) {
      const auto all = comm.gather(terms[i].second / steps);
      slowest[i] = *std::max_element(all.begin(), all.end());
      mean[i] = std::accumulate(all.begin(), all.end(), 0.0) / all.size();
      Json v = Json::object();
      v["slowest_rank"] = slowest[i];
      v["mean"] = mean[i];
      per_step[terms[i].first] = v;
    }
    p["time_per_step_s"] = per_step;
    const OverlapModel model = classify_overlap(stepper_->kind(), slowest[0], slowest[1], slowest[2], slowest[3]);
    Json mj = Json::object();
    mj["regime"] = model.regime;
    mj["predicted_step_s"] = model.predicted_step_s;
    mj["hidden_fraction_of_M"] = model.hidden_fraction;
    p["model"] = mj;
    p["messages"] = message_report(comm, halos_, t.exchanges, steps);
    p["crmt"] = crmt_report(t, steps);
  }

 private:
  static CrmtSchedule make_schedule(int h, const OperatorReach& reach) {
    try {
      return CrmtSchedule(h, reach);
    } catch (const std::invalid_argument& e) {
      throw Error(std::string("parallel.ghost_width: ") + e.what());
    }
  }

  // [parallel] ghost_width = "auto": for every candidate h from 1 to max_ghost_width, measure what
  // one exchange of an h-deep halo costs right after an owned-box update, as in a run (latency,
  // bandwidth, pack/unpack, and the wait for the slower partner; median of 5, slowest rank), and
  // the time of one cell update; take the h with the least modelled cost per step on the slowest
  // rank:  cost(h) = (exchange(h) + cell_update * redundant cells per cycle(h)) / k(h).
  // Neither probe changes the state: exchanges only fill ghosts from the owned cells, and the
  // update writes the lattice the next step overwrites (pull-type schemes only take CRMT widths).
  int choose_ghost_width(const OperatorReach& reach) {
    const Comm& comm = *s_.comm;
    std::vector<double> updates;
    auto timed_update = [&] {
      const auto t0 = std::chrono::steady_clock::now();
      for (Block<L, Real>* b : s_.blocks) {
        const Box& box = b->field().box;
        b->scheme().step_part({0, 0, 0}, {box.extent(0), box.extent(1), box.extent(2)});
      }
      ExecSpace().fence();
      updates.push_back(seconds_since(t0));
    };
    Json candidates = Json::array();
    std::vector<std::pair<int, double>> exchange;  // (h, median exchange time on this rank)
    const int max_width = s_.config->parallel.max_ghost_width;
    for (int h = 1; h <= max_width; ++h) {
      if (CrmtSchedule::steps_per_exchange(h, reach) < 1) continue;
      const auto probe = s_.make_halo(h, HaloTransfer::Pull);
      probe->exchange(s_.lattices());
      std::vector<double> times;
      for (int i = 0; i < 5; ++i) {
        timed_update();
        const auto t0 = std::chrono::steady_clock::now();
        probe->exchange(s_.lattices());
        times.push_back(seconds_since(t0));
      }
      exchange.push_back({h, median(times)});
      Json c = Json::object();
      c["ghost_width"] = h;
      c["messages_per_exchange"] = comm.sum((long long)probe->plan().remote_messages());
      c["bytes_per_exchange"] = comm.sum((long long)probe->plan().remote_values() * (long long)sizeof(Real));
      candidates.push_back(c);
    }
    const double cell_update = median(updates) / double(std::max(1LL, s_.fluid_cells()));
    const std::vector<long long> shells = fluid_shell_cells(s_.blocks, max_width);
    double best_cost = 0;
    int best = 1;
    for (std::size_t i = 0; i < exchange.size(); ++i) {
      const CrmtSchedule s(exchange[i].first, reach);
      long long redundant = 0;
      for (int step = 1; step < s.steps_per_exchange(); ++step) redundant += shells[s.computed_depth(step)];
      const double cost = comm.max((exchange[i].second + cell_update * double(redundant)) / s.steps_per_exchange());
      Json& c = candidates[i];
      c["steps_per_exchange"] = s.steps_per_exchange();
      c["exchange_s"] = comm.max(exchange[i].second);
      c["redundant_cells_per_step"] = double(comm.sum(redundant)) / s.steps_per_exchange();
      c["modelled_cost_per_step_s"] = cost;
      if (i == 0 || cost < best_cost) {
        best_cost = cost;
        best = exchange[i].first;
      }
    }
    auto_choice_ = Json::object();
    auto_choice_["cell_update_s"] = comm.max(cell_update);
    auto_choice_["candidates"] = candidates;
    auto_choice_["chosen"] = best;
    return best;
  }

  Json crmt_report(const OverlapTiming& t, double steps) const {
    const Comm& comm = *s_.comm;
    const CrmtSchedule& s = stepper_->schedule();
    Json c = Json::object();
    c["ghost_width"] = s.ghost_width();
    c["steps_per_exchange"] = s.steps_per_exchange();
    c["reach_per_step"] = s.reach().per_step;
    c["reach_per_exchange"] = s.reach().per_exchange;
    c["exchanges_in_steps"] = comm.sum((long long)t.exchanges) / comm.size();
    c["redundant_cells_per_step"] = double(comm.sum(t.redundant_cells)) / steps;
    c["redundant_fraction"] = double(comm.sum(t.redundant_cells)) / steps / double(std::max(1LL, comm.sum(s_.fluid_cells())));
    if (!auto_choice_.is_null()) c["auto"] = auto_choice_;
    return c;
  }

  StepperSetup<L, Real> s_;
  HaloSet<L, Real> halos_;
  std::unique_ptr<OverlapStepper<L, Real>> stepper_;
  Json auto_choice_;  // the measurements behind ghost_width = "auto"
};

// Level 0: every block of the rank, one policy.
template <class L, class Real>
class Stepper {
 public:
  // The policy the blocks' scheme and the deck call for (ghost widths a scheme cannot take were
  // refused with the deck, core/Deck.cpp).
  explicit Stepper(const StepperSetup<L, Real>& setup, int blocks_in_run) {
    const Config& c = *setup.config;
    const StreamingScheme<L, Real>& scheme = setup.blocks.front()->scheme();
    // One block exchanging every step (ghost width = one step's reach) fills its own ghosts.
    if (blocks_in_run == 1 && c.parallel.ghost_width == uniform_grid_reach<L>(c.quadratic_walls()).per_step)
      exchange_ = std::make_unique<OwnGhosts<L, Real>>(*setup.blocks.front());
    else if (scheme.steps_in_parts())
      exchange_ = std::make_unique<Overlapped<L, Real>>(setup, c.parallel.ghost_width);
    else
      exchange_ = std::make_unique<Blocking<L, Real>>(setup);
  }

  void advance(long steps, Timers& timers) {
    for (long s = 0; s < steps;) s += exchange_->step(steps - s, timers);
  }
  void reloaded() { exchange_->reloaded(); }
  void report(Json& parallel) const { exchange_->report(parallel); }

 private:
  std::unique_ptr<ExchangePolicy<L, Real>> exchange_;
};

}  // namespace boreas
