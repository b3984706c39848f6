// boreas-bench: throughput of one kernel on a fully periodic box, against rooflines measured by
// the same binary: the variant's own memory traffic without arithmetic (roofline_fraction <= 1 by
// construction, StreamReference.hpp) and a STREAM copy (copy_fraction: the variant's modelled
// traffic against the copy's). One compact JSON object per line on stdout: first a "kind":
// "reference" line (copy and Q-stream in-place bandwidth), then one "kind": "kernel" line per
// configuration.
//   boreas-bench --lattice D3Q19 D3Q27 --precision double float --size 64 128 --steps 20
//   boreas-bench --kernel merged3 --merge-form tiles --tile 4 8 16 32   (kernel, tile, bundle: lists)
// --read-voxels FILE --voxel-dims NXxNYxNZ (under mpiexec): the run's parallel voxel input
// instead (comm/VoxelInput.hpp), on a domain the file's size: one "kind": "voxel_read" line per
// repeat, cold (the file's pages dropped from the page cache first) and warm.
// --porosity P... : dense against sparse storage (simulation.storage) on a generated porous
// medium per porosity and case (overlapping solid spheres, periodic, force-driven): one "kind":
// "porous" line per storage, MLUPS counted over fluid cells, device bytes per fluid cell.
#include <Kokkos_Core.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "comm/Mpi.hpp"
#include "comm/VoxelInput.hpp"
#include "core/Deck.hpp"
#include "core/Error.hpp"
#include "core/ParseNumber.hpp"
#include "drivers/CommandLine.hpp"
#include "drivers/Machine.hpp"
#include "drivers/Report.hpp"
#include "drivers/Simulation.hpp"
#include "drivers/bench/FlopCount.hpp"
#include "drivers/bench/LaunchBounds.hpp"
#include "drivers/bench/Roofline.hpp"
#include "drivers/bench/StreamReference.hpp"
#include "io/Json.hpp"
#include "lbm/Block.hpp"
#include "lbm/physics/Lattice.hpp"
#include "lbm/scheme/MergedStep.hpp"
#include "lbm/scheme/StreamingScheme.hpp"

#include "BoreasCommit.hpp"  // BOREAS_GIT_COMMIT, written at build time (drivers/bench/commit.cmake)

