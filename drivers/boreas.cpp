// boreas: run an input deck, on one rank or under mpiexec.
//   boreas DECK.toml [--set key=value ...] [--output-dir DIR] [--restart latest|PATH] [--quiet] [--kokkos-...]
// Every rank parses the deck (so all agree on errors); only rank 0 prints.
#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <string>

#include <cstdio>

#include "comm/Mpi.hpp"
#include "core/Deck.hpp"
#include "core/Error.hpp"
#include "drivers/CommandLine.hpp"
#include "drivers/Report.hpp"
#include "drivers/RunCheck.hpp"
#include "drivers/Simulation.hpp"
#include "lbm/scheme/Traversal.hpp"

namespace {

// One rank per GPU: ranks on a node take devices round-robin by node-local rank, unless the
// command line already chose (--kokkos-device-id / --kokkos-num-devices).
void add_device_mapping(std::vector<std::string>& kokkos_args) {
#if defined(KOKKOS_ENABLE_CUDA)
  for (const auto& a : kokkos_args)
    if (a.rfind("--kokkos-device", 0) == 0 || a.rfind("--kokkos-num-devices", 0) == 0) return;
  const int devices = Kokkos::Cuda::detect_device_count();
  if (devices > 0) kokkos_args.push_back("--kokkos-device-id=" + std::to_string(boreas::node_local_rank() % devices));
#else
  (void)kokkos_args;
#endif
}

int run(int argc, char** argv, int rank) {
  CLI::App app{"Boreas lattice Boltzmann solver: runs an input deck. Kokkos options (--kokkos-threads=N,\n"
               "--kokkos-device-id=N, ...) are passed on to Kokkos.",
               "boreas"};
  std::string deck;
  std::vector<std::string> overrides;
  std::string output_dir;
  std::string restart;
  bool quiet = false;
  app.add_option("deck", deck, "input deck (TOML)")->required();
  app.add_option("--set", overrides, "override a deck key, e.g. --set physics.tau=0.7 (repeatable)");
  app.add_option("--output-dir", output_dir, "directory for output and report.json (overrides [output] directory)");
  app.add_option("--restart", restart,
                 "continue from a checkpoint: 'latest' (the newest in the deck's checkpoint directory) or its path");
  app.add_flag("-q,--quiet", quiet, "no progress lines");
  boreas::SplitArguments args = boreas::split_kokkos_arguments(argc, argv);
  if (const int status = boreas::parse_command_line(app, args.app, rank == 0); status >= 0) return status;

  boreas::Config config;
  try {
    config = boreas::parse_deck(deck, overrides);
    if (rank == 0) {
      for (const std::string& w : config.warnings) std::fprintf(stderr, "boreas: warning: %s\n", w.c_str());
      for (const std::string& w : boreas::backend_warnings(config, !boreas::exec_is_host))
        std::fprintf(stderr, "boreas: warning: %s\n", w.c_str());
    }
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    boreas::check_run(config, ranks, boreas::node_ranks());
  } catch (const boreas::DeckError& e) {
    if (rank == 0) std::fprintf(stderr, "%s\n", e.what());
    return 2;
  } catch (const boreas::Error& e) {
    if (rank == 0) std::fprintf(stderr, "boreas: error: %s\n", e.what());
    return 2;
  }
  if (!output_dir.empty()) config.output_dir = output_dir;

  add_device_mapping(args.kokkos);
  boreas::ArgvView kokkos_argv(args.kokkos);
  Kokkos::ScopeGuard kokkos(kokkos_argv.argc, kokkos_argv.argv());
  try {
    boreas::RunOptions options;
    options.progress = !quiet;
    options.restart = restart;
    const boreas::Json report = boreas::run_deck(config, options);
    if (rank == 0) std::fprintf(stderr, "%s", boreas::summary_text(report).c_str());
    const std::string status = report["status"].get<std::string>();
    return status == "completed" ? 0 : status == "interrupted" ? 4 : 3;
  } catch (const boreas::DeckError& e) {  // the device cannot hold the run (drivers/RunCheck.hpp)
    if (rank == 0) std::fprintf(stderr, "%s\n", e.what());
    return 2;
  } catch (const boreas::Error& e) {
    // Set-up errors (decomposition, kernel) follow from the deck alone: every rank throws them.
    if (rank == 0) std::fprintf(stderr, "boreas: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    // A failure on one rank cannot be recovered collectively: report it and abort them all.
    std::fprintf(stderr, "boreas: error (rank %d): %s\n", rank, e.what());
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1) MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int status = run(argc, argv, rank);
  MPI_Finalize();
  return status;
}
