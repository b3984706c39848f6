#pragma once
// An AMR run made from deck text, as the driver makes it: the deck, its geometry and the solver on
// the forest the deck's regions ask for.
#include <memory>
#include <string>

#include "amr/AmrSolver.hpp"
#include "core/Deck.hpp"

namespace boreas::testing {

struct AmrCase {
  Config config;
  DomainGeometry domain;
  std::unique_ptr<AmrSolver> solver;
  explicit AmrCase(const std::string& deck_text)
      : config(parse_deck_string(deck_text, "amr.toml", "")),
        domain(config),
        solver(AmrSolver::create(config, domain, build_forest(config, domain))) {}
};

}  // namespace boreas::testing
