#include "drivers/Observables.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "drivers/Simulation.hpp"

namespace boreas {

namespace {

constexpr double pi = 3.14159265358979323846;

// The host macroscopic fields with (x, y, z) accessors.
struct Fields {
  const HostMacroscopic& m;
  std::array<int, 3> n;
  long at(int x, int y, int z) const { return (long(z) * n[1] + y) * n[0] + x; }
  double u(int x, int y, int z, int d) const { return m.velocity[3 * at(x, y, z) + d]; }
  double rho(int x, int y, int z) const { return m.density[at(x, y, z)]; }
};

Json failure(const std::string& why) { return Json{{"error", why}}; }

// Linear interpolation in a profile sampled at increasing positions.
double interpolate(const std::vector<double>& pos, const std::vector<double>& val, double p) {
  auto hi = std::upper_bound(pos.begin(), pos.end(), p);
  if (hi == pos.begin()) return val.front();
  if (hi == pos.end()) return val.back();
  const std::size_t i = std::size_t(hi - pos.begin());
  const double t = (p - pos[i - 1]) / (pos[i] - pos[i - 1]);
  return (1 - t) * val[i - 1] + t * val[i];
}

// Plane Poiseuille flow along x between walls at y = -1/2 and y = H - 1/2 (halfway
// bounce-back), sampled across the channel at mid-length (and mid-depth in 3D).
Json poiseuille_profile(const Config& c, const Fields& f) {
  if (const std::string why = observable_unsuited(c, "poiseuille_profile"); !why.empty()) return failure(why);
  const int nx = c.cells[0], H = c.cells[1], xm = nx / 2, zm = c.cells[2] / 2;
  const double nu = c.viscosity;

  // Driving pressure-gradient equivalent G (force per volume along +x) and the density that
  // turns kinematic into dynamic viscosity.
  double G = 0, rho = c.density;
  std::string driving;
  if (c.faces[XMin].type == FaceBC::Periodic && c.force[0] != 0) {
    G = c.force[0];
    driving = "force";
  } else if (c.faces[XMin].type != FaceBC::Periodic) {
    // Least-squares slope of rho along the centre line over the middle half of the channel,
    // away from the inlet's development length and the outlet: dp/dx = c_s^2 drho/dx.
    const int x0 = nx / 4, x1 = std::max(x0 + 2, 3 * nx / 4);
    double sx = 0, sr = 0, sxx = 0, sxr = 0;
    int count = 0;
    for (int x = x0; x < x1 && x < nx; ++x) {
      // Mean over the two centre rows for even H, so the sample is symmetric.
      const double r = 0.5 * (f.rho(x, (H - 1) / 2, zm) + f.rho(x, H / 2, zm));
      sx += x; sr += r; sxx += double(x) * x; sxr += double(x) * r; ++count;
    }
    if (count < 2) return failure("poiseuille_profile: channel too short to measure dp/dx");
    const double slope = (count * sxr - sx * sr) / (count * sxx - sx * sx);
    G = -slope / 3.0 + c.force[0];
    rho = 0.5 * (f.rho(xm, (H - 1) / 2, zm) + f.rho(xm, H / 2, zm));
    driving = "pressure";
  }
  const double coeff = G / (2 * rho * nu);
  double u_max_measured = 0, max_abs_error = 0;
  const double u_max_analytic = coeff * 0.25 * double(H) * double(H);
  Json profile = Json::array();
  for (int y = 0; y < H; ++y) {
    const double analytic = coeff * (y + 0.5) * (H - 0.5 - y);
    const double measured = f.u(xm, y, zm, 0);
    u_max_measured = std::max(u_max_measured, measured);
    max_abs_error = std::max(max_abs_error, std::abs(measured - analytic));
    profile.push_back(measured);
  }
  Json out = Json::object();
  out["driving"] = driving;
  out["pressure_gradient"] = -G;
  // Relative to the analytic centre velocity: near the walls u -> 0 and a pointwise ratio would
  // measure nothing but round-off.
  out["max_relative_error"] = max_abs_error / std::abs(u_max_analytic);
  out["u_max_measured"] = u_max_measured;
  out["u_max_analytic"] = u_max_analytic;
  out["profile"] = std::move(profile);
  return out;
}

// 2D Taylor-Green vortex u = -U cos(kx x) sin(ky y), v = U sin(kx x) cos(ky y), kx = 2 pi / nx,
// ky = 2 pi / ny (an exact solution for a square box), carried by the deck's initial velocity U0
// (the mean flow, which a periodic box keeps): its amplitude decays as exp(-nu (kx^2 + ky^2) t)
// while it moves by U0 t.
Json taylor_green_decay(const Config& c, const Fields& f, long step) {
  if (const std::string why = observable_unsuited(c, "taylor_green_decay"); !why.empty()) return failure(why);
  if (step == 0) return failure("taylor_green_decay needs at least one time step");
  const int nx = c.cells[0], ny = c.cells[1];
  const double kx = 2 * pi / nx, ky = 2 * pi / ny;
  const double moved[2] = {c.initial_velocity[0] * double(step), c.initial_velocity[1] * double(step)};
  // Projection of the velocity field on the mode where the stream has carried it gives its
  // amplitude (on the mode at its start, a carried vortex gave cos(kx U0 t) of it, or NaN).
  double dot = 0, norm = 0;
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      const double X = kx * (x - moved[0]), Y = ky * (y - moved[1]);
      const double px = -std::cos(X) * std::sin(Y), py = std::sin(X) * std::cos(Y);
      dot += f.u(x, y, 0, 0) * px + f.u(x, y, 0, 1) * py;
      norm += px * px + py * py;
    }
  const double amplitude = dot / norm;
  const double k2 = kx * kx + ky * ky, t = double(step);
  const double nu_measured = -std::log(amplitude / c.taylor_green_u0) / (k2 * t);
  Json out = Json::object();
  out["amplitude"] = amplitude;
  out["amplitude_expected"] = c.taylor_green_u0 * std::exp(-c.viscosity * k2 * t);
  out["viscosity_measured"] = nu_measured;
  out["viscosity_expected"] = c.viscosity;
  out["relative_error"] = std::abs(nu_measured - c.viscosity) / c.viscosity;
  return out;
}

// Centre-line velocities of the 2D lid-driven square cavity from Ghia, Ghia & Shin (1982),
// "High-Re solutions for incompressible flow using the Navier-Stokes equations and a multigrid
// method", J. Comput. Phys. 48:387-411, Table I (u on the vertical centre line x = 0.5) and
// Table II (v on the horizontal centre line y = 0.5), lid at y = 1 moving in +x with speed 1.
// The wall end points (u = 0/1, v = 0) are boundary conditions and are left out.
constexpr std::array<double, 15> ghia_y = {0.0547, 0.0625, 0.0703, 0.1016, 0.1719,
                                           0.2813, 0.4531, 0.5000, 0.6172, 0.7344,
                                           0.8516, 0.9531, 0.9609, 0.9688, 0.9766};
constexpr std::array<double, 15> ghia_x = {0.0625, 0.0703, 0.0781, 0.0938, 0.1563,
                                           0.2266, 0.2344, 0.5000, 0.8047, 0.8594,
                                           0.9063, 0.9453, 0.9531, 0.9609, 0.9688};
constexpr GhiaTable ghia_tables[] = {
    {100, ghia_y,
     {-0.03717, -0.04192, -0.04775, -0.06434, -0.10150, -0.15662, -0.21090, -0.20581, -0.13641,
      0.00332, 0.23151, 0.68717, 0.73722, 0.78871, 0.84123},
     ghia_x,
     {0.09233, 0.10091, 0.10890, 0.12317, 0.16077, 0.17507, 0.17527, 0.05454, -0.24533, -0.22445,
      -0.16914, -0.10313, -0.08864, -0.07391, -0.05906}},
    {1000, ghia_y,
     {-0.18109, -0.20196, -0.22220, -0.29730, -0.38289, -0.27805, -0.10648, -0.06080, 0.05702,
      0.18719, 0.33304, 0.46604, 0.51117, 0.57492, 0.65928},
     ghia_x,
     {0.27485, 0.29012, 0.30353, 0.32627, 0.37095, 0.33075, 0.32235, 0.02526, -0.31966, -0.42665,
      -0.51550, -0.39188, -0.33714, -0.27669, -0.21388}},
};

// The cavity's own Reynolds number, lid speed x side / viscosity (physics.reynolds may be set on
// another length or speed than the cavity's).
double cavity_reynolds(const Config& c) { return c.faces[YMax].velocity[0] * c.cells[0] / c.viscosity; }

Json ghia_centerline(const Config& c, const Fields& f) {
  if (const std::string why = observable_unsuited(c, "ghia_centerline"); !why.empty()) return failure(why);
  const int nx = c.cells[0], ny = c.cells[1];
  const double U = c.faces[YMax].velocity[0];
  // Cell i has its centre at (i + 1/2) / n; the centre lines lie between cells xa, xb (ya, yb).
  std::vector<double> ys, us, xs, vs;
  const int xa = (nx - 1) / 2, xb = nx / 2, ya = (ny - 1) / 2, yb = ny / 2;
  for (int y = 0; y < ny; ++y) {
    ys.push_back((y + 0.5) / ny);
    us.push_back(0.5 * (f.u(xa, y, 0, 0) + f.u(xb, y, 0, 0)) / U);
  }
  for (int x = 0; x < nx; ++x) {
    xs.push_back((x + 0.5) / nx);
    vs.push_back(0.5 * (f.u(x, ya, 0, 1) + f.u(x, yb, 0, 1)) / U);
  }
  return ghia_centerline_profiles(c, ys, us, xs, vs);
}

}  // namespace