namespace {

using namespace boreas;

int lattice_q(LatticeKind k) {
  return dispatch_lattice(k, [](auto lattice) { return decltype(lattice)::Q; });
}

// "N" (a cube, a square for 2D lattices) or "NxNy[xNz]", the value of command-line `option`.
std::array<int, 3> parse_size(const std::string& text, int dimensions, const std::string& option = "--size") {
  std::vector<int> parts;
  std::stringstream ss(text);
  std::string item;
  bool numbers = !text.empty() && text.back() != 'x';  // getline drops an empty last part
  for (long n = 0; std::getline(ss, item, 'x');) {
    numbers = numbers && parse_long(item, n) && n >= 1 && n <= (1L << 30);
    parts.push_back(numbers ? int(n) : 0);
  }
  if (!numbers || parts.empty() || parts.size() > 3)
    throw CLI::ValidationError(option, "expected N or NxNy[xNz] with positive N, got " + text);
  if (dimensions == 2 && parts.size() == 3 && parts[2] != 1)
    throw CLI::ValidationError(option, "a 2D lattice needs nz = 1, got " + text);
  const std::array<int, 3> cells = parts.size() == 1 ? std::array<int, 3>{parts[0], parts[0], dimensions == 3 ? parts[0] : 1}
                                                     : std::array<int, 3>{parts[0], parts[1], parts.size() == 3 ? parts[2] : 1};
  // The deck's limit (core/Deck.cpp): byte counts stay far from 2^63.
  if (double(cells[0]) * cells[1] * cells[2] > std::ldexp(1.0, 50))
    throw CLI::ValidationError(option, text + " is more cells than Boreas counts, 2^50");
  return cells;
}

// A whole number in [lo, hi], said so ("not in range 0.000000 to 1.797e308" was CLI11's word).
CLI::Validator whole_number(long lo, long hi) {
  return CLI::Validator(
      [lo, hi](std::string& input) -> std::string {
        long v = 0;
        if (!parse_long(input, v)) return "expected a whole number, got '" + input + "'";
        if (v < lo || v > hi)
          return "expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got " + input;
        return "";
      },
      "INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}
CLI::Validator number_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& input) -> std::string {
        double v = 0;
        if (!parse_double(input, v)) return "expected a number, got '" + input + "'";
        if (!(v >= lo && v <= hi)) return "expected a number from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got " + input;
        return "";
      },
      "NUMBER in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

// `text` as a TOML basic string (a path with quotes or backslashes in a generated deck).
std::string toml_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned char>(c));
      out += escaped;
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

Json environment() {
  Json e = Json::object();
  e["backend"] = ExecSpace::name();
  e["threads"] = ExecSpace().concurrency();
  e["device"] = device_description();
  e["hostname"] = hostname();
  e["date"] = utc_now();
  e["git_commit"] = BOREAS_GIT_COMMIT;
  return e;
}

void merge(Json& into, const Json& from) {
  for (const auto& [key, value] : from.items()) into[key] = value;
}

Json to_array(const std::vector<double>& v) { return Json(v); }

bench::Bandwidth copy_bandwidth(Precision p, long elements, int repeats) {
  return p == Precision::Float ? bench::copy_bandwidth<float>(elements, repeats)
                               : bench::copy_bandwidth<double>(elements, repeats);
}
bench::CopyBandwidths copy_bandwidths(Precision p, long elements, int repeats) {
  return p == Precision::Float ? bench::copy_bandwidths<float>(elements, repeats)
                               : bench::copy_bandwidths<double>(elements, repeats);
}

// `repeats` timings of `steps` steps after `warmup` steps (first touch, caches, thread
// start-up), in million updates of `cells` per second.
std::vector<double> timed_mlups(Simulation& sim, long long cells, long warmup, long steps, int repeats) {
  sim.advance(warmup);
  Kokkos::fence();
  std::vector<double> mlups;
  for (int r = 0; r < repeats; ++r) {
    Kokkos::Timer timer;
    sim.advance(steps);
    Kokkos::fence();
    mlups.push_back(double(cells) * double(steps) / timer.seconds() / 1e6);
  }
  return mlups;
}

struct Case {
  LatticeKind lattice;
  Precision precision;
  std::array<int, 3> cells;
};

// The kernel settings of the command line: kernel, collision, tile and merge_form.
Config periodic_box(const Case& c, Config config) {
  config.name = "bench";
  config.lattice = c.lattice;
  config.precision = c.precision;
  config.cells = c.cells;
  config.tau = config.cumulant_parametrised ? 0.55 : 0.6;  // the parametrised cumulant acts below 4/7
  config.viscosity = (config.tau - 0.5) / 3;
  // A decaying Taylor-Green field keeps every population away from trivial values.
  config.initial = InitialCondition::TaylorGreen;
  config.taylor_green_u0 = 0.02;
  for (auto& face : config.faces) face.type = FaceBC::Periodic;
  config.write_vtk = false;
  return config;
}

// Memory traffic per update of the variant: what the memory system moves for Q reals of one
// lattice (`lattice_bytes`). Stores to a line not read before cost a line read first on CPUs
// (write-allocate), not on GPUs: a two-lattice step moves 3 lattices' worth on CPUs and 2 on GPUs,
// an in-place step 2; merged<k> moves one step's worth per k steps (halo and seam re-reads not
// counted).
double variant_bytes_per_update(const Config& config, int lattice_bytes) {
  const int lattices = config.kernel.in_place() || !exec_is_host ? 2 : 3;
  return double(lattices) * lattice_bytes / config.kernel.steps;
}

// The steps one sweep of the variant takes together on this backend and box: merged<k>'s slab
// form and merged_aa<k> take single steps on devices and on boxes too thin for slabs
// (PullScheme.hpp, AAScheme.hpp); merged<k>'s tile form always sweeps k.
int steps_swept_together(const Config& config) {
  const int k = config.kernel.steps;
  if (k == 1 || (config.kernel.kind == StreamingKernel::Merged && merges_in_tiles(config.merge_form))) return k;
  if (!exec_is_host) return 1;
  const DenseGeometry box(config.cells, {0, 0, 0}, 8);
  return merged_schedule(box, config.dimensions(), k, config.tile).slabs > 0 ? k : 1;
}

Json run_case(const Case& c, const Config& kernel_settings, long steps, int repeats, const Json& env) {
  const Config config = periodic_box(c, kernel_settings);
  // A merged variant that takes single steps here is held to its single step's traffic and
  // roofline (they were divided and multiplied by k: both fractions k times too low).
  Config swept = config;
  if (steps_swept_together(config) < config.kernel.steps) {
    swept.kernel = Scheme{config.kernel.kind == StreamingKernel::MergedAA ? StreamingKernel::AA : StreamingKernel::ABPull, 1};
    std::fprintf(stderr, "boreas-bench: %s takes single %s steps on this backend and box: measured as such\n",
                 scheme_name(config.kernel).c_str(), scheme_name(swept.kernel).c_str());
  }
  // Whole sweeps only: merged<k> takes the steps past a multiple of k one at a time, which its
  // traffic model (one step's bytes per k steps) and its roofline (k reference steps) do not count.
  const int k = config.kernel.steps;
  if (steps % k != 0) {
    const long whole = (steps + k - 1) / k * k;
    std::fprintf(stderr, "boreas-bench: %s: %ld steps per repeat (whole sweeps of %d), not %ld\n",
                 scheme_name(config.kernel).c_str(), whole, k, steps);
    steps = whole;
  }
  const int Q = lattice_q(c.lattice);
  const int real_bytes = c.precision == Precision::Float ? 4 : 8;
  const long long n_cells = static_cast<long long>(c.cells[0]) * c.cells[1] * c.cells[2];

  auto sim = Simulation::create(config);
  const std::vector<double> mlups = timed_mlups(*sim, n_cells, 1, steps, repeats);
  const bool healthy = sim->check().ok;
  if (!healthy)  // a diverged run's MLUPS measure no solver: said where a table reader sees it
    std::fprintf(stderr, "boreas-bench: %s: a density outside 0.1-10 times the reference after the timed steps "
                 "(\"healthy\": false)\n", scheme_name(config.kernel).c_str());
  sim.reset();  // free the lattices before the references allocate theirs

  // The variant's own roofline: its bytes, moved its way, without arithmetic (StreamReference.hpp).
  const bench::StreamReference reference = dispatch_lattice(c.lattice, [&](auto lattice) {
    using L = decltype(lattice);
    return c.precision == Precision::Float ? bench::stream_reference<L, float>(swept, steps, repeats)
                                           : bench::stream_reference<L, double>(swept, steps, repeats);
  });
  // And the STREAM copy, copy arrays as large as one population lattice. The copy's stores also
  // pay the write-allocate read on CPUs; its actual traffic is what the kernels' traffic model
  // (variant_bytes_per_update) is compared with.
  const bench::CopyBandwidths copies = copy_bandwidths(c.precision, n_cells * Q, repeats);
  const bench::Bandwidth &copy = copies.kernel, &deep_copy = copies.deep_copy;
  const double copy_traffic_gbs = copy.median_gbs * (exec_is_host ? 1.5 : 1.0);
  const double variant_bytes = variant_bytes_per_update(swept, Q * real_bytes);
  const double median_mlups = median(mlups);

  Json out = Json::object();
  out["kind"] = "kernel";
  out["lattice"] = lattice_name(c.lattice);
  out["kernel"] = scheme_name(config.kernel);
  out["tile"] = config.tile;
  out["layout"] = storage_layout_name(config.layout);
  if (config.layout == StorageLayout::AoSoA) out["bundle"] = config.bundle;
  if (config.kernel.kind == StreamingKernel::Merged)
    out["merge_form"] = merges_in_tiles(config.merge_form) ? "tiles" : "slabs";
  out["precision"] = c.precision == Precision::Float ? "float" : "double";
  out["collision"] = collision_name(config.collision);
  if (config.collision == CollisionKind::Cumulant)
    out["cumulant"] = config.cumulant_parametrised ? "parametrised" : "standard";
  out["tau"] = config.tau;
  out["sgs"] = sgs_name(config.sgs);
  out["cells"] = Json::array({c.cells[0], c.cells[1], c.cells[2]});
  out["n_cells"] = n_cells;
  out["steps"] = steps;
  out["repeats"] = repeats;
  out["mlups"] = median_mlups;
  out["mlups_all"] = to_array(mlups);
  out["bytes_per_update"] = 2 * Q * real_bytes;
  out["variant_bytes_per_update"] = variant_bytes;
  const long long flops = bench::collision_flops(config);
  out["collision_flops_per_update"] = flops;  // counted (drivers/bench/FlopCount.hpp)
  out["flops_per_byte"] = double(flops) / variant_bytes;
  out["steps_swept_together"] = swept.kernel.steps;
  out["roofline_reference"] = std::string(reference.pattern) + " steps without collision" +
                              (swept.kernel.steps > 1 ? " x " + std::to_string(swept.kernel.steps) : "");
  out["roofline_mlups"] = reference.mlups;
  out["roofline_mlups_all"] = to_array(reference.all);
  out["roofline_fraction"] = median_mlups / reference.mlups;
  out["stream_copy_gbs"] = copy.median_gbs;
  out["stream_copy_gbs_all"] = to_array(copy.all_gbs);
  out["copy_bytes_counted"] = "read+write";
  out["copy_traffic_gbs"] = copy_traffic_gbs;
  out["copy_fraction"] = median_mlups * 1e6 * variant_bytes / (copy_traffic_gbs * 1e9);
  out["deep_copy_gbs"] = deep_copy.median_gbs;
  out["deep_copy_fraction"] = median_mlups * 1e6 * variant_bytes / (deep_copy.median_gbs * 1e9);
  out["healthy"] = healthy;
  merge(out, env);
  return out;
}

Json reference_line(Precision precision, long long cells, int repeats, const Json& env) {
  // The D3Q19 case of the performance contract: 19 streams of one lattice's size.
  constexpr int streams = 19;
  const int real_bytes = precision == Precision::Float ? 4 : 8;
  const bench::Bandwidth copy = copy_bandwidth(precision, cells * streams, repeats);
  const bench::Bandwidth inplace =
      precision == Precision::Float ? bench::inplace_bandwidth<float>(cells, streams, repeats)
                                    : bench::inplace_bandwidth<double>(cells, streams, repeats);
  Json out = Json::object();
  out["kind"] = "reference";
  out["precision"] = precision == Precision::Float ? "float" : "double";
  out["elements_per_stream"] = cells;
  out["repeats"] = repeats;
  out["stream_copy_gbs"] = copy.median_gbs;
  out["stream_copy_gbs_all"] = to_array(copy.all_gbs);
  out["copy_bytes_counted"] = "read+write";
  out["inplace_streams"] = streams;
  out["inplace_gbs"] = inplace.median_gbs;
  out["inplace_gbs_all"] = to_array(inplace.all_gbs);
  out["inplace_bytes_counted"] = "read+write";
  // Rooflines of in-place D3Q19 kernels (AA, swap: 2 * 19 * sizeof(real) bytes per update).
  out["inplace_roofline_mlups"] = inplace.median_gbs * 1e9 / (2.0 * streams * real_bytes) / 1e6;
  merge(out, env);
  return out;
}

// A porous medium in a periodic cube of n^3 voxels: solid spheres of radius 4 at random centres
// (fixed seed), added until the fluid fraction drops to `porosity` (the generator of
// inputs/make_porous.py). Writes the raw voxel file (1 = solid, x fastest); returns the fraction.
double write_porous_medium(const std::string& path, int n, double porosity) {
  std::vector<std::uint8_t> solid(static_cast<std::size_t>(n) * n * n, 0);
  std::mt19937_64 random(2024);
  std::uniform_real_distribution<double> at(0, n);
  const double radius = 4;
  const int r = int(std::ceil(radius));
  long long fluid = static_cast<long long>(solid.size());
  while (double(fluid) / double(solid.size()) > porosity) {
    const double c[3] = {at(random), at(random), at(random)};
    for (int dz = -r; dz <= r; ++dz)
      for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) {
          const int v[3] = {int(std::floor(c[0])) + dx, int(std::floor(c[1])) + dy, int(std::floor(c[2])) + dz};
          double d2 = 0;
          for (int a = 0; a < 3; ++a) d2 += (v[a] - c[a]) * (v[a] - c[a]);
          if (d2 > radius * radius) continue;
          const std::size_t i = (std::size_t((v[2] + n) % n) * n + (v[1] + n) % n) * n + (v[0] + n) % n;
          if (!solid[i]) --fluid;
          solid[i] = 1;
        }
  }
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(solid.data()), std::streamsize(solid.size()));
  if (!out) throw Error("cannot write " + path);
  return double(fluid) / double(solid.size());
}

