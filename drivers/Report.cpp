#include "drivers/Report.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "drivers/Simulation.hpp"
#include "io/BoxFile.hpp"
#include "io/PvdCollection.hpp"

namespace boreas {

const char* storage_layout_name(StorageLayout layout) { return layout == StorageLayout::AoSoA ? "aosoa" : "soa"; }
const char* merge_form_name(MergeForm form) {
  switch (form) {
    case MergeForm::Slabs: return "slabs";
    case MergeForm::Tiles: return "tiles";
    default: return "auto";
  }
}

namespace {
template <class T, std::size_t N>
Json array_json(const std::array<T, N>& a) {
  Json out = Json::array();
  for (const T& v : a) out.push_back(v);
  return out;
}
}  // namespace

Json config_to_json(const Config& c) {
  Json j = Json::object();
  j["name"] = c.name;
  j["deck"] = c.deck_path;
  j["lattice"] = lattice_name(c.lattice);
  j["precision"] = c.precision == Precision::Double ? "double" : "float";
  j["collision"] = collision_name(c.collision);
  if (c.collision == CollisionKind::TRT) j["trt_magic"] = c.trt_magic;
  if (c.collision == CollisionKind::Cumulant) j["cumulant"] = c.cumulant_parametrised ? "parametrised" : "standard";
  if (c.cumulant_parametrised) j["cumulant_limiter"] = c.cumulant_limiter;
  j["sgs"] = sgs_name(c.sgs);
  if (c.sgs == SgsModel::Smagorinsky) j["smagorinsky_constant"] = c.smagorinsky_constant;
  if (c.sgs == SgsModel::Csm) j["csm_constant"] = c.csm_constant;
  j["kernel"] = scheme_name(c.kernel);
  j["tile"] = c.tile;
  j["merge_form"] = merge_form_name(c.merge_form);
  j["traversal"] = c.traversal == Traversal::Cells ? "cells" : "auto";
  j["layout"] = storage_layout_name(c.layout);
  if (c.layout == StorageLayout::AoSoA) j["bundle"] = c.bundle;
  j["storage"] = c.storage == StorageKind::Sparse ? "sparse" : "dense";
  j["cells"] = array_json(c.cells);
  j["tau"] = c.tau;
  j["viscosity"] = c.viscosity;
  j["density"] = c.density;
  j["force"] = array_json(c.force);
  if (c.reynolds) {
    j["reynolds"] = *c.reynolds;
    j["reference_length"] = *c.reference_length;
    j["reference_velocity"] = *c.reference_velocity;
  }
  j["mach_limit"] = c.mach_limit;
  static const char* initial_names[] = {"uniform", "taylor_green", "channel"};
  j["initial"] = initial_names[int(c.initial)];
  if (c.initial == InitialCondition::TaylorGreen) j["taylor_green_amplitude"] = c.taylor_green_u0;
  else j["initial_velocity"] = array_json(c.initial_velocity);
  if (c.initial == InitialCondition::Channel) j["channel_perturbation"] = c.channel_perturbation;
  static const char* face_names[num_faces] = {"x_min", "x_max", "y_min", "y_max", "z_min", "z_max"};
  Json faces = Json::object();
  for (int f = 0; f < (c.dimensions() == 3 ? 6 : 4); ++f) {
    Json face = Json::object();
    face["type"] = face_bc_name(c.faces[f].type);
    if (c.faces[f].type == FaceBC::MovingWall || c.faces[f].type == FaceBC::VelocityInlet)
      face["velocity"] = array_json(c.faces[f].velocity);
    if (c.faces[f].type == FaceBC::PressureOutlet) face["density"] = c.faces[f].density;
    if (c.faces[f].type == FaceBC::Outflow) face["convective_velocity"] = c.faces[f].convective_velocity;
    const InletProfileKind profile = c.faces[f].profile;
    if (c.faces[f].type == FaceBC::VelocityInlet && profile != InletProfileKind::Uniform) {
      face["profile"] = inlet_profile_names()[int(profile)];
      if (profile == InletProfileKind::PowerLaw || profile == InletProfileKind::LogLaw)
        face["reference_height"] = c.faces[f].reference_height;
      if (profile == InletProfileKind::PowerLaw) face["exponent"] = c.faces[f].exponent;
      if (profile == InletProfileKind::LogLaw) face["roughness_length"] = c.faces[f].roughness_length;
    }
    if (c.faces[f].turbulence_intensity > 0) {  // also the checkpoint signature's: a restart keeps them
      face["turbulence_intensity"] = c.faces[f].turbulence_intensity;
      face["turbulence_length"] = c.faces[f].turbulence_length;
      face["turbulence_time"] = c.faces[f].turbulence_time;
    }
    faces[face_names[f]] = face;
  }
  j["boundary"] = faces;
  j["obstacles"] = static_cast<std::int64_t>(c.obstacles.size());
  if (c.voxels) j["voxel_file"] = c.voxels->path;
  j["steps"] = c.steps;
  j["output_every"] = c.output_every;
  j["output_dir"] = c.output_dir;
  return j;
}

Json backend_json() {
  Json b = Json::object();
  b["execution_space"] = Kokkos::DefaultExecutionSpace::name();
  b["concurrency"] = Kokkos::DefaultExecutionSpace().concurrency();
  b["kokkos_version"] = std::to_string(KOKKOS_VERSION / 10000) + "." +
                        std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
                        std::to_string(KOKKOS_VERSION % 100);
  return b;
}

Json mass_json(double initial, double final_mass) {
  Json m = Json::object();
  m["initial"] = initial;
  m["final"] = final_mass;
  m["relative_change"] = (final_mass - initial) / initial;
  return m;
}

Json units_json(const Config& config, double wall_seconds, long steps_run) {
  const PhysicalUnits& u = config.units;
  if (!u.enabled) return nullptr;
  constexpr double seed000_cfl = 0.25;
  const double dt = u.dt(), dx = u.dx;
  Json j = Json::object();
  j["dx_m"] = dx;
  j["dt_s"] = dt;
  j["velocity_m_s"] = u.velocity;
  j["lattice_velocity"] = u.lattice_velocity;
  j["density_kg_m3"] = u.density;
  j["viscosity_m2_s"] = (config.tau - 0.5) / 3 * dx * dx / dt;
  j["force_scale_n"] = u.density * std::pow(dx, 4) / (dt * dt);  // of a lattice force on a body
  j["pressure_scale_pa"] = u.density * dx * dx / (dt * dt);
  j["time_simulated_s"] = dt * steps_run;
  j["real_time_speed"] = wall_seconds > 0 ? dt * steps_run / wall_seconds : 0.0;
  Json criterion = Json::object();
  criterion["cfl"] = seed000_cfl;
  criterion["dt_real_s"] = seed000_cfl * dx / u.velocity;
  criterion["dt_sim_s"] = steps_run > 0 ? wall_seconds / steps_run : 0.0;
  criterion["ratio"] = criterion["dt_sim_s"].get<double>() / criterion["dt_real_s"].get<double>();
  j["real_time_criterion"] = criterion;
  return j;
}

Json make_report(const Config& config, const Simulation& sim, const std::string& status,
                 double wall_seconds, double initial_mass, long first_step, long reached) {
  Json r = Json::object();
  r["status"] = status;
  r["config"] = config_to_json(config);
  r["lattice"] = lattice_name(config.lattice);
  r["tau"] = config.tau;
  r["steps"] = sim.step();
  r["fluid_cells"] = sim.fluid_cells();
  r["wall_time_s"] = wall_seconds;
  // Timing per category: the busiest rank's, whose categories add up to the most (a breakdown of
  // the wall time; parallel.timers has each category's slowest rank and the mean); speed counts
  // the slowest rank's update time (its lbm + boundaries).
  Json par = sim.parallel_report();
  const Json& busiest = par["timers"]["busiest_rank"];
  const double update_time = par["timers"]["slowest_update"].get<double>();
  if (first_step > 0) r["steps_run"] = sim.step() - first_step;  // to the state the run ends on
  const long steps_computed = reached - first_step;
  r["mlups"] = update_time > 0 ? double(r["fluid_cells"].get<std::int64_t>()) * steps_computed / update_time * 1e-6 : 0.0;
  Json t = Json::object();
  double accounted = 0;
  for (const char* cat : {"lbm", "boundaries", "output"}) {
    t[cat] = busiest[cat].get<double>();
    accounted += busiest[cat].get<double>();
  }
  t["others"] = wall_seconds - accounted;
  r["timing_s"] = t;
  r["parallel"] = par;
  r["fields_hash"] = hash_hex(sim.fields_hash());
  r["mass"] = mass_json(initial_mass, sim.total_mass());
  if (config.restores_mass()) r["mass"]["restored_every"] = Config::mass_restoration_period;
  r["backend"] = backend_json();
  r["kernel"] = scheme_name(sim.config().kernel);
  if (config.units.enabled) r["units"] = units_json(config, wall_seconds, steps_computed);
  if (!sim.kernel_choice().is_null()) r["kernel_choice"] = sim.kernel_choice();
  return r;
}

namespace {
// The output directory as a path ("" is the working directory).
std::filesystem::path output_path(const std::string& directory) { return directory.empty() ? "." : directory; }
}  // namespace

void prepare_output_directory(MPI_Comm comm, const std::string& directory, const std::string& what) {
  namespace fs = std::filesystem;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const fs::path dir = output_path(directory);
  const std::string on_rank = rank == 0 ? "" : " (on rank " + std::to_string(rank) + ")";
  const auto make = [&] {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir)) return dir.string() + ": cannot create the " + what + (ec ? ": " + ec.message() : "") + on_rank;
    return std::string();
  };
  agree(comm, rank == 0 ? make() : std::string());  // one rank creates it, then every rank looks
  std::string error = make();
  if (error.empty()) {
    const fs::path probe = dir / (".boreas-write-test-" + std::to_string(::getpid()) + "-" + std::to_string(rank));
    const bool written = static_cast<bool>(std::ofstream(probe) << "boreas\n");
    std::error_code ec;
    fs::remove(probe, ec);
    if (!written) error = dir.string() + ": cannot write in the " + what + " (permissions? full disk?)" + on_rank;
  }
  // Found before the run, not when its report is written at the end (a link is replaced, a
  // directory cannot be).
  if (error.empty() && what == "output directory") {
    std::error_code ec;
    const fs::file_status report = fs::symlink_status(dir / "report.json", ec);
    if (!ec && fs::exists(report) && !fs::is_regular_file(report) && !fs::is_symlink(report))
      error = (dir / "report.json").string() + ": exists and is not a file: the run could not write its report there" +
              on_rank;
  }
  agree(comm, error);
}

