#pragma once
// Checkpoint and restart of a run (io/Checkpoint.hpp holds the file format): where checkpoints go
// and which are kept, what in a deck a checkpoint must match, `--restart latest|PATH`, and the
// stop signals of batch systems (SIGTERM, SIGUSR1) that make the run write one and exit.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "core/Config.hpp"
#include "drivers/Averages.hpp"
#include "io/CsvSeries.hpp"
#include "io/Json.hpp"

namespace boreas {

// <checkpoint.directory, or <output directory>/checkpoints>.
std::string checkpoint_directory(const Config& config);
// Makes the checkpoint directory and tests writing there on every rank before the first step,
// where the deck checkpoints (a directory that cannot be made would cost every checkpoint of a
// long run, each a warning); Error on every rank. Collective.
void prepare_checkpoint_directory(MPI_Comm comm, const Config& config);
// <directory>/<name>_step<8 digits>.bchk
std::string checkpoint_path(const Config& config, long step);
// The time averages ([statistics]) of the checkpoint at `checkpoint`: <checkpoint>.statistics,
// in the same file format, pruned with it.
std::string statistics_path(const std::string& checkpoint);
// The header of the averages kept beside `checkpoint` (statistics_path), "" in `why`; or why the
// averages start again: no such file (a checkpoint of a run without [statistics]) or other
// sampling than `sampling`'s start and every, or averages of another checkpoint (their fields_hash
// is not the checkpoint's). A file that is there but not of step `step` with
// `cell_bytes` per cell is an Error (every rank): averages are not dropped silently. Collective.
Json statistics_header(MPI_Comm comm, const std::string& checkpoint, const Sampling& sampling, long step,
                       int cell_bytes, std::string& why);
// This deck's checkpoints, oldest first (by step), temporary files of interrupted writes left out.
std::vector<std::string> list_checkpoints(const Config& config);
// Removes all but the newest `checkpoint.keep` of this deck's checkpoints (rank 0 only).
void prune_checkpoints(const Config& config);
// A run moves the checkpoints an earlier run of this deck left in its directory that are not its
// own past (their averages and interrupted writes with them) into <directory>/earlier_<UTC time>,
// so that `--restart latest` continues this run, never the earlier one, and nothing is lost: a
// run from step 0, or `restarted_from` a checkpoint in another directory, all of them; one
// restarted from a checkpoint of this directory those after its `first_step` (an earlier run went
// on past the checkpoint this one continues). Rank 0 moves them and says so; an Error on every
// rank if they cannot move. Collective.
void set_aside_earlier_checkpoints(MPI_Comm comm, const Config& config, long first_step,
                                   const std::string& restarted_from);

// What decides the continuation: the deck as parsed without what may change between a run and
// its restart (steps, output, kernel and its tuning, parallel layout, checkpoint policy).
Json checkpoint_signature(const Config& config);

// `latest` (the newest of list_checkpoints) or a path. Throws Error when there is none.
std::string resolve_restart(const Config& config, const std::string& spec);

// The header of `path`, checked against the deck: lattice, precision, cells, then every key of
// the signature; throws Error naming the first difference (collective).
Json open_checkpoint(MPI_Comm comm, const Config& config, const std::string& path);

// The checkpoint a restart names (`latest` resolved on rank 0, one view of the directory),
// opened and checked against the deck; its step must lie before the deck's end, and forces.csv,
// probes.csv and integrals.csv that the run continues keep their meaning (the forces' references, the probes'
// cells, as the checkpoint recorded them) and hold the rows the checkpoint recorded up to its
// step (not those of another run written into the directory since). Collective.
Json restart_header(const Config& config, const std::string& spec, MPI_Comm comm, std::string& path);
// Throws Error when the state read from `path` (its fields_hash `loaded`) is not the one `header`
// says was written, naming what can make it so.
void check_loaded_state(const std::string& path, const Json& header, const std::string& loaded);
// report.json's `restarted_from`: the checkpoint read, its step, and the kernel and rank count
// its header says wrote it.
Json restart_record(const std::string& path, long step, const Json& header);

// Checkpoints of a run: what it wrote, and when the next falls due.
class Checkpoints {
 public:
  Checkpoints(const Config& config, double initial_mass);
  // Writes the checkpoint of `step` through `write(path, header)` (collective; throws Error on
  // every rank alike): `meta` holds the run's own entries (kernel, ranks, fields_hash, ...), to
  // which the deck, step, time, initial mass and signature are added. Rank 0 (`root`) then
  // removes the oldest beyond `keep`. A write that fails (a full disk) is reported and the run
  // goes on: returns false (every rank).
  bool write(long step, bool root, Json meta, const std::function<void(const std::string&, const Json&)>& write);
  // The checkpoint of the last good `step` an unstable run ends on: the newest written where it
  // is of that step (with its averages: not written again), the one the run `restarted_from` where
  // `step` is its `first_step`, else the one `write` makes now (collective); "" where that write
  // failed.
  std::string of_last_good_state(long step, long first_step, const std::string& restarted_from,
                                 const std::function<void()>& write);
  // A series whose rows up to each checkpoint's step the checkpoint records (`series_rows`).
  void record_rows(const CsvSeries& series) { series_.push_back(&series); }
  double seconds_since_last() const;
  long last_step() const { return last_step_; }  // of the last attempt, -1 before any
  // The newest checkpoint written, or a line saying there is none.
  std::string newest() const { return written_.empty() ? "(none written)" : written_.back(); }
  bool any_attempt() const { return !written_.empty() || !failed_.empty(); }
  // Whether the newest checkpoint written is of `step`.
  bool newest_is(long step) const { return !written_.empty() && written_.back() == checkpoint_path(config_, step); }
  // A run stopped by `signal` at `step` says (`root`, on stderr) which checkpoint holds that step
  // and how to continue, or, where it could not be written, that the run cannot go on from that
  // step and which checkpoint --restart latest would take instead. Returns the checkpoint of
  // that step (report.json `stop_checkpoint`; the exit status is 4 with one, 2 without), or null.
  Json report_stop(int signal, long step, const std::string& continue_command, bool root) const;
  Json report() const;