const GhiaTable* ghia_table(double re) {
  for (const GhiaTable& t : ghia_tables)
    if (std::abs(re / t.reynolds - 1) < 1e-6) return &t;
  return nullptr;
}

std::string observable_unsuited(const Config& c, const std::string& name) {
  if (c.amr.enabled && name != "mass" && name != "ghia_centerline")
    return name + " is not available for AMR runs (mass and ghia_centerline are)";
  if (name == "poiseuille_profile") {
    if (c.faces[YMin].type != FaceBC::Wall || c.faces[YMax].type != FaceBC::Wall)
      return "poiseuille_profile needs resting walls at y_min and y_max";
    if (c.dimensions() == 3 && c.faces[ZMin].type != FaceBC::Periodic)
      return "poiseuille_profile needs periodic z faces in 3D (a plane channel)";
    const auto open = [&](int face) {
      const FaceBC t = c.faces[face].type;
      return t == FaceBC::VelocityInlet || t == FaceBC::PressureOutlet || t == FaceBC::Outflow;
    };
    if (c.faces[XMin].type == FaceBC::Periodic ? c.force[0] == 0 : !(open(XMin) && open(XMax)))
      return "poiseuille_profile needs a force along x (periodic x) or open x faces (inlet, outlet)";
  }
  if (name == "permeability") {
    if (c.force[0] == 0 && c.force[1] == 0 && c.force[2] == 0) return "permeability needs a force (physics.force) driving the flow";
    for (int face = 0; face < num_faces; ++face)
      if (c.faces[face].type != FaceBC::Periodic)
        return "permeability needs periodic faces all round (a periodic sample driven by physics.force)";
  }
  if (name == "taylor_green_decay" && (c.initial != InitialCondition::TaylorGreen || c.cells[2] != 1))
    return "taylor_green_decay needs a 2D (nz = 1) Taylor-Green initial state";
  if (name == "taylor_green_decay" && (c.force[0] != 0 || c.force[1] != 0 || c.force[2] != 0))
    return "taylor_green_decay needs no body force (physics.force): a force speeds up the stream that carries the vortex";
  if (name == "taylor_green_decay" && c.cells[0] != c.cells[1])
    return "taylor_green_decay needs a square box (nx = ny): only there is the vortex an exact solution that decays "
           "as one mode";
  if (name == "ghia_centerline") {
    if (c.cells[2] != 1) return "ghia_centerline needs a 2D cavity (nz = 1)";
    const FaceCondition& lid = c.faces[YMax];
    if (lid.type != FaceBC::MovingWall || lid.velocity[0] <= 0 || lid.velocity[1] != 0)
      return "ghia_centerline needs a lid at y_max moving along +x (Ghia et al.'s cavity)";
    if (c.cells[0] != c.cells[1]) return "ghia_centerline needs a square cavity (nx = ny)";
    for (int face : {XMin, XMax, YMin})
      if (c.faces[face].type != FaceBC::Wall) return "ghia_centerline needs resting walls at x_min, x_max and y_min";
    if (!ghia_table(cavity_reynolds(c)))
      return "ghia_centerline: no Ghia et al. table for Re = " + std::to_string(cavity_reynolds(c)) + " (tables: 100, 1000)";
  }
  return "";
}