void warn_about_earlier_report(const Config& config, bool root) {
  if (!root) return;
  const std::filesystem::path dir = output_path(config.output_dir);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(dir / "report.json", ec)) return;  // reading a directory throws
  std::ifstream in(dir / "report.json");
  const Json earlier = in ? Json::parse(in, nullptr, false) : Json();
  if (const Json* c = member(earlier, "config"); c && c->contains("name") && (*c)["name"] != config.name)
    std::fprintf(stderr, "boreas: warning: %s holds the report.json of a run of '%s'; this run of '%s' replaces it\n",
                 dir.string().c_str(), (*c)["name"].is_string() ? (*c)["name"].get<std::string>().c_str() : "?",
                 config.name.c_str());
}

namespace {
// The step of a VTK file of run `name` (<name>_<step>[_<piece>].vti, .pvti or .vthb; steps have
// at least 6 digits), or "": another run's name that begins with this one's and a digit (cav_2
// beside cav) does not match.
std::string vtk_file_step(const std::string& file, const std::string& name) {
  const std::filesystem::path p(file);
  const std::string ext = p.extension().string(), stem = p.stem().string();
  if ((ext != ".vti" && ext != ".pvti" && ext != ".vthb") || stem.rfind(name + "_", 0) != 0) return "";
  const std::string rest = stem.substr(name.size() + 1);
  const std::size_t split = rest.find('_');
  const std::string step = rest.substr(0, split), piece = split == std::string::npos ? "" : rest.substr(split + 1);
  const auto digits = [](const std::string& t) { return !t.empty() && t.find_first_not_of("0123456789") == std::string::npos; };
  return step.size() >= 6 && digits(step) && (split == std::string::npos || digits(piece)) ? step : "";
}
}  // namespace