 private:
  const Config& config_;
  double initial_mass_;
  std::chrono::steady_clock::time_point last_;
  Json signature_;
  std::vector<const CsvSeries*> series_;
  std::vector<std::string> written_, failed_;
  long last_step_ = -1;
  double seconds_ = 0;
};

// A restarted run continues its series' .pvd where the deck writes VTK (the VtkSeries or
// AmrSeries `series`, PvdCollection::resume: from step 0 on where it writes every so many steps,
// else at the end only); the warning, if any, on stderr where `root`.
template <class Series>
void resume_vtk_series(Series& series, const Config& config, long first_step, bool root) {
  if (first_step == 0 || !config.write_vtk) return;
  const std::string warning = series.resume(double(first_step), config.output_every > 0);
  if (root && !warning.empty()) std::fprintf(stderr, "boreas: warning: %s\n", warning.c_str());
}

// SIGTERM and SIGUSR1 set a flag instead of ending the process (installed once).
void install_stop_signals();
// The signal received on this rank (0: none).
int stop_signal();
const char* signal_name(int signal);

// What a run decides on after each chunk, agreed by every rank of `comm` (each the largest over
// the ranks) so that all take the same decisions: a stop signal, the slowest rank's seconds per
// step, the time since the last checkpoint. Collective.
struct AgreedClock {
  int stopped_by = 0;
  double seconds_per_step = 0, since_checkpoint = 0;
};
AgreedClock agree_on_clock(MPI_Comm comm, double seconds_per_step, const Checkpoints& checkpoints);

// What the end of a chunk at `step` is for both drivers: a checkpoint (the deck's cadence in steps
// or minutes, or a stop signal), a check (every `check_every` steps and the last), an output.
struct ChunkEnd {
  bool at_checkpoint = false, at_check = false, at_output = false;
};
ChunkEnd chunk_end(const Config& config, long step, long check_every, const AgreedClock& clock);

}  // namespace boreas
