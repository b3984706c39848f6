// boreas: run an input deck.
//   boreas DECK.toml [--set key=value ...] [--output-dir DIR] [--quiet]
#include <Kokkos_Core.hpp>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "core/Deck.hpp"
#include "core/Error.hpp"
#include "drivers/Simulation.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Boreas lattice Boltzmann solver: runs an input deck"};
  std::string deck;
  std::vector<std::string> overrides;
  std::string output_dir;
  bool quiet = false;
  app.add_option("deck", deck, "input deck (TOML)")->required();
  app.add_option("--set", overrides, "override a deck key, e.g. --set physics.tau=0.7 (repeatable)");
  app.add_option("--output-dir", output_dir, "directory for output and report.json (overrides [output] directory)");
  app.add_flag("-q,--quiet", quiet, "no progress lines");
  CLI11_PARSE(app, argc, argv);

  boreas::Config config;
  try {
    config = boreas::parse_deck(deck, overrides);
  } catch (const boreas::DeckError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  } catch (const boreas::Error& e) {
    std::fprintf(stderr, "boreas: error: %s\n", e.what());
    return 2;
  }
  if (!output_dir.empty()) config.output_dir = output_dir;

  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    boreas::RunOptions options;
    options.progress = !quiet;
    const boreas::json::Value report = boreas::run_deck(config, options);
    std::fprintf(stderr, "%s: %s after %lld steps, %.2f MLUPS, %.2f s, fields_hash %s\n",
                 config.name.c_str(), report["status"].as_string().c_str(),
                 static_cast<long long>(report["steps"].as_int64()), report["mlups"].as_double(),
                 report["wall_time_s"].as_double(), report["fields_hash"].as_string().c_str());
    return report["status"].as_string() == "completed" ? 0 : 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "boreas: error: %s\n", e.what());
    return 1;
  }
}