void warn_about_stale_output(const Config& config, const Json& report, bool root) {
  namespace fs = std::filesystem;
  if (!root || !report.contains("output_files")) return;
  std::vector<std::string> written;  // file names
  for (const Json& f : report["output_files"]) written.push_back(fs::path(f.get<std::string>()).filename().string());
  long stale = 0;
  std::string example;
  std::error_code ec;
  const fs::path dir = output_path(config.output_dir);
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string(), step = vtk_file_step(name, config.name);
    std::error_code kind;
    if (step.empty() || !it->is_regular_file(kind) || std::find(written.begin(), written.end(), name) != written.end())
      continue;
    if (example.empty()) example = name;
    ++stale;
  }
  if (stale > 0)
    std::fprintf(stderr,
                 "boreas: warning: %s holds %ld VTK files of '%s' that this run did not write (%s, ...), an earlier "
                 "run's%s (remove them or choose another --output-dir)\n",
                 dir.string().c_str(), stale, config.name.c_str(), example.c_str(),
                 written.empty() ? "" : ("; " + config.name + ".pvd lists only this run's").c_str());
}

void write_report(MPI_Comm comm, const std::string& directory, const Json& report) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string error;
  if (rank == 0) {
    const std::string path = (output_path(directory) / "report.json").string();
    try {
      write_text_atomically(path, report.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
    } catch (const std::exception& e) {
      error = path + ": the run's report is not written: " + e.what();
    }
  }
  agree(comm, error);
}

