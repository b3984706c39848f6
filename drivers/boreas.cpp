// boreas: run an input deck, on one rank or under mpiexec.
//   boreas DECK.toml [--set key=value ...] [--output-dir DIR] [--restart latest|PATH] [--quiet] [--kokkos-...]
// Every rank parses the deck (so all agree on errors); only rank 0 prints.
#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdio>
#include <filesystem>
#include <new>
#include <string>

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

// After an Error on this rank: whether every rank failed with it (errors that follow from the deck
// or that agree() shares reach all ranks together) or this rank alone (its file, its node's
// memory), while the others wait in a collective. An Ibarrier on a communicator of its own, so that
// it cannot match their collectives, tells within `seconds`.
bool every_rank_failed(MPI_Comm errors, double seconds) {
  int size = 1;
  MPI_Comm_size(errors, &size);
  if (size == 1) return true;
  MPI_Request request;
  MPI_Ibarrier(errors, &request);
  const double until = MPI_Wtime() + seconds;
  int done = 0;
  while (!done && MPI_Wtime() < until) MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  return done != 0;
}

// An Error's exit: status 2 with rank 0's message where every rank failed; otherwise this rank's
// message, and an abort that ends the ranks waiting for it.
int failed(MPI_Comm errors, int rank, const char* message) {
  if (every_rank_failed(errors, 10.0)) {
    if (rank == 0) std::fprintf(stderr, "%s\n", message);
    return 2;
  }
  std::fprintf(stderr, "%s (on rank %d only)\n", message, rank);
  MPI_Abort(MPI_COMM_WORLD, 2);
  return 2;
}

int run(int argc, char** argv, int rank, MPI_Comm errors) {
  CLI::App app{"Boreas lattice Boltzmann solver: runs an input deck. Kokkos options (--kokkos-threads=N,\n"
               "--kokkos-device-id=N, ...) are passed on to Kokkos.",
               "boreas"};
  std::string deck;
  std::vector<std::string> overrides;
  std::string output_dir;
  std::string restart;
  bool quiet = false;
  app.add_option("deck", deck, "input deck (TOML)")->required();
  // One key per --set, so that `--set k=v deck.toml` leaves the deck to the positional argument.
  app.add_option("--set", overrides, "override a deck key, e.g. --set physics.tau=0.7 (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--output-dir", output_dir, "directory for output and report.json (overrides [output] directory)");
  app.add_option("--restart", restart,
                 "continue from a checkpoint: 'latest' (the newest in the deck's checkpoint directory) or its path");
  app.add_flag("-q,--quiet", quiet, "no progress lines");
  boreas::SplitArguments args = boreas::split_kokkos_arguments(argc, argv);
  if (const int status = boreas::parse_command_line(app, args.app, args.kokkos, rank == 0); status >= 0) return status;
  if (app.count("--output-dir") > 0 && output_dir.empty()) {
    if (rank == 0) std::fprintf(stderr, "boreas: error: --output-dir: expected a directory, got an empty string\n");
    return 2;
  }
  // An empty path (an unset shell variable) would start afresh and set the checkpoints aside.
  if (app.count("--restart") > 0 && restart.empty()) {
    if (rank == 0)
      std::fprintf(stderr, "boreas: error: --restart: expected 'latest' or a checkpoint's path, got an empty string\n");
    return 2;
  }
  // `--restart -q` takes the flag as the path; say so rather than "cannot read the checkpoint".
  if (!restart.empty() && restart[0] == '-' && !std::filesystem::exists(restart)) {
    if (rank == 0)
      std::fprintf(stderr,
                   "boreas: error: --restart: expected 'latest' or a checkpoint's path, got the option '%s'\n",
                   restart.c_str());
    return 2;
  }

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
    boreas::check_same_deck_on_every_rank(MPI_COMM_WORLD, config, overrides, restart);
    boreas::check_run(config, ranks, boreas::node_ranks());
  } catch (const boreas::DeckError& e) {
    return failed(errors, rank, e.what());
  } catch (const std::bad_alloc&) {  // a file the deck names larger than this node's memory
    return failed(errors, rank, "boreas: error: out of memory while reading the deck and the files it names");
  } catch (const std::exception& e) {  // boreas::Error, and a library's (a JSON dump)
    return failed(errors, rank, ("boreas: error: " + std::string(e.what())).c_str());
  }
  if (!output_dir.empty()) config.output_dir = output_dir;

  add_device_mapping(args.kokkos);
  boreas::ArgvView kokkos_argv(args.kokkos);
  Kokkos::ScopeGuard kokkos(kokkos_argv.argc, kokkos_argv.argv());
  try {
    boreas::RunOptions options;
    options.progress = !quiet;
    options.restart = restart;
    options.command = "boreas " + boreas::shell_quoted(deck);
    for (const std::string& o : overrides) options.command += " --set " + boreas::shell_quoted(o);
    if (!output_dir.empty()) options.command += " --output-dir " + boreas::shell_quoted(output_dir);
    const boreas::Json report = boreas::run_deck(config, options);
    if (rank == 0) std::fprintf(stderr, "%s", boreas::summary_text(report).c_str());
    const std::string status = report["status"].get<std::string>();
    if (status == "interrupted") return report["stop_checkpoint"].is_null() ? 2 : 4;  // 2: nothing continues this step
    return status == "completed" ? 0 : 3;
  } catch (const boreas::DeckError& e) {  // the device cannot hold the run (drivers/RunCheck.hpp)
    return failed(errors, rank, e.what());
  } catch (const boreas::Error& e) {
    return failed(errors, rank, ("boreas: error: " + std::string(e.what())).c_str());
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
  MPI_Comm errors;
  MPI_Comm_dup(MPI_COMM_WORLD, &errors);
  const int status = run(argc, argv, rank, errors);
  MPI_Comm_free(&errors);
  MPI_Finalize();
  return status;
}