// Dense and sparse storage with the command line's kernel on one porous medium.
std::vector<Json> run_porous(const Case& c, const Config& kernel_settings, double porosity, long steps, int repeats,
                             const Json& env) {
  const int n = c.cells[0];
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("boreas_bench_porous_" + std::to_string(::getpid()) + ".raw")).string();
  const double actual = write_porous_medium(file, n, porosity);
  const int Q = lattice_q(c.lattice), real = c.precision == Precision::Float ? 4 : 8;
  const long long cells = static_cast<long long>(n) * n * n;
  const bench::Bandwidth copy = copy_bandwidth(c.precision, cells * Q, repeats);
  const double copy_traffic_gbs = copy.median_gbs * (exec_is_host ? 1.5 : 1.0);
  std::vector<Json> lines;
  for (const char* storage : {"dense", "sparse"}) {
    const std::string sn = std::to_string(n);
    const std::string deck = std::string("[simulation]\nsteps = 1\nkernel = \"") + scheme_name(kernel_settings.kernel) +
                             "\"\nstorage = \"" + storage + "\"\n[lattice]\nmodel = \"" + lattice_name(c.lattice) +
                             "\"\nprecision = \"" + (real == 4 ? "float" : "double") + "\"\n[domain]\ncells = [" + sn + ", " +
                             sn + ", " + sn + "]\n[collision]\nmodel = \"" +
                             std::string(collision_name(kernel_settings.collision)) +
                             "\"\n[physics]\ntau = 0.8\nforce = [1e-5, 0, 0]\n[geometry]\nvoxel_file = " + toml_string(file) +
                             "\ndims = [" + sn + ", " + sn + ", " + sn + "]\n[output]\nvtk = false\n";
    std::string faces;
    for (const char* f : {"x_min", "x_max", "y_min", "y_max", "z_min", "z_max"})
      faces += std::string("[boundary.") + f + "]\ntype = \"periodic\"\n";
    const Config config = parse_deck_string(deck + faces, "porous_bench", ".", {});
    auto sim = Simulation::create(config, MPI_COMM_SELF);
    const long long fluid = sim->fluid_cells();
    const std::vector<double> mlups = timed_mlups(*sim, fluid, 2, steps, repeats);  // AA back at its first parity
    const int lattices = config.kernel.in_place() ? 1 : 2;
    Json line = Json::object();
    line["kind"] = "porous";
    line["storage"] = storage;
    line["kernel"] = scheme_name(config.kernel);
    line["lattice"] = lattice_name(c.lattice);
    line["precision"] = real == 4 ? "float" : "double";
    line["collision"] = collision_name(config.collision);
    line["cells"] = Json::array({n, n, n});
    line["porosity_target"] = porosity;
    line["porosity"] = actual;
    line["fluid_cells"] = fluid;
    line["steps"] = steps;
    line["repeats"] = repeats;
    line["fluid_mlups"] = median(mlups);
    line["fluid_mlups_all"] = to_array(mlups);
    double bytes_per_fluid_cell = 0, traffic_per_fluid_update = 0;
    if (std::string(storage) == "sparse") {
      bytes_per_fluid_cell = sim->parallel_report()["sparse"]["device_bytes_per_fluid_cell"].get<double>();
      // Populations as a dense step moves them, plus the 4-byte upwind indices (AA reads them on
      // its neighbour steps, every other step).
      traffic_per_fluid_update = variant_bytes_per_update(config, Q * real) + 4.0 * (Q - 1) / (lattices == 1 ? 2 : 1);
    } else {
      // Lower bound: owned cells' lattices and flags (ghost layers and padding not counted).
      bytes_per_fluid_cell = double(cells) * (lattices * Q * real + 1) / double(fluid);
      traffic_per_fluid_update = variant_bytes_per_update(config, Q * real) * double(cells) / double(fluid);
      line["all_cells_mlups"] = median(mlups) * double(cells) / double(fluid);
    }
    line["device_bytes_per_fluid_cell"] = bytes_per_fluid_cell;
    line["modelled_bytes_per_fluid_update"] = traffic_per_fluid_update;
    line["stream_copy_gbs"] = copy.median_gbs;
    line["copy_traffic_gbs"] = copy_traffic_gbs;
    line["copy_fraction"] = median(mlups) * 1e6 * traffic_per_fluid_update / (copy_traffic_gbs * 1e9);
    line["healthy"] = sim->check().ok;
    merge(line, env);
    lines.push_back(line);
  }
  std::filesystem::remove(file);
  lines.back()["sparse_over_dense_fluid_mlups"] =
      lines[1]["fluid_mlups"].get<double>() / lines[0]["fluid_mlups"].get<double>();
  lines.back()["sparse_over_dense_bytes_per_fluid_cell"] =
      lines[1]["device_bytes_per_fluid_cell"].get<double>() / lines[0]["device_bytes_per_fluid_cell"].get<double>();
  return lines;
}