std::string setup_text(const Config& c, const RunSetup& s) {
  std::string out;
  char line[512];
  const auto add = [&](const char* fmt, auto... args) {
    std::snprintf(line, sizeof line, fmt, args...);
    out += line;
  };
  std::string collision = collision_name(c.collision);
  if (c.collision == CollisionKind::TRT) {
    std::snprintf(line, sizeof line, " (magic %g)", c.trt_magic);
    collision += line;
  }
  if (c.collision == CollisionKind::Cumulant && c.cumulant_parametrised) collision += " (parametrised)";
  if (c.sgs != SgsModel::None) collision += std::string(" + ") + sgs_name(c.sgs);
  std::string grid = std::to_string(c.cells[0]);
  for (int d = 1; d < c.dimensions(); ++d) grid += " x " + std::to_string(c.cells[d]);
  out += "boreas: " + c.name + " (" + c.deck_path + "): ";
  add("steps %ld to %ld, ", s.first_step, c.steps);
  out += std::string(lattice_name(c.lattice)) + " " + collision + ", " +
         (c.precision == Precision::Double ? "double" : "float") + ", " + grid + " cells";
  if (c.amr.enabled) {
    add("; AMR %d levels, leaves of %d^%d, fluid leaf cells per level:", int(s.fluid_cells.size()), c.amr.leaf_size,
        c.dimensions());
    for (long long n : s.fluid_cells) add(" %lld", n);
    out += "\n";
  } else {
    add(" (%lld fluid)\n", s.fluid_cells.empty() ? 0LL : s.fluid_cells[0]);
  }
  add("  tau %.6g, viscosity %.6g", c.tau, c.viscosity);
  if (c.reynolds)
    add("; Re %.6g with U %.6g and L %.6g (Mach %.3g)", *c.reynolds, *c.reference_velocity, *c.reference_length,
        *c.reference_velocity * std::sqrt(3.0));
  if (c.force[0] != 0 || c.force[1] != 0 || c.force[2] != 0) add("; force (%.6g, %.6g, %.6g)", c.force[0], c.force[1], c.force[2]);
  out += "\n";
  const Json backend = backend_json();
  const int concurrency = backend["concurrency"].get<int>();
  out += "  kernel " + s.kernel + "; ";
  add("%d rank%s, Kokkos ", s.ranks, s.ranks == 1 ? "" : "s");
  out += backend["execution_space"].get<std::string>();
  // A host backend's concurrency is its threads; a device's is what it runs at once.
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Kokkos::DefaultExecutionSpace::memory_space>::accessible)
    add(" with %d thread%s%s\n", concurrency, concurrency == 1 ? "" : "s", s.ranks == 1 ? "" : " each");
  else
    add(" (concurrency %d%s)\n", concurrency, s.ranks == 1 ? "" : " each");
  out += "  output to " + c.output_dir;
  if (c.write_vtk && c.output_every > 0) add(": VTK every %ld steps and at the end", c.output_every);
  else out += c.write_vtk ? ": VTK at the end" : ": report.json only, no VTK";
  if (c.checkpoint.every > 0) add("; checkpoints every %ld steps", c.checkpoint.every);
  if (c.checkpoint.every_minutes > 0) add("; checkpoints every %g min", c.checkpoint.every_minutes);
  out += "\n";
  return out;
}