Json ghia_centerline_profiles(const Config& c, std::vector<double> ys, std::vector<double> us, std::vector<double> xs,
                              std::vector<double> vs) {
  if (const std::string why = observable_unsuited(c, "ghia_centerline"); !why.empty()) return failure(why);
  const GhiaTable* table = ghia_table(cavity_reynolds(c));
  // The walls' values close both profiles.
  ys.insert(ys.begin(), 0.0);
  us.insert(us.begin(), 0.0);
  ys.push_back(1.0);
  us.push_back(1.0);
  xs.insert(xs.begin(), 0.0);
  vs.insert(vs.begin(), 0.0);
  xs.push_back(1.0);
  vs.push_back(0.0);

  double max_u = 0, max_v = 0;
  Json u_dev = Json::array(), v_dev = Json::array();
  for (std::size_t i = 0; i < table->y.size(); ++i) {
    const double du = interpolate(ys, us, table->y[i]) - table->u[i];
    const double dv = interpolate(xs, vs, table->x[i]) - table->v[i];
    max_u = std::max(max_u, std::abs(du));
    max_v = std::max(max_v, std::abs(dv));
    u_dev.push_back(du);
    v_dev.push_back(dv);
  }
  Json out = Json::object();
  out["reynolds"] = table->reynolds;
  out["max_u_deviation"] = max_u;
  out["max_v_deviation"] = max_v;
  out["max_deviation"] = std::max(max_u, max_v);
  out["u_deviation"] = std::move(u_dev);
  out["v_deviation"] = std::move(v_dev);
  return out;
}