// --launch-bounds / --team-size / --team-map / --launch-step: the case's pull or push step (BGK) in
// each form, bound and launch shape, one line each, with its speed over Kokkos's default launch of
// the full step where that was measured too.
std::vector<Json> run_launch_bounds(const Case& c, const Config& kernel_settings,
                                    const std::vector<std::string>& bounds, const std::vector<int>& team_sizes,
                                    const std::vector<bench::TeamMap>& maps,
                                    const std::vector<bench::StepForm>& forms, long steps, int repeats,
                                    const Json& env) {
  const Config config = periodic_box(c, kernel_settings);
  const std::vector<bench::LaunchTiming> timings =
      c.precision == Precision::Float
          ? bench::launch_bounds_mlups<float>(config, steps, repeats, bounds, team_sizes, maps, forms)
          : bench::launch_bounds_mlups<double>(config, steps, repeats, bounds, team_sizes, maps, forms);
  const int real_bytes = c.precision == Precision::Float ? 4 : 8, Q = lattice_q(c.lattice);
  double default_mlups = 0;
  std::map<bench::StepForm, long> differs;
  for (const bench::LaunchTiming& t : timings) {
    if (t.bounds == "default" && t.team_size == 0 && t.form == bench::StepForm::full) default_mlups = t.mlups;
    if (t.form != bench::StepForm::full) differs[t.form] = t.differs_from_full;
  }
  for (const auto& [form, populations] : differs)
    if (populations > 0)
      std::fprintf(stderr, "boreas-bench: warning: the %s step differs from the full step in %ld populations\n",
                   bench::step_form_name(form), populations);
  std::vector<Json> lines;
  for (const bench::LaunchTiming& t : timings) {
    Json line = Json::object();
    line["kind"] = "launch_bounds";
    line["lattice"] = lattice_name(c.lattice);
    line["kernel"] = scheme_name(config.kernel);
    line["precision"] = c.precision == Precision::Float ? "float" : "double";
    line["collision"] = "BGK";
    line["cells"] = Json::array({c.cells[0], c.cells[1], c.cells[2]});
    line["steps"] = steps;
    line["repeats"] = repeats;
    line["bounds"] = t.bounds;
    line["team_size"] = t.team_size;
    line["team_map"] = t.team_size == 0 ? "range" : t.map == bench::TeamMap::rows ? "rows" : "cells";
    line["step_form"] = bench::step_form_name(t.form);
    if (t.form != bench::StepForm::full)
      line["differs_from_full"] = t.differs_from_full;  // populations after one step of each
    line["mlups"] = t.mlups;
    line["mlups_all"] = to_array(t.all);
    line["gbs_moved"] = t.mlups * 1e6 * 2 * Q * real_bytes / 1e9;  // a two-lattice step on a GPU
    if (default_mlups > 0) line["over_default"] = t.mlups / default_mlups;
    merge(line, env);
    lines.push_back(line);
  }
  return lines;
}