std::string summary_text(const Json& r) {
  std::string out;
  char line[256];
  const auto add = [&](const char* fmt, auto... args) {
    std::snprintf(line, sizeof line, fmt, args...);
    out += line;
  };
  const double wall = r["wall_time_s"].get<double>();
  add("%s: %s after %lld steps, %.2f %sMLUPS, %.2f s", r["config"]["name"].get<std::string>().c_str(),
      r["status"].get<std::string>().c_str(), static_cast<long long>(r["steps"].get<std::int64_t>()),
      r["mlups"].get<double>(), member(r, "amr") ? "level-weighted " : "", wall);
  if (const Json* h = member(r, "fields_hash")) add(", fields_hash %s", h->get<std::string>().c_str());
  out += "\n";
  if (const Json* c = member(r, "convergence")) {
    const Json& v = (*c)["velocity_change"];
    const long long from = (*c)["since_step"].get<std::int64_t>(), to = (*c)["step"].get<std::int64_t>();
    if (v.is_null())
      add("  velocity change |du|/|u|: none, the fluid is at rest (steps %lld to %lld)\n", from, to);
    else
      add("  velocity change |du|/|u| %.2e from step %lld to %lld\n", v.get<double>(), from, to);
  }
  if (const Json* a = member(r, "amr")) {
    out += "  AMR leaf cells per level:";
    for (const auto& l : (*a)["levels"])
      add(" %lld", static_cast<long long>(l["fluid_leaf_cells"].get<std::int64_t>()));
    add("; uniform-finest equivalent %.2f MLUPS\n", (*a)["uniform_finest_equivalent_mlups"].get<double>());
    const Json* p = member(*a, "partition");
    if (p && (*p)["ranks"].get<std::int64_t>() > 1) {
      add("  AMR on %lld ranks: weighted imbalance %.3f, %.3g messages and %.4g MB per level-0 step",
          static_cast<long long>((*p)["ranks"].get<std::int64_t>()), (*p)["weighted_imbalance"].get<double>(),
          (*p)["messages_per_step"].get<double>(), (*p)["bytes_per_step"].get<double>() * 1e-6);
      if ((*p)["crmt"].get<bool>())
        add(" (CRMT on leaves: exchange every %lld steps of a level)",
            static_cast<long long>((*p)["exchange_period"].get<std::int64_t>()));
      out += "\n";
    }
  }
  if (const Json* k = member(r, "kernel_choice")) {
    add("  kernel \"auto\": %s (tile %lld, %s), %s", (*k)["chosen"].get<std::string>().c_str(),
        static_cast<long long>(k->contains("tile") ? (*k)["tile"].get<std::int64_t>() : 0),
        k->contains("layout") ? (*k)["layout"].get<std::string>().c_str() : "deck's layout",
        (*k)["source"].get<std::string>().c_str());
    if (const Json* cands = member(*k, "candidates")) {
      out += "; trial MLUPS:";
      for (const auto& c : *cands)
        add(" %s/%lld/%s %.1f", c["kernel"].get<std::string>().c_str(), static_cast<long long>(c["tile"].get<std::int64_t>()),
            c["layout"].get<std::string>().c_str(), c["mlups"].get<double>());
    }
    out += "\n";
  }
  if (const Json* u = member(r, "units")) {
    const Json& c = (*u)["real_time_criterion"];
    add("  physical: dx %.4g m, dt %.4g s, viscosity %.3g m^2/s; %.4g s simulated in %.4g s (%.3gx real time);"
        " dt_sim / dt_real %.3g (seed 000: wall time per step / (%.2g dx / U) = %.3g s / %.3g s)\n",
        (*u)["dx_m"].get<double>(), (*u)["dt_s"].get<double>(), (*u)["viscosity_m2_s"].get<double>(),
        (*u)["time_simulated_s"].get<double>(), wall, (*u)["real_time_speed"].get<double>(), c["ratio"].get<double>(),
        c["cfl"].get<double>(), c["dt_sim_s"].get<double>(), c["dt_real_s"].get<double>());
  }
  // AMR's amr_* parts inside their total "amr", so that the percentages add up to 100.
  out += "  time:";
  const Json& timing = r["timing_s"];
  for (const auto& [category, seconds] : timing.items()) {
    if (category.rfind("amr_", 0) == 0) continue;
    add(" %s %.3g s (%.0f%%", category.c_str(), seconds.get<double>(), wall > 0 ? 100 * seconds.get<double>() / wall : 0.0);
    if (category == "amr")
      for (const char* part : {"interpolation", "restriction", "regrid"})
        if (const Json* s = member(timing, std::string("amr_") + part)) add(", %s %.3g s", part, s->get<double>());
    out += ")";
  }
  out += "\n";
  const Json* p = member(r, "parallel");
  if (p && p->contains("time_per_step_s")) {  // several ranks
    add("  %lld ranks, overlap %s; per step, slowest rank / mean [ms]:",
        static_cast<long long>((*p)["ranks"].get<std::int64_t>()), (*p)["overlap"].get<std::string>().c_str());
    for (const auto& [term, v] : (*p)["time_per_step_s"].items())
      add(" %s %.3g/%.3g", term.c_str(), 1e3 * v["slowest_rank"].get<double>(), 1e3 * v["mean"].get<double>());
    const Json& msgs = (*p)["messages"];
    add("\n  model: %s, hidden fraction of M %.2f; messages per step %.3g, bytes per step %.4g\n",
        (*p)["model"]["regime"].get<std::string>().c_str(), (*p)["model"]["hidden_fraction_of_M"].get<double>(),
        msgs["per_step"].get<double>(), msgs["bytes_per_step"].get<double>());
    const Json& c = (*p)["crmt"];
    add("  CRMT: ghost width %lld, exchange every %lld steps, redundant cells %.3g per step (%.1f%%)",
        static_cast<long long>(c["ghost_width"].get<std::int64_t>()),
        static_cast<long long>(c["steps_per_exchange"].get<std::int64_t>()), c["redundant_cells_per_step"].get<double>(),
        100 * c["redundant_fraction"].get<double>());
    if (const Json* a = member(c, "auto")) {
      out += "; chosen automatically, modelled cost per step [ms]:";
      for (const auto& cand : (*a)["candidates"])
        add(" h=%lld %.3g", static_cast<long long>(cand["ghost_width"].get<std::int64_t>()),
            1e3 * cand["modelled_cost_per_step_s"].get<double>());
    }
    out += "\n";
  }
  if (const Json* sp = p ? member(*p, "sparse") : nullptr) {
    add("  sparse storage (%s): %lld fluid cells, %.0f device bytes per fluid cell, %lld remote links",
        (*sp)["kernel"].get<std::string>().c_str(), static_cast<long long>((*sp)["fluid_cells"].get<std::int64_t>()),
        (*sp)["device_bytes_per_fluid_cell"].get<double>(), static_cast<long long>((*sp)["remote_links"].get<std::int64_t>()));
    const Json& msgs = (*p)["messages"];
    add("; messages per step %.3g, bytes per step %.4g\n", msgs["per_step"].get<double>(), msgs["bytes_per_step"].get<double>());
  }
  return out;
}

}  // namespace boreas
