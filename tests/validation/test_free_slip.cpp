// Free-slip faces (boundary type "free_slip" or "symmetry"; specular reflection at the halfway
// point, lbm/scheme/PullStep.hpp). A half domain closed by a symmetry face computes the whole
// domain mirrored across it: on the cells they share, velocity and density equal the whole
// domain's to round-off (the collision sums the mirrored directions in another order), with
// bodies cut by the plane, edges where the plane meets walls, inlets, outlets, periodic faces and
// another symmetry face; the body cut in half takes half the whole body's force. A reflection
// that read the cell's own mirrored population instead of its neighbour's (the local shortcut)
// fails the comparison wherever the flow varies along the face. A plug flow between free-slip
// walls stays a plug flow (no shear stress), and a box closed by them keeps its mass.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "tests/validation/Harness.hpp"

namespace boreas::testing {
namespace {

struct MirrorCase {
  const char* name;
  std::string whole, part;  // decks; `part` keeps the cells [0, n) of `whole` along its symmetry axes
  long steps;
  int symmetry_faces;  // 1: half, 2: quarter of the whole domain
  bool side_bodies = false;  // bodies 1 and 2 lie beside the plane (5 bodies in the whole domain)
};

// The decks differ in their cells, the symmetry faces and the mirror bodies the whole domain has.
MirrorCase cylinder_channel() {
  const std::string common = R"(
[lattice]
model = "D2Q9"
[physics]
tau = 0.6
[boundary.x_min]
type = "velocity_inlet"
velocity = [0.04, 0]
profile = "parabolic"
[boundary.x_max]
type = "pressure_outlet"
[[obstacle]]
shape = "cylinder"
center = [15.3, 14.5]
radius = 4.6
[[obstacle]]
shape = "cylinder"
center = [38.7, 6.2]
radius = 2.9
bounce_back = "interpolated"
[[obstacle]]
shape = "box"
lo = [26.2, 10.2]
hi = [29.8, 14.6]
)";
  return {"D2Q9 BGK channel (parabolic inlet), cylinder cut by the plane, interpolated cylinder and box beside it",
          "[domain]\ncells = [60, 30]\n" + common +
              "[[obstacle]]\nshape = \"cylinder\"\ncenter = [38.7, 22.8]\nradius = 2.9\nbounce_back = \"interpolated\"\n"
              "[[obstacle]]\nshape = \"box\"\nlo = [26.2, 14.4]\nhi = [29.8, 18.8]\n",
          "[domain]\ncells = [60, 15]\n[boundary.y_max]\ntype = \"symmetry\"\n" + common, 400, 1, true};
}

MirrorCase sphere_duct() {
  const std::string common = R"(
[lattice]
model = "D3Q19"
[collision]
model = "TRT"
[physics]
tau = 0.62
[boundary.x_min]
type = "velocity_inlet"
velocity = [0.05, 0, 0]
[boundary.x_max]
type = "pressure_outlet"
[[obstacle]]
shape = "sphere"
center = [10.4, 7.5, 5.5]
radius = 3.6
)";
  return {"D3Q19 TRT duct, sphere cut by two planes that meet",
          "[domain]\ncells = [32, 16, 12]\n" + common,
          "[domain]\ncells = [32, 8, 6]\n[boundary.y_max]\ntype = \"symmetry\"\n[boundary.z_max]\ntype = \"free_slip\"\n" +
              common,
          150, 2};
}

MirrorCase periodic_box_channel() {
  const std::string common = R"(
[lattice]
model = "D3Q27"
[collision]
model = "cumulant"
[physics]
tau = 0.58
force = [2e-5, 0, 0]
[boundary.x_min]
type = "periodic"
[boundary.x_max]
type = "periodic"
[boundary.y_min]
type = "periodic"
[boundary.y_max]
type = "periodic"
[[obstacle]]
shape = "box"
lo = [4.2, 3.1, 5.3]
hi = [9.7, 7.8, 17.7]
)";
  return {"D3Q27 cumulant, force-driven, periodic along the plane, box through it",
          "[domain]\ncells = [16, 12, 24]\n" + common,
          "[domain]\ncells = [16, 12, 12]\n[boundary.z_max]\ntype = \"symmetry\"\n" + common, 150, 1};
}