// Darcy's law for a force-driven flow through a periodic sample: the superficial velocity U (the
// fluid cells' velocities summed over every cell of the box) and the force density F give the
// permeability k = rho0 nu (U . F) / |F|^2 in cells^2 (k dx^2 in m^2 with [units]), with the
// porosity (fluid cells over cells). Darcy's law holds where the flow is slow (creeping flow).
Json permeability(const Config& c, const Fields& f) {
  if (const std::string why = observable_unsuited(c, "permeability"); !why.empty()) return failure(why);
  const long cells = long(c.cells[0]) * c.cells[1] * c.cells[2];
  long fluid = 0;
  std::array<double, 3> sum{0, 0, 0};
  for (long i = 0; i < cells; ++i)
    if (f.m.flags[std::size_t(i)] == flag::fluid) {
      ++fluid;
      for (int d = 0; d < 3; ++d) sum[d] += f.m.velocity[3 * std::size_t(i) + d];
    }
  double along = 0, force2 = 0;
  Json superficial = Json::array();
  for (int d = 0; d < 3; ++d) {
    superficial.push_back(sum[d] / double(cells));
    along += sum[d] / double(cells) * c.force[d];
    force2 += c.force[d] * c.force[d];
  }
  const double k = c.density * c.viscosity * along / force2;
  Json out = Json::object();
  out["porosity"] = double(fluid) / double(cells);
  out["superficial_velocity"] = std::move(superficial);
  out["permeability"] = k;
  if (c.units.enabled) out["permeability_m2"] = k * c.units.dx * c.units.dx;
  return out;
}

Json field_observable(const Config& config, const std::string& name, const HostMacroscopic& fields, long step) {
  const Fields f{fields, config.cells};
  if (name == "poiseuille_profile") return poiseuille_profile(config, f);
  if (name == "taylor_green_decay") return taylor_green_decay(config, f, step);
  if (name == "ghia_centerline") return ghia_centerline(config, f);
  if (name == "permeability") return permeability(config, f);
  return failure(name + " is not read from the fields");
}

Json compute_observables(const Config& config, const Simulation& sim) {
  Json out = Json::object();
  if (config.observables.empty()) return out;
  const HostMacroscopic fields = sim.macroscopic();
  for (const std::string& name : config.observables)
    out[name] = name == "mass" ? Json(sim.total_mass()) : field_observable(config, name, fields, sim.step());
  return out;
}

}  // namespace boreas