// Asks the kernel to drop the file's cached pages (clean pages: no privileges needed), so that the
// next read comes from the disk. Returns whether it could.
bool drop_cached_pages(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  const bool ok = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
  ::close(fd);
  return ok;
}

int read_voxels(const std::string& path, const std::array<int, 3>& dims, int repeats, const Json& env) {
  ensure_mpi_initialized();
  Comm comm(MPI_COMM_WORLD);
  const std::string deck = "[simulation]\nsteps = 1\n[lattice]\nmodel = \"D3Q19\"\n[domain]\ncells = [" +
                           std::to_string(dims[0]) + ", " + std::to_string(dims[1]) + ", " + std::to_string(dims[2]) +
                           "]\n[physics]\ntau = 0.8\n[geometry]\nvoxel_file = " + toml_string(path) + "\ndims = [" +
                           std::to_string(dims[0]) + ", " + std::to_string(dims[1]) + ", " + std::to_string(dims[2]) + "]\n";
  const Config config = parse_deck_string(deck, "voxel_read", ".", {});
  for (int r = 0; r < repeats; ++r)
    for (const bool cold : {true, false}) {
      bool dropped = false;
      if (cold && comm.rank() == 0) dropped = drop_cached_pages(config.voxels->path);
      comm.barrier();
      const auto t0 = std::chrono::steady_clock::now();
      const Partition p = partition(config, comm.get(), 1);
      const double seconds = comm.max(seconds_since(t0));
      if (comm.rank() != 0) continue;
      Json line = Json::object();
      line["kind"] = "voxel_read";
      line["file"] = config.voxels->path;
      line["file_bytes"] = p.voxel_input["file_bytes"];
      line["ranks"] = comm.size();
      line["cache"] = cold ? (dropped ? "dropped" : "drop failed") : "warm";
      line["repeat"] = r;
      line["slabs"] = p.voxel_input["slabs"];
      line["blocks"] = p.voxel_input["blocks"];
      line["partition_seconds"] = seconds;  // both passes, fluid counting and the decomposition
      merge(line, env);
      std::printf("%s\n", line.dump(-1).c_str());
      std::fflush(stdout);
    }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Boreas kernel benchmark: MLUPS on a periodic box against a measured memory roofline. Kokkos\n"
               "options (--kokkos-threads=N, --kokkos-device-id=N, ...) are passed on to Kokkos.",
               "boreas-bench"};
  std::vector<std::string> lattices{"D3Q19"}, precisions{"double"}, sizes{"128"};
  std::vector<std::string> kernels{"ab_pull"};
  std::string collision = "BGK", merge_form = "auto", layout = "soa", sgs = "none";
  std::vector<int> tiles{Config().tile}, bundles{Config().bundle};
  long steps = 10;
  int repeats = 5;
  app.add_option("--lattice", lattices, "lattices (list)")
      ->check(CLI::IsMember({"D2Q9", "D3Q19", "D3Q27"}));
  app.add_option("--precision", precisions, "precisions (list)")->check(CLI::IsMember({"double", "float"}));
  app.add_option("--size", sizes, "box sizes, N or NxNy[xNz] (list)");
  app.add_option("--steps", steps, "time steps per repeat")->check(whole_number(1, 1000000000));
  app.add_option("--repeats", repeats, "timed repeats (the median is reported)")->check(whole_number(1, 1000000));
  app.add_option("--kernel", kernels, "streaming kernels (deck key simulation.kernel; list)")
      ->check(CLI::IsMember(boreas::known_kernels()));
  app.add_option("--collision", collision, "collision operator (cumulant: D3Q27 only)")
      ->check(CLI::IsMember({"BGK", "TRT", "cumulant"}));
  std::string cumulant = "standard";
  app.add_option("--cumulant", cumulant, "cumulant variant (deck key collision.cumulant; parametrised: at tau 0.55)")
      ->check(CLI::IsMember({"standard", "parametrised"}));
  app.add_option("--sgs", sgs, "subgrid model (deck key collision.sgs; C_s 0.1)")
      ->check(CLI::IsMember({"none", "smagorinsky"}));
  app.add_option("--tile", tiles, "prism / merge tiles (deck key simulation.tile; list)")->check(whole_number(2, 1 << 20));
  app.add_option("--merge-form", merge_form, "merged<k> form (deck key simulation.merge_form)")
      ->check(CLI::IsMember({"auto", "slabs", "tiles"}));
  app.add_option("--layout", layout, "population storage (deck key simulation.layout)")
      ->check(CLI::IsMember({"soa", "aosoa"}));
  app.add_option("--bundle", bundles, "directions per AoSoA bundle (deck key simulation.bundle; list)")
      ->check(whole_number(1, 1 << 20));
  std::string voxel_file, voxel_dims;
  CLI::Option* read_option =
      app.add_option("--read-voxels", voxel_file, "measure the parallel read of this voxel file instead (mpiexec)");
  app.add_option("--voxel-dims", voxel_dims, "its dims, NXxNYxNZ (with --read-voxels)")->needs(read_option);
  read_option->needs("--voxel-dims");
  std::vector<double> porosities;
  std::vector<std::string> launch_bounds;
  CLI::Option* bounds_option = app.add_option("--launch-bounds", launch_bounds,
                 "device launch bounds of the D3Q19 BGK pull / push step, timed alone: default (Kokkos's), "
                 "256x3 (<= 85 registers), 256x4 (<= 64), 256x5 (<= 51), 256x6 (<= 42) (list; device backends)")
      ->check(CLI::IsMember(bench::launch_bound_names()));
  std::vector<int> team_sizes{0};
  CLI::Option* team_size_option = app.add_option("--team-size", team_sizes,
                 "with --launch-bounds: threads per block, 0 for Kokkos's RangePolicy choice, else a "
                 "TeamPolicy of that many (a multiple of 32; list)")
      ->check(whole_number(0, 1024))
      ->needs(bounds_option);
  std::vector<bench::TeamMap> team_maps{bench::TeamMap::cells};
  const std::map<std::string, bench::TeamMap> team_map_names{{"cells", bench::TeamMap::cells},
                                                              {"rows", bench::TeamMap::rows}};
  app.add_option("--team-map", team_maps,
                 "with --team-size: cells (a cell per thread in the RangePolicy's order) or rows (a team per "
                 "x row, no index division per cell) (list)")
      ->transform(CLI::CheckedTransformer(team_map_names))
      ->needs(team_size_option);
  std::vector<bench::StepForm> step_forms{bench::StepForm::split};
  const std::map<std::string, bench::StepForm> step_form_names{
      {"full", bench::StepForm::full}, {"plain", bench::StepForm::plain}, {"split", bench::StepForm::split}};
  app.add_option("--launch-step", step_forms,
                 "with --launch-bounds: split (the schemes' step: a cell's neighbourhood tested once, all-fluid "
                 "cells without flag tests; the default), full (every link tested against the flags) or plain "
                 "(every cell without flag tests or boundary branches); split and plain are compared with full "
                 "on the box (list)")
      ->transform(CLI::CheckedTransformer(step_form_names))
      ->needs(bounds_option);
  app.add_option("--porosity", porosities, "dense against sparse storage on porous media of these porosities (list)")
      ->check(number_in(0.05, 0.95));
  SplitArguments args = split_kokkos_arguments(argc, argv);
  if (const int status = parse_command_line(app, args.app, args.kokkos, true); status >= 0) return status;
  // Refused before any measurement (the reference alone takes seconds and gigabytes), as the deck
  // refuses keys that do not apply.
  const auto refuse = [](const std::string& why) {
    std::fprintf(stderr, "boreas-bench: error: %s\n", why.c_str());
    return 2;
  };
  for (const std::string& bound : launch_bounds)
    for (const int team_size : team_sizes)
      if (const std::string problem = bench::team_size_problem(team_size, bound); !problem.empty())
        return refuse("--team-size: " + problem);
  if (!voxel_file.empty()) {
    try {
      const std::array<int, 3> dims = parse_size(voxel_dims, 3, "--voxel-dims");
      const KokkosSession kokkos(args.kokkos);
      const int status = read_voxels(std::filesystem::absolute(voxel_file).string(), dims, repeats, environment());
      MPI_Finalize();
      return status;
    } catch (const std::exception& e) {
      return refuse(e.what());
    }
  }

  std::vector<Case> cases;
  try {
    for (const auto& l : lattices) {
      const LatticeKind lattice =
          l == "D2Q9" ? LatticeKind::D2Q9 : l == "D3Q19" ? LatticeKind::D3Q19 : LatticeKind::D3Q27;
      for (const auto& p : precisions)
        for (const auto& s : sizes)
          cases.push_back({lattice, p == "float" ? Precision::Float : Precision::Double,
                           parse_size(s, lattice == LatticeKind::D2Q9 ? 2 : 3)});
    }
  } catch (const CLI::Error& e) {
    return refuse(e.what());
  }
  if (cumulant == "parametrised" && collision != "cumulant")
    return refuse("--cumulant parametrised needs --collision cumulant");
  for (const auto& c : cases)
    if (collision == "cumulant" && c.lattice != LatticeKind::D3Q27)
      return refuse("--collision cumulant is defined on D3Q27 only (--lattice D3Q27)");
  if (const std::string why = bench::launch_bounds_unavailable(); !launch_bounds.empty() && !why.empty())
    return refuse(why);
  for (const auto& c : cases)
    if (!porosities.empty() && (c.cells[0] != c.cells[1] || c.cells[1] != c.cells[2]))
      return refuse("--porosity needs cubic 3D sizes (--size N)");
  if (!porosities.empty() && !launch_bounds.empty())
    return refuse("--porosity and --launch-bounds measure other things: give one of them");
  if (app.count("--bundle") > 0 && layout != "aosoa") return refuse("--bundle: only used with --layout aosoa");
  const auto any_kernel = [&](std::initializer_list<StreamingKernel> kinds) {
    return std::any_of(kernels.begin(), kernels.end(), [&](const std::string& k) {
      return std::find(kinds.begin(), kinds.end(), parse_scheme(k)->kind) != kinds.end();
    });
  };
  if (app.count("--tile") > 0 &&
      !any_kernel({StreamingKernel::SwapPrism, StreamingKernel::Merged, StreamingKernel::MergedAA}))
    return refuse("--tile: only used by swap_prism, merged2/merged3 and merged_aa2/merged_aa3");
  if (app.count("--merge-form") > 0 && !any_kernel({StreamingKernel::Merged}))
    return refuse("--merge-form: only used by merged2/merged3");
  for (const std::string& k : kernels)  // the sparse storage's kernels (core/Deck.cpp)
    if (!porosities.empty() && parse_scheme(k)->kind != StreamingKernel::ABPull && parse_scheme(k)->kind != StreamingKernel::AA)
      return refuse("--porosity compares the dense with the sparse storage, which steps with ab_pull or aa, not " + k);
  // One line per kernel x tile x bundle x case, all in one process (one Kokkos start-up).
  std::vector<Config> settings;
  for (const auto& kernel : kernels)
    for (const int tile : tiles)
      for (const int bundle : bundles) {
        Config s;
        s.kernel = *parse_scheme(kernel);
        s.collision = collision == "TRT"        ? CollisionKind::TRT
                      : collision == "cumulant" ? CollisionKind::Cumulant
                                                : CollisionKind::BGK;
        s.cumulant_parametrised = cumulant == "parametrised";
        s.sgs = sgs == "smagorinsky" ? SgsModel::Smagorinsky : SgsModel::None;
        s.tile = tile;
        s.merge_form =
            merge_form == "tiles" ? MergeForm::Tiles : merge_form == "slabs" ? MergeForm::Slabs : MergeForm::Auto;
        s.layout = layout == "aosoa" ? StorageLayout::AoSoA : StorageLayout::SoA;
        s.bundle = bundle;
        settings.push_back(s);
      }

  const KokkosSession kokkos(args.kokkos);
  try {
    const Json env = environment();
    long long largest = 0;
    for (const auto& c : cases)
      largest = std::max(largest, static_cast<long long>(c.cells[0]) * c.cells[1] * c.cells[2]);
    std::printf("%s\n", reference_line(cases.front().precision, largest, repeats, env).dump(-1).c_str());
    std::fflush(stdout);
    const auto print = [](const std::vector<Json>& lines) {  // as each measurement ends (a run cut short keeps them)
      for (const Json& line : lines) std::printf("%s\n", line.dump(-1).c_str());
      std::fflush(stdout);
    };
    for (const Config& kernel_settings : settings)
      for (const auto& c : cases) {
        if (!launch_bounds.empty()) {
          print(run_launch_bounds(c, kernel_settings, launch_bounds, team_sizes, team_maps, step_forms, steps, repeats, env));
        } else if (!porosities.empty()) {
          ensure_mpi_initialized();
          for (const double p : porosities) print(run_porous(c, kernel_settings, p, steps, repeats, env));
        } else {
          print({run_case(c, kernel_settings, steps, repeats, env)});
        }
      }
  } catch (const Error& e) {
    return refuse(e.what());
  } catch (const std::exception& e) {  // Kokkos's allocation failure: a box larger than the memory
    return refuse(std::string(e.what()) + " (is the box larger than this machine's memory?)");
  }
  if (!porosities.empty()) MPI_Finalize();
  return 0;
}