TEST(SymmetryPlane, HalfDomainEqualsTheMirroredWholeDomain) {
  for (const MirrorCase& mc : {cylinder_channel(), sphere_duct(), periodic_box_channel()}) {
    const std::string steps = "[simulation]\nsteps = " + std::to_string(mc.steps) + "\n[output]\nvtk = false\n";
    auto whole = Simulation::create(deck(steps + mc.whole));
    auto part = Simulation::create(deck(steps + mc.part));
    whole->advance(mc.steps);
    part->advance(mc.steps);
    const State w(*whole), p(*part);
    double speed = 0, worst_u = 0, worst_rho = 0, across = 0;
    const int vertical = p.n[2] > 1 ? 2 : 1;
    for (int z = 0; z < p.n[2]; ++z)
      for (int y = 0; y < p.n[1]; ++y)
        for (int x = 0; x < p.n[0]; ++x) {
          for (int d = 0; d < 3; ++d) {
            speed = std::max(speed, std::abs(w.u(x, y, z, d)));
            worst_u = std::max(worst_u, std::abs(p.u(x, y, z, d) - w.u(x, y, z, d)));
          }
          worst_rho = std::max(worst_rho, std::abs(p.rho(x, y, z) - w.rho(x, y, z)));
          // the flow varies along the plane next to it: a local reflection would show
          if ((vertical == 1 ? y : z) == p.n[vertical] - 1 && x + 1 < p.n[0])
            across = std::max(across, std::abs(w.u(x + 1, y, z, 0) - w.u(x, y, z, 0)));
        }
    std::printf("%s: max |u| %.3e, |du| %.2e, |drho| %.2e, |du_x/dx| at the plane %.2e\n", mc.name, speed, worst_u,
                worst_rho, across);
    EXPECT_LE(worst_u, 1e-12 * speed) << mc.name;
    EXPECT_LE(worst_rho, 1e-12) << mc.name;
    EXPECT_GT(across, 1e-3 * speed) << mc.name;
    // The body cut by the planes takes 1/2 (1/4) of the whole body's drag (the mirror bodies of
    // the whole domain are separate bodies: the first obstacle is the one cut).
    const double share = mc.symmetry_faces == 1 ? 0.5 : 0.25;
    const double drag_whole = whole->body_forces()[0][0], drag_part = part->body_forces()[0][0];
    std::printf("  drag: whole %.12e, part %.12e (share %.2f)\n", drag_whole, drag_part, share);
    EXPECT_NEAR(drag_part, share * drag_whole, 1e-11 * std::abs(drag_whole)) << mc.name;
    if (mc.side_bodies) {
      ASSERT_EQ(whole->body_forces().size(), 5u) << mc.name;
      // The interpolated cylinder beside the plane, and the box touching it from below (its mirror
      // is a separate body of the whole domain), take their whole-domain force, both components:
      // the box's links through the face push it along the reflected direction.
      for (int b : {1, 2})
        for (int d = 0; d < 2; ++d)
          EXPECT_NEAR(part->body_forces()[b][d], whole->body_forces()[b][d], 1e-11 * std::abs(whole->body_forces()[b][0]))
              << "body " << b << " axis " << d;
      std::printf("  box beside the plane: whole (%.10e, %.10e), part (%.10e, %.10e)\n", whole->body_forces()[2][0],
                  whole->body_forces()[2][1], part->body_forces()[2][0], part->body_forces()[2][1]);
    }
  }
}

// Free-slip faces on all four sides of a periodic duct: a uniform stream along it feels no
// shear, so it stays uniform to round-off (walls would slow it down near them), and the duct
// keeps its mass.
TEST(FreeSlip, PlugFlowStaysUniformAndMassIsConserved) {
  for (const char* lattice : {"D2Q9", "D3Q19", "D3Q27"}) {
    const bool two_d = std::string(lattice) == "D2Q9";
    const std::string text = std::string("[simulation]\nsteps = 300\n[lattice]\nmodel = \"") + lattice +
                             "\"\n[domain]\ncells = " + (two_d ? "[12, 10]" : "[12, 10, 8]") +
                             "\n[physics]\ntau = 0.7\n[initial]\nvelocity = " + (two_d ? "[0.06, 0]" : "[0.06, 0, 0]") +
                             "\n[boundary.x_min]\ntype = \"periodic\"\n[boundary.x_max]\ntype = \"periodic\"\n"
                             "[boundary.y_min]\ntype = \"free_slip\"\n[boundary.y_max]\ntype = \"free_slip\"\n" +
                             (two_d ? "" : "[boundary.z_min]\ntype = \"free_slip\"\n[boundary.z_max]\ntype = \"symmetry\"\n");
    auto sim = Simulation::create(deck(text));
    const double mass = sim->total_mass();
    sim->advance(300);
    const State s(*sim);
    double worst = 0, worst_rho = 0;
    for (std::size_t i = 0; i < s.m.density.size(); ++i) {
      worst = std::max({worst, std::abs(s.m.velocity[3 * i] - 0.06), std::abs(s.m.velocity[3 * i + 1]),
                        std::abs(s.m.velocity[3 * i + 2])});
      worst_rho = std::max(worst_rho, std::abs(s.m.density[i] - 1));
    }
    std::printf("%s: |u - u0| %.2e, |rho - 1| %.2e, mass change %.2e\n", lattice, worst, worst_rho,
                sim->total_mass() / mass - 1);
    EXPECT_LE(worst, 1e-14) << lattice;
    EXPECT_LE(worst_rho, 1e-14) << lattice;
    EXPECT_NEAR(sim->total_mass(), mass, 1e-13 * mass) << lattice;
  }
}

// A closed box: free-slip faces against a lid-driven flow (one moving wall); every population
// leaving through a free-slip face comes back once, so the mass stays the initial mass.
TEST(FreeSlip, ClosedBoxConservesMass) {
  auto sim = Simulation::create(deck(R"(
[simulation]
steps = 400
[lattice]
model = "D3Q27"
[domain]
cells = [14, 12, 10]
[physics]
tau = 0.6
[boundary.x_min]
type = "free_slip"
[boundary.x_max]
type = "symmetry"
[boundary.y_min]
type = "free_slip"
[boundary.y_max]
type = "moving_wall"
velocity = [0.05, 0, 0]
[boundary.z_min]
type = "free_slip"
[boundary.z_max]
type = "wall"
[[obstacle]]
shape = "sphere"
center = [0.2, 4.3, 4.6]
radius = 3.1
)"));
  const double mass = sim->total_mass();
  sim->advance(400);
  std::printf("mass change %.3e\n", sim->total_mass() / mass - 1);
  EXPECT_NEAR(sim->total_mass(), mass, 1e-13 * mass);
}

}  // namespace
}  // namespace boreas::testing
