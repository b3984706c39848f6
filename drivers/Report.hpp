#pragma once
// report.json: what ran (the deck as parsed), how fast, where the time went, and the bitwise
// fingerprint of the final state.
#include <mpi.h>

#include <string>
#include <vector>

#include "core/Config.hpp"
#include "io/Json.hpp"

namespace boreas {

class Simulation;

const char* storage_layout_name(StorageLayout layout);  // the deck's simulation.layout value
const char* merge_form_name(MergeForm form);           // the deck's simulation.merge_form value
Json config_to_json(const Config& config);
// `first_step`: where this run began (a restart's step); `reached`: the step it computed last
// (beyond sim.step() where an instability fell back to a good state). Speed and the simulated
// time count the steps computed, first_step to reached.
Json make_report(const Config& config, const Simulation& sim, const std::string& status,
                 double wall_seconds, double initial_mass, long first_step, long reached);
Json backend_json();  // Kokkos backend, threads, device
Json mass_json(double initial, double final_mass);  // initial, final, relative_change
// [units]: dx, dt, the SI scales of viscosity, force and pressure, the physical time simulated
// against the wall time, and seed 000's real-time criterion dt_sim / dt_real (dt_sim the wall time
// per step, dt_real = CFL dx / U with CFL 0.25: below 1 is faster than real time). Null without
// [units].
Json units_json(const Config& config, double wall_seconds, long steps_run);

// Creates the run's output directory and writes a file there and removes it, on every rank (each
// writes its own VTK pieces, and a node-local path is another directory on each node), before any
// step: a run that could not write its results stops at once (Error on every rank). `what` names
// the directory in the message.
void prepare_output_directory(MPI_Comm comm, const std::string& directory, const std::string& what = "output directory");
// A warning (rank 0, on stderr) where a run from step 0 replaces the report.json of another
// deck's run in its output directory.
void warn_about_earlier_report(const Config& config, bool root);
// A warning (rank 0) where, at the end of a run from step 0, its output directory holds VTK files
// of its deck's name that it did not write (an earlier run's: at other steps, or at its steps in
// the other form, .pvti and pieces beside its .vti; its .pvd lists only its own): `report` lists
// what it wrote (output_files).
void warn_about_stale_output(const Config& config, const Json& report, bool root);
// report.json in `directory`, replaced whole or not at all (rank 0); Error on every rank when it
// cannot be written. Text that is not UTF-8 (a deck's path) is written with replacement characters.
void write_report(MPI_Comm comm, const std::string& directory, const Json& report);

// What a run is about to do, as the lines printed before its first step (rank 0, unless quiet):
// the deck's lattice, collision, grid and physics, the kernel, ranks and backend, where the output
// goes. `fluid_cells`: over all ranks; AMR: per level, of the leaves.
struct RunSetup {
  std::string kernel;  // what steps the run ("auto" resolved)
  int ranks = 1;
  long first_step = 0;  // a restart's step
  std::vector<long long> fluid_cells;
};
std::string setup_text(const Config& config, const RunSetup& setup);

// The end-of-run summary for stderr: status, speed, the timing breakdown and, on several ranks,
// the per-step terms of the overlap model (slowest rank and mean) and the message counts.
std::string summary_text(const Json& report);

}  // namespace boreas
