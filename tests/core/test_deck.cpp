// Deck parsing and validation (core/Deck.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "TestPaths.hpp"
#include "core/Deck.hpp"

namespace fs = std::filesystem;
using namespace boreas;

namespace {

// A minimal valid deck header (lines 1-8); tests append sections starting at line 9.
const std::string head =
    "[simulation]\n"            // 1
    "steps = 10\n"              // 2
    "\n"                        // 3
    "[lattice]\n"               // 4
    "model = \"D3Q19\"\n"       // 5
    "\n"                        // 6
    "[domain]\n"                // 7
    "cells = [8, 8, 8]\n";      // 8

Config parse(const std::string& text, const std::vector<std::string>& ov = {},
             const std::string& base = "") {
  return parse_deck_string(text, "deck.toml", base, ov);
}

// The DeckError message for `text`, or "" if it parses.
std::string error_of(const std::string& text, const std::vector<std::string>& ov = {},
                     const std::string& base = "") {
  try {
    parse(text, ov, base);
  } catch (const DeckError& e) {
    return e.what();
  }
  return "";
}

std::size_t error_count(const std::string& text, const std::vector<std::string>& ov = {}) {
  try {
    parse(text, ov);
  } catch (const DeckError& e) {
    return e.diagnostics().size();
  }
  return 0;
}

#define EXPECT_CONTAINS(haystack, needle)                                   \
  do {                                                                      \
    const std::string h_ = (haystack);                                      \
    EXPECT_NE(h_.find(needle), std::string::npos)                           \
        << "expected to find: " << (needle) << "\nin:\n" << h_;             \
  } while (0)

// A scratch directory removed at scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("boreas_test_deck_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path write(const std::string& name, const std::string& content) const {
    std::ofstream(path / name, std::ios::binary) << content;
    return path / name;
  }
};

const fs::path decks_dir = BOREAS_TEST_DECKS;

}  // namespace

// ---------------------------------------------------------------- good decks

TEST(Deck, MinimalDeckGetsDefaults) {
  const Config c = parse(head + "[physics]\ntau = 0.6\n");
  EXPECT_EQ(c.name, "deck");  // stem of the source name
  EXPECT_EQ(c.deck_path, "deck.toml");
  EXPECT_EQ(c.steps, 10);
  EXPECT_EQ(scheme_name(c.kernel), "ab_pull");
  EXPECT_EQ(c.merge_form, MergeForm::Auto);
  EXPECT_EQ(c.lattice, LatticeKind::D3Q19);
  EXPECT_EQ(c.precision, Precision::Double);
  EXPECT_EQ(c.collision, CollisionKind::BGK);
  EXPECT_DOUBLE_EQ(c.trt_magic, 3.0 / 16.0);
  EXPECT_EQ(c.sgs, SgsModel::None);
  EXPECT_FALSE(c.forces.enabled);
  EXPECT_EQ(c.cells, (std::array<int, 3>{8, 8, 8}));
  EXPECT_DOUBLE_EQ(c.tau, 0.6);
  EXPECT_NEAR(c.viscosity, 0.1 / 3.0, 1e-15);
  EXPECT_DOUBLE_EQ(c.density, 1.0);
  EXPECT_EQ(c.force, (std::array<double, 3>{0, 0, 0}));
  EXPECT_FALSE(c.reynolds.has_value());
  EXPECT_DOUBLE_EQ(c.mach_limit, 0.3);
  EXPECT_EQ(c.initial, InitialCondition::Uniform);
  for (const auto& f : c.faces) EXPECT_EQ(f.type, FaceBC::Wall);
  EXPECT_TRUE(c.obstacles.empty());
  EXPECT_FALSE(c.voxels.has_value());
  EXPECT_EQ(c.output_dir, "output");
  EXPECT_EQ(c.output_every, 0);
  EXPECT_TRUE(c.write_vtk);
  EXPECT_EQ(c.progress_every, 0);
  EXPECT_TRUE(c.observables.empty());
}

TEST(Deck, ReynoldsConversion) {
  const Config c = parse(head +
                         "[physics]\nreynolds = 100\nlength = 100\nvelocity = 0.1\n"
                         "[boundary.y_max]\ntype = \"moving_wall\"\nvelocity = [0.1, 0, 0]\n");
  EXPECT_NEAR(c.viscosity, 0.1, 1e-14);
  EXPECT_NEAR(c.tau, 0.8, 1e-14);
  ASSERT_TRUE(c.reynolds && c.reference_length && c.reference_velocity);
  EXPECT_DOUBLE_EQ(*c.reynolds, 100);
  EXPECT_DOUBLE_EQ(*c.reference_length, 100);
  EXPECT_DOUBLE_EQ(*c.reference_velocity, 0.1);
  EXPECT_EQ(c.faces[YMax].type, FaceBC::MovingWall);
  EXPECT_EQ(c.faces[YMax].velocity, (std::array<double, 3>{0.1, 0, 0}));
}

TEST(Deck, ViscosityConversion) {
  const Config c = parse(head + "[physics]\nviscosity = 0.05\n");
  EXPECT_NEAR(c.tau, 0.65, 1e-15);
  EXPECT_NEAR(c.viscosity, 0.05, 1e-15);
}

// The parametrised cumulant's keys, and the warning of a deck whose tau leaves it nowhere to act.
TEST(Deck, ParametrisedCumulant) {
  const std::string d3q27 = "[simulation]\nsteps = 10\n[lattice]\nmodel = \"D3Q27\"\n[domain]\ncells = [8, 8, 8]\n"
                            "[collision]\nmodel = \"cumulant\"\ncumulant = \"parametrised\"\n";
  const Config c = parse(d3q27 + "[physics]\ntau = 0.53\n");
  EXPECT_TRUE(c.cumulant_parametrised);
  EXPECT_DOUBLE_EQ(c.cumulant_limiter, 1e-3);
  EXPECT_TRUE(c.warnings.empty());
  const Config limited = parse(d3q27 + "cumulant_limiter = 0.01\n[physics]\ntau = 0.53\n");
  EXPECT_DOUBLE_EQ(limited.cumulant_limiter, 0.01);
  const Config slow = parse(d3q27 + "[physics]\ntau = 0.8\n");
  ASSERT_EQ(slow.warnings.size(), 1u);
  EXPECT_CONTAINS(slow.warnings[0], "applies where 1/tau > 7/4 (tau < 4/7); tau = 0.8: every cell collides with the "
                                    "standard cumulant rates");
  EXPECT_FALSE(parse(head + "[physics]\ntau = 0.6\n").cumulant_parametrised);
  EXPECT_CONTAINS(error_of(d3q27 + "cumulant_limiter = -1\n"), "collision.cumulant_limiter: expected a number >= 0");
  EXPECT_CONTAINS(error_of("[simulation]\nsteps = 10\n[lattice]\nmodel = \"D3Q27\"\n[domain]\ncells = [8, 8, 8]\n"
                           "[collision]\nmodel = \"cumulant\"\ncumulant_limiter = 0.01\n"),
                  "cumulant_limiter is only used by collision.cumulant = \"parametrised\"");
}

// Outflow faces: the speed key's default, and the names in errors.
// Closed decks restore their initial mass where a rule does not conserve it: interpolated
// bounce-back and the AMR level coupling; an open face holds the density instead.
TEST(Deck, ClosedAmrDecksRestoreTheirMass) {
  const std::string d2 = "[simulation]\nsteps = 10\n[lattice]\nmodel = \"D2Q9\"\n[domain]\ncells = [16, 8]\n"
                         "[physics]\ntau = 0.6\n";
  const std::string open = "[boundary.x_min]\ntype = \"velocity_inlet\"\nvelocity = [0.01, 0]\n"
                           "[boundary.x_max]\ntype = \"outflow\"\n";
  EXPECT_FALSE(parse(d2).restores_mass());
  EXPECT_TRUE(parse(d2 + "[amr]\n").restores_mass());
  EXPECT_FALSE(parse(d2 + "[amr]\n" + open).restores_mass());
}

TEST(Deck, OutflowFaces) {
  const std::string d2 = "[simulation]\nsteps = 10\n[lattice]\nmodel = \"D2Q9\"\n[domain]\ncells = [16, 8]\n"
                         "[physics]\ntau = 0.6\n";
  const Config c = parse(d2 + "[boundary.x_min]\ntype = \"velocity_inlet\"\nvelocity = [0.03, 0.04]\n"
                              "[boundary.x_max]\ntype = \"outflow\"\n[boundary.y_max]\ntype = \"velocity_inlet\"\n"
                              "velocity = [0.01, 0]\n");
  EXPECT_EQ(c.faces[XMax].type, FaceBC::Outflow);
  EXPECT_EQ(c.faces[XMax].convective_velocity, 1.0);  // the default
  EXPECT_TRUE(c.needs_pull_kernel());
  EXPECT_FALSE(c.restores_mass());
  // Nothing holds the pressure level of inlets and outflow faces alone: warned of; a pressure
  // outlet beside them holds it.
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_CONTAINS(c.warnings[0], "outflow faces with a velocity_inlet and no pressure_outlet");
  EXPECT_TRUE(parse(d2 + "[boundary.x_min]\ntype = \"velocity_inlet\"\nvelocity = [0.03, 0]\n"
                         "[boundary.x_max]\ntype = \"pressure_outlet\"\n[boundary.y_max]\ntype = \"outflow\"\n")
                  .warnings.empty());
  EXPECT_CONTAINS(error_of(d2 + "[boundary.x_max]\ntype = \"wall\"\nconvective_velocity = 0.1\n"),
                  "convective_velocity is only used by outflow");
  EXPECT_CONTAINS(error_of(d2 + "[boundary.x_min]\ntype = \"periodic\"\n[boundary.x_max]\ntype = \"outflow\"\n"
                                "convective_velocity = 0.1\n"),
                  "boundary.x_max is outflow; set both to periodic or neither");
}

TEST(Deck, Full2DDeck) {
  const Config c = parse(
      "[simulation]\nname = \"pois\"\nsteps = 5\nkernel = \"merged2\"\nmerge_form = \"tiles\"\n"
      "[lattice]\nmodel = \"D2Q9\"\nprecision = \"float\"\n"
      "[domain]\ncells = [4, 32]\n"
      "[collision]\nmodel = \"TRT\"\nmagic = 0.25\nsgs = \"smagorinsky\"\nsmagorinsky_constant = 0.17\n"
      "[physics]\ntau = 0.9\ndensity = 2\nforce = [1e-6, 0]\nmach_limit = 0.2\n"
      "[initial]\nvelocity = [0.01, 0]\n"
      "[boundary.x_min]\ntype = \"periodic\"\n[boundary.x_max]\ntype = \"periodic\"\n"
      "[boundary.y_max]\ntype = \"pressure_outlet\"\n"
      "[[obstacle]]\nshape = \"cylinder\"\ncenter = [2, 16]\nradius = 1.5\n"
      "[forces]\nevery = 4\nreference_velocity = 0.02\nreference_length = 3\ndrag_axis = \"y\"\nlift_axis = \"x\"\n"
      "[output]\ndirectory = \"o\"\nevery = 3\nvtk = false\nprogress_every = 2\n"
      "[validation]\nobservables = [\"poiseuille_profile\", \"mass\"]\n");
  EXPECT_EQ(c.name, "pois");
  EXPECT_EQ(scheme_name(c.kernel), "merged2");
  EXPECT_EQ(c.merge_form, MergeForm::Tiles);
  EXPECT_EQ(c.lattice, LatticeKind::D2Q9);
  EXPECT_EQ(c.dimensions(), 2);
  EXPECT_EQ(c.precision, Precision::Float);
  EXPECT_EQ(c.collision, CollisionKind::TRT);
  EXPECT_DOUBLE_EQ(c.trt_magic, 0.25);
  EXPECT_EQ(c.sgs, SgsModel::Smagorinsky);
  EXPECT_DOUBLE_EQ(c.smagorinsky_constant, 0.17);
  EXPECT_TRUE(c.forces.enabled);
  EXPECT_EQ(c.forces.every, 4);
  EXPECT_DOUBLE_EQ(c.forces.velocity, 0.02);
  EXPECT_DOUBLE_EQ(c.forces.area, 3.0);  // 2D: the length, one cell deep
  EXPECT_EQ(c.forces.drag_axis, 1);
  EXPECT_EQ(c.forces.lift_axis, 0);
  EXPECT_EQ(c.cells, (std::array<int, 3>{4, 32, 1}));
  EXPECT_DOUBLE_EQ(c.density, 2);
  EXPECT_EQ(c.force, (std::array<double, 3>{1e-6, 0, 0}));
  EXPECT_DOUBLE_EQ(c.mach_limit, 0.2);
  EXPECT_EQ(c.initial_velocity, (std::array<double, 3>{0.01, 0, 0}));
  EXPECT_EQ(c.faces[XMin].type, FaceBC::Periodic);
  EXPECT_EQ(c.faces[XMax].type, FaceBC::Periodic);
  EXPECT_EQ(c.faces[YMin].type, FaceBC::Wall);
  EXPECT_EQ(c.faces[YMax].type, FaceBC::PressureOutlet);
  EXPECT_DOUBLE_EQ(c.faces[YMax].density, 2);  // defaults to physics.density
  EXPECT_EQ(c.faces[ZMin].type, FaceBC::Periodic);  // 2D: z is periodic by construction
  EXPECT_EQ(c.faces[ZMax].type, FaceBC::Periodic);
  ASSERT_EQ(c.obstacles.size(), 1u);
  EXPECT_EQ(c.obstacles[0].shape, Obstacle::Shape::Cylinder);
  EXPECT_EQ(c.obstacles[0].center, (std::array<double, 3>{2, 16, 0}));
  EXPECT_DOUBLE_EQ(c.obstacles[0].radius, 1.5);
  EXPECT_EQ(c.obstacles[0].axis, 2);
  EXPECT_EQ(c.output_dir, "o");
  EXPECT_EQ(c.output_every, 3);
  EXPECT_FALSE(c.write_vtk);
  EXPECT_EQ(c.progress_every, 2);
  EXPECT_EQ(c.observables, (std::vector<std::string>{"poiseuille_profile", "mass"}));
}

// initial.type = "channel" (lbm/field/Field.cpp; its field: tests/lbm/test_conservation.cpp):
// decks that cannot take it are refused.
TEST(Deck, ChannelStart) {
  const std::string channel = "[lattice]\nmodel = \"D3Q27\"\n[domain]\ncells = [16, 16, 12]\n"
                              "[physics]\ntau = 0.51\n[initial]\ntype = \"channel\"\nvelocity = [0.05, 0, 0]\n"
                              "amplitude = 0.01\n[boundary.x_min]\ntype = \"periodic\"\n[boundary.x_max]\n"
                              "type = \"periodic\"\n[boundary.z_min]\ntype = \"periodic\"\n[boundary.z_max]\n"
                              "type = \"periodic\"\n";
  const Config c = parse("[simulation]\nsteps = 10\n" + channel);
  EXPECT_EQ(c.initial, InitialCondition::Channel);
  EXPECT_DOUBLE_EQ(c.channel_perturbation, 0.01);
  const std::string walls_why = "initial.type = \"channel\" starts a stream along x between walls at y_min and y_max";
  EXPECT_CONTAINS(error_of("[simulation]\nsteps = 10\n" + channel + "[boundary.y_min]\ntype = \"free_slip\"\n"),
                  "deck.toml:22:8: error: boundary.y_min: " + walls_why + "; make it type = \"wall\"");
  EXPECT_CONTAINS(error_of("[simulation]\nsteps = 10\n" + channel, {"initial.velocity=[0, 0.05, 0]"}),
                  "initial.velocity: " + walls_why + ": give its bulk velocity as [U, 0, 0] with U > 0");
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[initial]\ntype = \"channel\"\nvelocity = [0.05, 0, 0]\n"),
                  "initial.amplitude: missing required key");
  EXPECT_CONTAINS(error_of("[simulation]\nsteps = 10\n" + channel, {"initial.amplitude=0.2"}),
                  "initial.amplitude: lattice speed");
}

TEST(Deck, TaylorGreenObstaclesAndFaces) {
  const Config c = parse(head +
                         "[physics]\ntau = 0.55\n"
                         "[initial]\ntype = \"taylor_green\"\namplitude = 0.05\n"
                         "[boundary.x_min]\ntype = \"velocity_inlet\"\nvelocity = [0.05, 0, 0]\n"
                         "[boundary.x_max]\ntype = \"pressure_outlet\"\ndensity = 0.99\n"
                         "[[obstacle]]\nshape = \"box\"\nlo = [1, 2, 3]\nhi = [4, 5, 6]\n"
                         "[[obstacle]]\nshape = \"sphere\"\ncenter = [4, 4, 4]\nradius = 2\n"
                         "[[obstacle]]\nshape = \"cylinder\"\ncenter = [4, 4, 4]\nradius = 1\n"
                         "axis = \"x\"\n");
  EXPECT_EQ(c.initial, InitialCondition::TaylorGreen);
  EXPECT_DOUBLE_EQ(c.taylor_green_u0, 0.05);
  EXPECT_EQ(c.faces[XMin].type, FaceBC::VelocityInlet);
  EXPECT_EQ(c.faces[XMin].velocity, (std::array<double, 3>{0.05, 0, 0}));
  EXPECT_EQ(c.faces[XMax].type, FaceBC::PressureOutlet);
  EXPECT_DOUBLE_EQ(c.faces[XMax].density, 0.99);
  ASSERT_EQ(c.obstacles.size(), 3u);
  EXPECT_EQ(c.obstacles[0].shape, Obstacle::Shape::Box);
  EXPECT_EQ(c.obstacles[0].lo, (std::array<double, 3>{1, 2, 3}));
  EXPECT_EQ(c.obstacles[0].hi, (std::array<double, 3>{4, 5, 6}));
  EXPECT_EQ(c.obstacles[1].shape, Obstacle::Shape::Sphere);
  EXPECT_DOUBLE_EQ(c.obstacles[1].radius, 2);
  EXPECT_EQ(c.obstacles[2].axis, 0);
}

TEST(Deck, VoxelGeometryResolvedAgainstDeckDirectory) {
  TempDir dir;
  fs::create_directories(dir.path / "geo");
  dir.write("geo/rock.raw", std::string(2 * 3 * 4, '\1'));
  const fs::path deck = dir.write("porous.toml", head +
                                                     "[physics]\ntau = 0.6\n"
                                                     "[geometry]\nvoxel_file = \"geo/rock.raw\"\n"
                                                     "dims = [2, 3, 4]\noffset = [1, 1, 1]\n");
  const Config c = parse_deck(deck.string());
  EXPECT_EQ(c.name, "porous");
  EXPECT_EQ(c.deck_path, deck.string());
  ASSERT_TRUE(c.voxels.has_value());
  EXPECT_EQ(fs::path(c.voxels->path), (dir.path / "geo" / "rock.raw").lexically_normal());
  EXPECT_EQ(c.voxels->dims, (std::array<int, 3>{2, 3, 4}));
  EXPECT_EQ(c.voxels->offset, (std::array<int, 3>{1, 1, 1}));
}

TEST(Deck, RepositoryGoodDecksParse) {
  ASSERT_TRUE(fs::is_directory(decks_dir / "good")) << decks_dir;
  int n = 0;
  for (const auto& e : fs::directory_iterator(decks_dir / "good")) {
    if (e.path().extension() != ".toml") continue;
    ++n;
    EXPECT_NO_THROW(parse_deck(e.path().string())) << e.path();
  }
  EXPECT_GE(n, 4);
}

// Every deck the project ships (inputs/, perf/) parses; the porous decks' voxel files are
// generated by a script, so files of the right size stand in for them.
TEST(Deck, ShippedDecksParse) {
  const fs::path root = decks_dir.parent_path().parent_path();
  TempDir dir;
  int n = 0;
  for (const fs::path folder : {root / "inputs", root / "perf", root / "perf" / "scaling"})
    for (const auto& e : fs::directory_iterator(folder)) {
      if (e.path().extension() != ".toml") continue;
      ++n;
      std::vector<std::string> ov;
      for (const auto& [stem, side] : {std::pair<std::string, int>{"porous", 48}, {"sandstone", 96}})
        if (e.path().stem() == stem) {
          const fs::path raw = dir.path / (stem + ".raw");
          std::ofstream(raw, std::ios::binary) << std::string(std::size_t(side) * side * side, '\0');
          ov.push_back("geometry.voxel_file=\"" + raw.string() + "\"");
        }
      EXPECT_NO_THROW(parse_deck(e.path().string(), ov)) << e.path();
    }
  EXPECT_GE(n, 13);
}

// ---------------------------------------------------------------- overrides

TEST(Deck, OverridesReplaceAndCreate) {
  const Config c = parse(head + "[physics]\ntau = 0.6\n",
                         {"physics.tau=0.7", "simulation.name = my run", "output.every=5",
                          "output.vtk=false", "domain.cells=[4, 5, 6]"});
  EXPECT_DOUBLE_EQ(c.tau, 0.7);
  EXPECT_EQ(c.name, "my run");  // not TOML: taken as a string
  EXPECT_EQ(c.output_every, 5);
  EXPECT_FALSE(c.write_vtk);
  EXPECT_EQ(c.cells, (std::array<int, 3>{4, 5, 6}));
}

TEST(Deck, BadOverrideValueIsReportedAgainstTheSetArgument) {
  const std::string deck = head + "[physics]\ntau = 0.6\n";
  EXPECT_CONTAINS(error_of(deck, {"physics.tau=0.4"}),
                  "--set physics.tau=0.4: error: physics.tau: expected a number > 0.5, got 0.4");
  EXPECT_CONTAINS(error_of(deck, {"physics.tau=fast"}),
                  "--set physics.tau=fast: error: physics.tau: expected a number > 0.5, got "
                  "string 'fast'");
  EXPECT_CONTAINS(error_of(deck, {"physics.force=[1, \"a\", 0]"}),
                  "--set physics.force=[1, \"a\", 0]: error: physics.force[1]: expected a number");
  EXPECT_CONTAINS(error_of(deck, {"physics.taus=0.7"}),
                  "--set physics.taus=0.7: error: [physics] unknown key 'taus'; did you mean "
                  "'tau'?");
  EXPECT_CONTAINS(error_of(deck, {"phisics.tau=0.7"}),
                  "--set phisics.tau=0.7: error: unknown table [phisics]; did you mean [physics]?");
  EXPECT_CONTAINS(error_of(deck, {"physics.tau"}),
                  "--set physics.tau: error: expected key.path=value");
  EXPECT_CONTAINS(error_of(deck, {"physics..tau=1"}), "--set physics..tau=1: error: invalid key path");
  EXPECT_CONTAINS(error_of(deck, {"physics.tau.x=1"}),
                  "--set physics.tau.x=1: error: cannot set 'physics.tau.x': 'physics.tau' is a "
                  "float, not a table");
  // Missing key in a table the override created: reported against the override.
  EXPECT_CONTAINS(error_of(deck, {"geometry.dims=[2,2,2]"}),
                  "--set geometry.dims=[2,2,2]: error: geometry.voxel_file: missing required key");
}

// ---------------------------------------------------------------- error classes

TEST(DeckErrors, UnknownKeyWithSuggestion) {
  const std::string e = error_of(head + "[physics]\ntau = 0.6\ndensty = 1.0\n");
  EXPECT_CONTAINS(e, "deck.toml:11:1: error: [physics] unknown key 'densty'; did you mean 'density'?");
  EXPECT_CONTAINS(e, "1 error in deck deck.toml");
  // No suggestion when nothing is close.
  const std::string e2 = error_of(head + "[physics]\ntau = 0.6\nxyzzyplugh = 1\n");
  EXPECT_CONTAINS(e2, "[physics] unknown key 'xyzzyplugh'");
  EXPECT_EQ(e2.find("did you mean"), std::string::npos) << e2;
}

TEST(DeckErrors, UnknownTable) {
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[outptu]\nevery = 1\n"),
                  "deck.toml:11:2: error: unknown table [outptu]; did you mean [output]?");
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[boundary.x_mni]\ntype = \"wall\"\n"),
                  "deck.toml:11:11: error: unknown table [boundary.x_mni]; did you mean "
                  "[boundary.x_min]?");
  EXPECT_CONTAINS(error_of("steps = 3\n" + head + "[physics]\ntau = 0.6\n"),
                  "deck.toml:1:1: error: unknown top-level key 'steps'");
}

// Messages name what the deck wrote: a stray key's table as the deck opens it, an obstacle by its
// place in the deck also after a refused one, a default the deck did not write, a value and the
// range it was held to.
TEST(DeckErrors, MessagesNameWhatTheDeckWrote) {
  const std::string p = "[physics]\ntau = 0.6\n";
  EXPECT_CONTAINS(error_of("distance = 3\n" + head + p),
                  "unknown top-level key 'distance'; keys belong in a table: did you mean 'distance' under [[amr.region]]?");
  EXPECT_CONTAINS(error_of("radius = 3\n" + head + p), "did you mean 'radius' under [[obstacle]]?");
  EXPECT_CONTAINS(error_of("tau = 0.6\n" + head), "did you mean 'tau' under [physics]?");
  // The first obstacle is refused (its shape); the second, out of the domain, is obstacle[1].
  const std::string e = error_of(head + p + "[[obstacle]]\nshape = \"spehre\"\n[[obstacle]]\nshape = \"sphere\"\n"
                                            "center = [12, 4, 4]\nradius = 1\n");
  EXPECT_CONTAINS(e, "deck.toml:14:9: error: obstacle[1]: the sphere holds no cell centre");
  EXPECT_EQ(e.find("obstacle[0]: the sphere"), std::string::npos) << e;
  EXPECT_CONTAINS(error_of(head + p + "[[obstacle]]\nshape = \"spehre\"\n[[obstacle]]\nshape = \"cylinder\"\n"
                                      "center = [4, 4, 4]\nradius = 2\naxis = \"z\"\nangular_velocity = 1\n"),
                  "deck.toml:18:20: error: obstacle[1].angular_velocity (the surface speed |omega| r)");
  EXPECT_CONTAINS(error_of(head + p, {"simulation.name=a\\b"}),
                  "simulation.name: expected a non-empty string without '/' or '\\', got 'a\\b'");
  // A region's level against a max_level that was refused: no default quoted as the deck's.
  const std::string region = error_of(head + p + "[amr]\nmax_level = 9\n[[amr.region]]\nlevel = 10\nlo = [0, 0, 0]\nhi = [8, 8, 8]\n");
  EXPECT_CONTAINS(region, "amr.max_level: expected an integer from 0 to 8");
  EXPECT_CONTAINS(region, "amr.region[0].level: expected an integer from 1 to amr.max_level,");
  EXPECT_EQ(region.find("amr.max_level = "), std::string::npos) << region;
}

TEST(DeckErrors, WrongType) {
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = \"0.6\"\n"),
                  "deck.toml:10:7: error: physics.tau: expected a number > 0.5, got string '0.6'");
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[output]\nevery = 1.5\n"),
                  "deck.toml:12:9: error: output.every: expected an integer >= 0");
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[output]\nvtk = 1\n"),
                  "deck.toml:12:7: error: output.vtk: expected a boolean (true or false), got 1");
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[collision]\nmodel = \"bgk\"\n"),
                  "deck.toml:12:9: error: collision.model: expected one of BGK, TRT, cumulant, got string "
                  "'bgk'; did you mean 'BGK'?");
  const std::string e = error_of("physics = 3\n" + head);
  EXPECT_CONTAINS(e, "deck.toml:1:11: error: physics: expected a table, got 3");
  EXPECT_CONTAINS(e, "\n1 error in deck");  // no follow-up "missing" errors
  // Integers are fine where a float is expected.
  EXPECT_NO_THROW(parse(head + "[physics]\nviscosity = 1\n"));
}

TEST(DeckErrors, MissingRequiredValue) {
  const std::string no_steps = "[simulation]\nname = \"x\"\n" + head.substr(head.find("\n\n") + 2) +
                               "[physics]\ntau = 0.6\n";
  EXPECT_CONTAINS(error_of(no_steps),
                  "deck.toml:1:1: error: simulation.steps: missing required key (expected an "
                  "integer >= 1)");
  // The whole table is missing: point at the file start.
  EXPECT_CONTAINS(error_of("[lattice]\nmodel = \"D2Q9\"\n[domain]\ncells = [2, 2]\n"
                           "[physics]\ntau = 0.6\n"),
                  "deck.toml:1:1: error: simulation.steps: missing required key");
  EXPECT_CONTAINS(error_of("\n\n[simulation]\nsteps = 1\n[domain]\ncells = [2, 2, 2]\n"
                           "[physics]\ntau = 0.6\n"),
                  "deck.toml:1:1: error: lattice.model: missing required key");
  EXPECT_CONTAINS(error_of(head + "[physics]\ndensity = 1.0\n"),
                  "deck.toml:9:1: error: physics: no viscosity given");
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[boundary.x_min]\ntype = \"moving_wall\"\n"),
                  "deck.toml:11:1: error: boundary.x_min.velocity: missing required key");
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[initial]\ntype = \"taylor_green\"\n"),
                  "deck.toml:11:1: error: initial.amplitude: missing required key");
  EXPECT_CONTAINS(error_of(head + "[physics]\nreynolds = 10\nlength = 5\n"),
                  "deck.toml:10:12: error: physics.reynolds: physics.reynolds, physics.length and "
                  "physics.velocity must be given together; missing physics.velocity");
}

TEST(DeckErrors, TauTooSmallDirect) {
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.5\n"),
                  "deck.toml:10:7: error: physics.tau: expected a number > 0.5, got 0.5");
}

TEST(DeckErrors, TauTooSmallDerived) {
  // nu = 0.01 * 10 / 1e18 = 1e-19: tau = 3 nu + 1/2 rounds to 0.5.
  const std::string e =
      error_of(head + "[physics]\nreynolds = 1e18\nlength = 10\nvelocity = 0.01\n");
  EXPECT_CONTAINS(e, "deck.toml:10:12: error: physics.reynolds: derived tau = 0.5 must be > 0.5");
  EXPECT_CONTAINS(e, "velocity*length/reynolds = 0.01*10/1e+18");
  EXPECT_CONTAINS(e, "hint: raise the resolution");
  EXPECT_CONTAINS(error_of(head + "[physics]\nviscosity = 1e-19\n"),
                  "deck.toml:10:13: error: physics.viscosity: derived tau = 3*viscosity + 0.5 = 0.5");
  EXPECT_CONTAINS(error_of(head + "[physics]\nviscosity = 0\n"),
                  "deck.toml:10:13: error: physics.viscosity: expected a number > 0, got 0");
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\nviscosity = 0.1\n"),
                  "deck.toml:11:13: error: physics.viscosity: conflicts with physics.tau");
}

// A moving wall slides in its plane: a normal component would carry mass through a closed face.
TEST(DeckErrors, MovingWallThroughItsFace) {
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[boundary.y_max]\ntype = \"moving_wall\"\n"
                                  "velocity = [0.05, -0.01, 0.02]\n"),
                  "deck.toml:13:12: error: boundary.y_max.velocity: a moving_wall slides in its plane: u_y = -0.01 "
                  "crosses the face; expected 0 (flow through a face: velocity_inlet)");
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[boundary.x_min]\ntype = \"moving_wall\"\n"
                                  "velocity = [0.01, 0.05, 0]\n"),
                  "boundary.x_min.velocity: a moving_wall slides in its plane: u_x = 0.01 crosses the face");
  EXPECT_NO_THROW(parse(head + "[physics]\ntau = 0.6\n[boundary.z_max]\ntype = \"moving_wall\"\n"
                               "velocity = [0.05, 0.02, 0]\n"));
}

TEST(DeckErrors, MachOverLimit) {
  const std::string e = error_of(head +
                                 "[physics]\ntau = 0.6\n"
                                 "[boundary.y_max]\ntype = \"moving_wall\"\n"
                                 "velocity = [0.3, 0.0, 0.0]\n");
  EXPECT_CONTAINS(e, "deck.toml:13:12: error: boundary.y_max.velocity: lattice speed 0.3 gives "
                     "Mach 0.519615");
  EXPECT_CONTAINS(e, "> physics.mach_limit = 0.3");
  // An integer past 2^53 (no exact double) is a number too: it ran at rest, unchecked.
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n", {"initial.velocity=[9007199254740993, 0, 0]"}),
                  "initial.velocity: lattice speed 9007199254740992 gives Mach");
  // The reference velocity and the Taylor-Green amplitude are checked too.
  EXPECT_CONTAINS(error_of(head + "[physics]\nreynolds = 100\nlength = 100\nvelocity = 0.2\n"),
                  "deck.toml:12:12: error: physics.velocity: lattice speed 0.2 gives Mach");
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[initial]\ntype = \"taylor_green\"\n"
                                  "amplitude = 0.2\n"),
                  "deck.toml:13:13: error: initial.amplitude: lattice speed 0.2");
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[initial]\nvelocity = [0.2, 0.2, 0.2]\n"),
                  "initial.velocity: lattice speed 0.34641");
  // ...and a raised limit accepts them.
  EXPECT_NO_THROW(parse(head + "[physics]\ntau = 0.6\nmach_limit = 0.6\n"
                               "[initial]\nvelocity = [0.3, 0, 0]\n"));
}

TEST(DeckErrors, VoxelFileMissing) {
  TempDir dir;
  const std::string e = error_of(
      head + "[physics]\ntau = 0.6\n[geometry]\nvoxel_file = \"nope.raw\"\ndims = [2, 2, 2]\n", {},
      dir.path.string());
  EXPECT_CONTAINS(e, "deck.toml:12:14: error: geometry.voxel_file: cannot read '" +
                         (dir.path / "nope.raw").string() + "'");
}

TEST(DeckErrors, VoxelFileWrongSize) {
  TempDir dir;
  dir.write("v.raw", std::string(7, '\0'));
  const std::string e = error_of(
      head + "[physics]\ntau = 0.6\n[geometry]\nvoxel_file = \"v.raw\"\ndims = [2, 2, 2]\n", {},
      dir.path.string());
  EXPECT_CONTAINS(e, "deck.toml:12:14: error: geometry.voxel_file: wrong size: 7 bytes, expected "
                     "8 = 2*2*2");
  // Right size but does not fit in the 8^3 domain.
  dir.write("w.raw", std::string(8 * 8 * 8, '\0'));
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[geometry]\nvoxel_file = \"w.raw\"\n"
                                  "dims = [8, 8, 8]\noffset = [0, 1, 0]\n",
                           {}, dir.path.string()),
                  "deck.toml:14:10: error: geometry.offset: the voxels do not fit in the domain along y");
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[geometry]\nvoxel_file = \"w.raw\"\ndims = [8, 8, 8]\n", {"geometry.offset=[0, 1, 0]"},
                           dir.path.string()),
                  "--set geometry.offset=[0, 1, 0]: error: geometry.offset: the voxels do not fit");
  dir.write("x.raw", std::string(8 * 9 * 8, '\0'));
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[geometry]\nvoxel_file = \"x.raw\"\ndims = [8, 9, 8]\n"
                                  "offset = [0, 0, 0]\n",
                           {}, dir.path.string()),
                  "deck.toml:13:8: error: geometry.dims: the voxels do not fit in the domain along y");
  // An AMR domain's extent is reported at domain.cells, wherever it was set.
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[amr]\nleaf_size = 4\n", {"domain.cells=[12, 8, 6]"}),
                  "--set domain.cells=[12, 8, 6]: error: domain.cells[2] = 6: with [amr] every extent must be a multiple of");
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[amr]\nleaf_size = 16\n"),
                  "deck.toml:8:9: error: domain.cells[0] = 8: with [amr] every extent must be a multiple of");
}

TEST(DeckErrors, UnpairedPeriodic) {
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[boundary.y_max]\ntype = \"periodic\"\n"
                                  "[boundary.y_min]\ntype = \"wall\"\n"),
                  "deck.toml:12:8: error: boundary.y_max.type: periodic faces must come in pairs, "
                  "but boundary.y_min is wall;");
}

TEST(DeckErrors, TomlSyntaxError) {
  const std::string e = error_of(head + "[physics]\ntau = = 0.6\n");
  EXPECT_CONTAINS(e, "deck.toml:10:7: error: TOML syntax error");
  EXPECT_CONTAINS(e, "1 error in deck deck.toml");
}

TEST(DeckErrors, AllErrorsCollected) {
  const std::string deck =
      "[simulation]\nsteps = 0\n"                 // 1-2
      "[lattice]\nmodel = \"D3Q19\"\n"            // 3-4
      "[domain]\ncells = [8, 8]\n"                // 5-6
      "[physics]\ntau = 0.5\n";                   // 7-8
  EXPECT_EQ(error_count(deck), 3u);
  const std::string e = error_of(deck);
  EXPECT_CONTAINS(e, "deck.toml:2:9: error: simulation.steps");
  EXPECT_CONTAINS(e, "deck.toml:6:9: error: domain.cells: expected an array of 3 integers >= 1, "
                     "got 2 entries");
  EXPECT_CONTAINS(e, "deck.toml:8:7: error: physics.tau");
  EXPECT_CONTAINS(e, "\n3 errors in deck deck.toml");
  // Diagnostics come in file order, --set ones after.
  EXPECT_LT(e.find("2:9"), e.find("6:9"));
  EXPECT_LT(e.find("6:9"), e.find("8:7"));
  const std::string e2 = error_of(deck, {"output.every=-1"});
  EXPECT_LT(e2.find("8:7"), e2.find("--set output.every=-1"));
  EXPECT_EQ(error_count(deck, {"output.every=-1"}), 4u);
}

TEST(DeckErrors, MiscConstraints) {
  const std::string p = "[physics]\ntau = 0.6\n";
  EXPECT_CONTAINS(error_of(head + p + "[collision]\nmagic = 0.2\n"),
                  "collision.magic: magic is only used by TRT");
  EXPECT_CONTAINS(error_of(head + p + "[simulation.x]\n"), "unknown table [simulation.x]");
  EXPECT_CONTAINS(error_of(head + p + "[boundary.x_min]\ntype = \"wall\"\nvelocity = [0.1, 0, 0]\n"),
                  "boundary.x_min.velocity: velocity is only used by moving_wall and velocity_inlet");
  EXPECT_CONTAINS(error_of(head + p + "[[obstacle]]\nshape = \"box\"\nlo = [2, 2, 2]\nhi = [1, 3, 3]\n"),
                  "obstacle[0].hi: expected lo <= hi in every component");
  EXPECT_CONTAINS(error_of(head + p + "[[obstacle]]\nshape = \"cone\"\n"),
                  "obstacle[0].shape: expected one of box, sphere, cylinder");
  EXPECT_CONTAINS(error_of(head + p + "[validation]\nobservables = [\"ghia\"]\n"),
                  "validation.observables[0]: expected one of poiseuille_profile");
  EXPECT_CONTAINS(error_of(head + p + "[simulation]\n"), "deck.toml:11:1: error: TOML syntax error");
  EXPECT_CONTAINS(error_of(head + p + "[initial]\ntype = \"taylor_green\"\namplitude = 0.125\n"
                                      "velocity = [0.25, 0, 0]\n"),
                  "initial.amplitude: lattice speed 0.375 gives Mach");  // the vortex's stream counts
  EXPECT_CONTAINS(error_of(head + p + "[collision]\nmodel = \"cumulant\"\n"),
                  "collision.model: the cumulant collision is defined on D3Q27");
  EXPECT_CONTAINS(error_of(head + p + "[collision]\nmodel = \"cumulant\"\nmagic = 0.2\n"),
                  "magic is only used by TRT (collision.model is cumulant)");
  EXPECT_CONTAINS(error_of(head + p + "[forces]\nreference_velocity = 0.1\nreference_length = 2\n"),
                  "[forces] needs a body to act on");
  EXPECT_CONTAINS(error_of(head + p + "[[obstacle]]\nshape = \"sphere\"\ncenter = [4, 4, 4]\nradius = 1\n"
                                      "[forces]\nreference_length = 2\nreference_area = 3\n"),
                  "forces.reference_velocity: expected a number > 0 (lattice units); [physics] gives no velocity");
  EXPECT_CONTAINS(error_of(head + p + "[[obstacle]]\nshape = \"sphere\"\ncenter = [4, 4, 4]\nradius = 1\n"
                                      "[forces]\nreference_velocity = 0.1\nreference_length = 2\nreference_area = 3\n"
                                      "drag_axis = \"y\"\n"),
                  "forces.lift_axis (by default \"y\"): expected an axis other than drag_axis (y)");
  // A refused axis is not compared with the other (the default "y" was not the deck's).
  const std::string refused = error_of(head + p + "[[obstacle]]\nshape = \"sphere\"\ncenter = [4, 4, 4]\nradius = 1\n"
                                                  "[forces]\nreference_velocity = 0.1\nreference_length = 2\nreference_area = 3\n"
                                                  "drag_axis = \"y\"\nlift_axis = \"w\"\n");
  EXPECT_CONTAINS(refused, "forces.lift_axis: expected one of x, y, z");
  EXPECT_EQ(refused.find("other than drag_axis"), std::string::npos) << refused;
  EXPECT_CONTAINS(error_of(head + p + "[[obstacle]]\nshape = \"sphere\"\ncenter = [4, 4, 4]\nradius = 1\n"
                                      "[forces]\nreference_velocity = 0.1\nreference_length = 2\nreference_area = 3\n"
                                      "every = 0\n"),
                  "forces.every: expected an integer >= 1");
  EXPECT_CONTAINS(error_of(head + p + "[[probe]]\npoint = [4, 9, 1]\n"),
                  "probe[0].point: expected a point inside the domain (-0.5 to 7.5 along y: cell centres 0..7 and the "
                  "faces), got 9 along y");
  EXPECT_CONTAINS(error_of(head + p + "[[probe]]\nname = \"a b\"\npoint = [4, 4, 1]\n"),
                  "probe[0].name: expected a name of letters, digits and _");
  EXPECT_CONTAINS(error_of(head + p + "[[probe]]\nname = \"x\"\n"), "probe[0].point: missing required key");
  EXPECT_CONTAINS(error_of(head + p + "[[probe]]\nfrom = [0, 0, 0]\nto = [7, 7, 7]\npoints = 1\n"),
                  "probe[0].points: expected an integer from 2 to 100000");
  EXPECT_CONTAINS(error_of(head + p + "[collision]\nsgs = \"wale\"\n"),
                  "collision.sgs: expected one of none, smagorinsky");
  EXPECT_CONTAINS(error_of(head + p + "[collision]\nsgs = \"smagorinsky\"\nsmagorinsky_constant = -0.1\n"),
                  "collision.smagorinsky_constant: expected a number > 0");
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = nan\n"), "physics.tau: expected a number > 0.5, got nan");
  EXPECT_CONTAINS(error_of(head + p + "[output]\ndirectory = \"\"\n"), "output.directory");
  EXPECT_CONTAINS(error_of(head + p + "[simulation.kernel]\n"),
                  "simulation.kernel: expected one of ab_pull, ab_push");
  EXPECT_CONTAINS(error_of(head + p + "[simulation]\nkernel = \"ab_push\"\n"), "TOML syntax error");
  const std::string two_d = "[simulation]\nsteps = 1\n[lattice]\nmodel = \"D2Q9\"\n[domain]\n";
  EXPECT_CONTAINS(error_of(two_d + "cells = [8, 8, 8]\n" + p), "domain.cells[2]: must be 1");
  EXPECT_CONTAINS(error_of(two_d + "cells = [8, 8]\n" + p + "[boundary.z_min]\ntype = \"wall\"\n"),
                  "boundary.z_min: not allowed for the 2D lattice D2Q9");
  EXPECT_CONTAINS(error_of(two_d + "cells = [8, 8]\n" + p + "force = [0, 0, 1e-5]\n"),
                  "physics.force[2]: must be 0 for the 2D lattice D2Q9");
  EXPECT_CONTAINS(error_of(two_d + "cells = [8, 8]\n" + p +
                           "[[obstacle]]\nshape = \"cylinder\"\ncenter = [1, 1]\nradius = 1\naxis = \"x\"\n"),
                  "obstacle[0].axis: must be \"z\"");
}

TEST(DeckErrors, MissingDeckFile) {
  try {
    parse_deck("/nonexistent/dir/deck.toml");
    FAIL() << "expected DeckError";
  } catch (const DeckError& e) {
    EXPECT_CONTAINS(std::string(e.what()), "/nonexistent/dir/deck.toml: error: cannot read deck");
  }
}

// Every deck in tests/decks/bad is rejected with the message its first line announces.
TEST(DeckErrors, RepositoryBadDecks) {
  ASSERT_TRUE(fs::is_directory(decks_dir / "bad")) << decks_dir;
  int n = 0;
  for (const auto& entry : fs::directory_iterator(decks_dir / "bad")) {
    if (entry.path().extension() != ".toml") continue;
    ++n;
    std::ifstream in(entry.path());
    std::string first;
    std::getline(in, first);
    const std::string tag = "# expect: ";
    ASSERT_EQ(first.rfind(tag, 0), 0u) << entry.path();
    const std::string expected = first.substr(tag.size());
    try {
      parse_deck(entry.path().string());
      ADD_FAILURE() << entry.path() << " parsed without error";
    } catch (const DeckError& e) {
      EXPECT_CONTAINS(std::string(e.what()), expected);
    }
  }
  EXPECT_GE(n, 10);
}

// Keys that only some kernels, layouts or ghost widths use are refused where they do not apply,
// and ghost widths a kernel cannot exchange are refused with the deck, not at run time.
TEST(DeckErrors, KernelKeysThatDoNotApply) {
  const std::string deck = head + "[physics]\ntau = 0.6\n";
  EXPECT_CONTAINS(error_of(deck, {"simulation.tile=8"}),
                  "--set simulation.tile=8: error: simulation.tile: only used by swap_prism, merged2/merged3, "
                  "merged_aa2/merged_aa3 and auto (simulation.kernel is \"ab_pull\")");
  EXPECT_EQ(error_of(deck, {"simulation.tile=8", "simulation.kernel=\"swap_prism\""}), "");
  EXPECT_EQ(error_of(deck, {"simulation.tile=8", "simulation.kernel=\"merged_aa2\""}), "");
  EXPECT_EQ(error_of(deck, {"simulation.tile=8", "simulation.kernel=\"auto\""}), "");
  EXPECT_CONTAINS(error_of(deck, {"simulation.merge_form=\"tiles\"", "simulation.kernel=\"aa\""}),
                  "simulation.merge_form: only used by merged2/merged3 and auto (simulation.kernel is \"aa\")");
  EXPECT_EQ(error_of(deck, {"simulation.merge_form=\"tiles\"", "simulation.kernel=\"merged3\""}), "");
  EXPECT_CONTAINS(error_of(deck, {"simulation.bundle=3"}),
                  "simulation.bundle: only used with layout = \"aosoa\"");
  EXPECT_EQ(error_of(deck, {"simulation.bundle=3", "simulation.layout=\"aosoa\""}), "");
  EXPECT_EQ(error_of(deck, {"simulation.bundle=3", "simulation.kernel=\"auto\""}), "");
  // auto with a named SoA layout tries no AoSoA candidate.
  EXPECT_CONTAINS(error_of(deck, {"simulation.bundle=3", "simulation.kernel=\"auto\"", "simulation.layout=\"soa\""}),
                  "simulation.bundle: only used with layout = \"aosoa\"");
  EXPECT_CONTAINS(error_of(deck, {"parallel.max_ghost_width=3"}),
                  "parallel.max_ghost_width: only used with ghost_width = \"auto\"");
  EXPECT_EQ(error_of(deck, {"parallel.max_ghost_width=3", "parallel.ghost_width=\"auto\""}), "");
  // A misspelt kernel is one error, not one per kernel key.
  EXPECT_EQ(error_count(deck, {"simulation.kernel=\"swapp\"", "simulation.tile=4"}), 1u)
      << error_of(deck, {"simulation.kernel=\"swapp\"", "simulation.tile=4"});
}

TEST(DeckErrors, GhostWidthsAKernelCannotExchange) {
  const std::string deck = head + "[physics]\ntau = 0.6\n[parallel]\nghost_width = 2\n";  // line 12
  for (const char* kernel : {"aa", "swap", "swap_prism", "ab_push", "merged_aa2"})
    EXPECT_CONTAINS(error_of(deck, {std::string("simulation.kernel=\"") + kernel + "\""}),
                    std::string("deck.toml:12:15: error: parallel.ghost_width: simulation.kernel = \"") + kernel +
                        "\" exchanges one ghost layer per step");
  EXPECT_CONTAINS(error_of(deck, {"simulation.kernel=\"merged3\""}),
                  "deck.toml:12:15: error: parallel.ghost_width = 2 with simulation.kernel = \"merged3\": merged<k> "
                  "exchanges k = 3 ghost layers once per sweep");
  for (const char* kernel : {"ab_pull", "merged2", "auto"})
    EXPECT_EQ(error_of(deck, {std::string("simulation.kernel=\"") + kernel + "\""}), "") << kernel;
}

// Overlap strategies split a step into parts; schemes that sweep whole blocks cannot take them.
TEST(DeckErrors, OverlapStrategiesAKernelCannotTake) {
  const std::string deck = head + "[physics]\ntau = 0.6\n[parallel]\noverlap = \"streams\"\n";  // line 12
  for (const std::string& kernel : known_kernels()) {
    const std::string error = error_of(deck, {"simulation.kernel=\"" + kernel + "\""});
    if (parse_scheme(kernel)->steps_in_parts())
      EXPECT_EQ(error, "") << kernel;
    else
      EXPECT_CONTAINS(error, "deck.toml:12:11: error: parallel.overlap: simulation.kernel = \"" + kernel +
                                 "\" sweeps whole blocks");
  }
  for (const char* kernel : {"ab_pull", "ab_push", "aa", "merged3", "swap", "auto"})
    EXPECT_EQ(error_of(head + "[physics]\ntau = 0.6\n[parallel]\noverlap = \"none\"\n",
                       {std::string("simulation.kernel=\"") + kernel + "\""}),
              "")
        << kernel;
  EXPECT_EQ(error_of(deck, {"simulation.kernel=\"auto\""}), "");
}

// Averages whose first sample would come after the last step: warned (the run wrote none, silently).
TEST(Deck, StatisticsThatWouldTakeNoSampleAreWarnedOf) {
  const Config none = parse(head + "[physics]\ntau = 0.6\n[statistics]\nevery = 11\n");
  ASSERT_EQ(none.warnings.size(), 1u);
  EXPECT_CONTAINS(none.warnings[0], "statistics.every = 11 exceeds simulation.steps = 10: the first sample would be at step 11");
  EXPECT_TRUE(parse(head + "[physics]\ntau = 0.6\n[statistics]\nevery = 10\n").warnings.empty());
  EXPECT_TRUE(parse(head + "[physics]\ntau = 0.6\n[statistics]\nevery = 11\nstart = 9\n").warnings.empty());
  // Without VTK outputs the averages are in no file a user reads.
  const Config unwritten = parse(head + "[physics]\ntau = 0.6\n[statistics]\nevery = 2\n[output]\nvtk = false\n");
  ASSERT_EQ(unwritten.warnings.size(), 1u);
  EXPECT_CONTAINS(unwritten.warnings[0], "[statistics] with output.vtk = false: the averages go into VTK outputs only");
}

TEST(DeckErrors, ProcessGridLargerThanTheDomain) {
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[parallel]\ndims = [1, 9, 1]\n"),
                  "deck.toml:12:8: error: parallel.dims[1] = 9 exceeds the 8 cells along y");
}

TEST(DeckErrors, DomainBeyondTheIndexRange) {
  EXPECT_CONTAINS(error_of("[simulation]\nsteps = 1\n[lattice]\nmodel = \"D3Q19\"\n[domain]\ncells = [8, 1073741825, 8]\n"
                           "[physics]\ntau = 0.6\n"),
                  "deck.toml:6:9: error: domain.cells: 1073741825 cells along y exceed the largest extent Boreas "
                  "indexes, 1073741824 (2^30)");
  // Past 32 bits the entry itself is refused, saying so (it read "expected an integer >= 1").
  EXPECT_CONTAINS(error_of("[simulation]\nsteps = 1\n[lattice]\nmodel = \"D3Q19\"\n[domain]\ncells = [8, 2147483648, 8]\n"
                           "[physics]\ntau = 0.6\n"),
                  "deck.toml:6:13: error: domain.cells[1]: expected an integer >= 1 within 32 bits (at most 2^31 - 1), "
                  "got 2147483648");
  // Each axis within range, the product past 2^63 (wrapped negative, it passed the memory checks
  // and the set-up hung).
  EXPECT_CONTAINS(error_of("[simulation]\nsteps = 1\n[lattice]\nmodel = \"D3Q19\"\n[domain]\ncells = [2097152, 2097152, 2097152]\n"
                           "[physics]\ntau = 0.6\n"),
                  "deck.toml:6:9: error: domain.cells: 2097152 x 2097152 x 2097152 = 9223372036854775808 cells exceed the most "
                  "Boreas counts, 2^50");
  // Cut to int, a bundle of 2^32 was 0 and the layout's loop never ended.
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n", {"simulation.layout=\"aosoa\"", "simulation.bundle=4294967296"}),
                  "simulation.bundle: expected an integer from 1 to 2^31 - 1, got 4294967296");
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n", {"simulation.kernel=\"swap_prism\"", "simulation.tile=4294967296"}),
                  "simulation.tile: expected an integer from 2 to 2^31 - 1, got 4294967296");
  // Past 64 bits on the command line: TOML's reason, not "got string" (an unquoted string may
  // still start with digits).
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n", {"simulation.steps=99999999999999999999"}),
                  "--set simulation.steps=99999999999999999999: error: '99999999999999999999' is not a number TOML reads");
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n", {"simulation.steps=12ab"}),
                  "simulation.steps: expected an integer >= 1, got string '12ab'");
  EXPECT_EQ(parse(head + "[physics]\ntau = 0.6\n", {"simulation.name=007"}).name, "007");
}

// The locations that checks after parsing report against (drivers/RunCheck.hpp).
TEST(Deck, LocationsOfKeysCheckedAfterParsing) {
  const Config c = parse(head + "[physics]\ntau = 0.6\n[parallel]\ndims = [2, 1, 1]\n");
  EXPECT_EQ(c.locations.at("domain.cells"), "deck.toml:8:9");
  EXPECT_EQ(c.locations.at("parallel.dims"), "deck.toml:12:8");
  EXPECT_EQ(parse(head + "[physics]\ntau = 0.6\n", {"parallel.dims=[2, 1, 1]"}).locations.at("parallel.dims"),
            "--set parallel.dims=[2, 1, 1]");
  try {
    throw_deck_error(c, "parallel.dims", "needs 2 ranks, the run has 3");
  } catch (const DeckError& e) {
    EXPECT_EQ(std::string(e.what()), "deck.toml:12:8: error: parallel.dims: needs 2 ranks, the run has 3\n1 error in deck deck.toml");
  }
}

// Kernel names are parsed once (core/Scheme.hpp): every known name round-trips, steps per sweep
// come from the name, unknown names are refused.
TEST(Deck, SchemeNames) {
  for (const std::string& name : known_kernels()) {
    const std::optional<Scheme> s = parse_scheme(name);
    ASSERT_TRUE(s) << name;
    EXPECT_EQ(scheme_name(*s), name);
    EXPECT_EQ(s->steps, name.back() == '2' ? 2 : name.back() == '3' ? 3 : 1) << name;
  }
  EXPECT_EQ(parse_scheme("auto")->kind, StreamingKernel::Auto);
  EXPECT_FALSE(parse_scheme("merged4"));
  EXPECT_FALSE(parse_scheme("AA"));
  EXPECT_EQ(parse_deck_string(head + "[physics]\ntau = 0.6\n", "deck.toml", "", {"simulation.kernel=\"merged_aa3\""}).kernel,
            (Scheme{StreamingKernel::MergedAA, 3}));
}

TEST(Deck, PhysicalUnits) {
  const Config c = parse(head + "[physics]\nreynolds = 100\nlength = 8\nvelocity = 0.04\n"
                                "[units]\ndx = 0.5\nvelocity = 12\n");
  ASSERT_TRUE(c.units.enabled);
  EXPECT_EQ(c.units.lattice_velocity, 0.04);  // physics.velocity
  EXPECT_EQ(c.units.density, 1.225);
  EXPECT_DOUBLE_EQ(c.units.dt(), 0.04 * 0.5 / 12);
  const Config given = parse(head + "[physics]\ntau = 0.6\n[units]\ndx = 2\nvelocity = 5\nlattice_velocity = 0.1\ndensity = 1000\n");
  EXPECT_DOUBLE_EQ(given.units.dt(), 0.04);
  EXPECT_EQ(given.units.density, 1000);
  EXPECT_FALSE(parse(head + "[physics]\ntau = 0.6\n").units.enabled);
}

TEST(DeckErrors, PhysicalUnits) {
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[units]\ndx = 2\nvelocity = 5\n"),
                  "deck.toml:11:1: error: units.lattice_velocity: missing required key (expected a number > 0 "
                  "(cells per step: the lattice speed that units.velocity is); it defaults to physics.velocity, "
                  "which this deck does not give)");
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[units]\nvelocity = 5\nlattice_velocity = 0.1\n"),
                  "units.dx: missing required key (expected a number > 0 (metres per cell))");
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[units]\ndx = -1\nvelocity = 5\nlattice_velocity = 0.1\n"),
                  "deck.toml:12:6: error: units.dx: expected a number > 0 (metres per cell)");
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\n[units]\ndx = 1\nvelocity = 5\nlattice_velocity = 0.1\ndt = 2\n"),
                  "units] unknown key 'dt'");
}

TEST(DeckErrors, ObstacleWalls) {
  const std::string physics = "[physics]\ntau = 0.6\n";
  const std::string cylinder = "[[obstacle]]\nshape = \"cylinder\"\ncenter = [4, 4, 4]\nradius = 2\n";
  EXPECT_CONTAINS(error_of(head + physics + cylinder + "bounce_back = \"bouzidi\"\n"),
                  "obstacle[0].bounce_back: expected one of halfway, interpolated, got string 'bouzidi'");
  EXPECT_CONTAINS(error_of(head + physics + cylinder + "bounce_back = \"interpolated\"\n", {"simulation.kernel=\"aa\""}),
                  "obstacle[0]: interpolated bounce-back is applied by the \"ab_pull\" kernel");
  EXPECT_CONTAINS(error_of(head + physics + cylinder + "angular_velocity = 0.01\n", {"simulation.storage=\"sparse\""}),
                  "obstacle[0]: a rotating obstacle needs simulation.storage = \"dense\"");
  EXPECT_CONTAINS(error_of(head + physics + cylinder + "angular_velocity = 0.2\n"),
                  "obstacle[0].angular_velocity (the surface speed |omega| r): lattice speed 0.4 gives Mach 0.69282");
  // The deck's Mach limit, not a fixed one (the speed was capped at 0.3, Mach 0.52, whatever it said).
  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\nmach_limit = 0.25\n" + cylinder + "angular_velocity = 0.08\n"),
                  "lattice speed 0.16 gives Mach 0.277128 (speed / c_s, c_s = 1/sqrt(3)) > physics.mach_limit = 0.25");
  EXPECT_EQ(error_of(head + physics + cylinder + "angular_velocity = 0.08\n"), "");
  EXPECT_CONTAINS(error_of(head + physics + "[[obstacle]]\nshape = \"sphere\"\ncenter = [4, 4, 4]\nradius = 2\n"
                                            "angular_velocity = 0.01\n"),
                  "obstacle[0].angular_velocity: only a cylinder rotates (about its axis)");
  EXPECT_CONTAINS(error_of(head + physics + cylinder + "invert = 1\n"), "obstacle[0].invert");
  // the AMR leaves apply interpolated bounce-back and turning walls (tests/validation/test_amr_walls.cpp)
  EXPECT_EQ(error_of(head + physics + "[amr]\n" + cylinder + "bounce_back = \"interpolated\"\nangular_velocity = 0.01\n"), "");
  // the quadratic rule: ghost widths of two cells or more, no AMR, only with interpolated walls
  const std::string quadratic = cylinder + "bounce_back = \"interpolated\"\ninterpolation = \"quadratic\"\n";
  EXPECT_CONTAINS(error_of(head + physics + cylinder + "interpolation = \"quadratic\"\n"),
                  "deck.toml:15:17: error: obstacle[0].interpolation: only used with bounce_back = \"interpolated\"");
  EXPECT_CONTAINS(error_of(head + physics + cylinder + "bounce_back = \"interpolated\"\ninterpolation = \"cubic\"\n"),
                  "obstacle[0].interpolation: expected one of linear, quadratic, got string 'cubic'");
  EXPECT_CONTAINS(error_of(head + physics + "[amr]\n" + quadratic),
                  "obstacle[0].interpolation = \"quadratic\" reads populations two cells from the wall, and AMR leaves "
                  "carry one ghost cell");
  EXPECT_CONTAINS(error_of(head + physics + quadratic + "[parallel]\nghost_width = 1\n"),
                  "parallel.ghost_width = 1: quadratic interpolated bounce-back reads populations two cells from the "
                  "wall, one step's reach is two cells");
  EXPECT_CONTAINS(error_of(head + physics + quadratic + "[parallel]\nghost_width = \"auto\"\nmax_ghost_width = 1\n"),
                  "parallel.max_ghost_width = 1: quadratic interpolated bounce-back");
  EXPECT_EQ(parse_deck_string(head + physics + quadratic, "deck.toml", ".").parallel.ghost_width, 2);
  EXPECT_EQ(parse_deck_string(head + physics + quadratic + "[parallel]\nghost_width = 4\n", "deck.toml", ".").parallel.ghost_width, 4);
}

TEST(DeckErrors, PullOnlyFacesAndModels) {
  const std::string physics = "[physics]\ntau = 0.6\n";
  const std::string top = "[boundary.z_max]\ntype = \"free_slip\"\n";
  EXPECT_CONTAINS(error_of(head + physics + top, {"simulation.kernel=\"swap\""}),
                  "boundary.z_max.type: a free-slip (symmetry) face is applied by the \"ab_pull\" kernel");
  EXPECT_EQ(error_of(head + physics + "[amr]\n" + top), "");  // the AMR leaves always pull
  EXPECT_CONTAINS(error_of(head + physics + top, {"simulation.storage=\"sparse\""}),
                  "boundary.z_max.type with simulation.storage = \"sparse\": only \"wall\" and \"periodic\" faces");
  EXPECT_CONTAINS(error_of(head + physics + top + "velocity = [0.1, 0, 0]\n"),
                  "boundary.z_max.velocity: velocity is only used by moving_wall and velocity_inlet");
  const std::string csm = "[collision]\nsgs = \"csm\"\n";
  EXPECT_CONTAINS(error_of(head + physics + csm, {"simulation.kernel=\"aa\""}),
                  "collision.sgs = \"csm\" is applied by the \"ab_pull\" kernel");
  EXPECT_CONTAINS(error_of(head + physics + csm, {"simulation.storage=\"sparse\""}),
                  "collision.sgs = \"csm\" needs simulation.storage = \"dense\"");
  EXPECT_EQ(error_of(head + physics + "[amr]\n" + csm), "");  // the AMR leaves keep the velocities
  EXPECT_EQ(error_of(head + physics + "[amr]\nregrid_every = 10\nrefine_above = 0.01\n[statistics]\nevery = 5\n"), "");
  EXPECT_CONTAINS(error_of(head + physics + "[collision]\ncsm_constant = 0.05\n"),
                  "collision.csm_constant: csm_constant is only used by collision.sgs = \"csm\"");
  const std::string inlet = "[boundary.x_min]\ntype = \"velocity_inlet\"\nvelocity = [0.02, 0, 0]\n";
  EXPECT_CONTAINS(error_of(head + physics + inlet + "turbulence_intensity = 0.8\n"),
                  "boundary.x_min.turbulence_intensity: expected a number in (0, 0.5]");
  EXPECT_CONTAINS(error_of(head + physics + inlet + "turbulence_length = 4\n"),
                  "boundary.x_min.turbulence_length: turbulence_length is only used with turbulence_intensity");
  EXPECT_CONTAINS(error_of(head + physics + inlet + "turbulence_intensity = 0.1\n", {"simulation.kernel=\"aa\""}),
                  "boundary.x_min.turbulence_intensity: inflow turbulence is verified on the \"ab_pull\" kernel only");
  EXPECT_CONTAINS(error_of(head + physics + inlet + "turbulence_intensity = 0.1\n[boundary.y_min]\ntype = "
                           "\"velocity_inlet\"\nvelocity = [0, 0.02, 0]\nturbulence_intensity = 0.1\n"),
                  "boundary.y_min.turbulence_intensity: only one inlet carries synthetic turbulence (x_min does already)");
  EXPECT_CONTAINS(error_of(head + physics + "[boundary.x_max]\ntype = \"wall\"\nturbulence_intensity = 0.1\n"),
                  "boundary.x_max.turbulence_intensity: turbulence_intensity is only used by velocity_inlet");
  // "symmetry" names the same condition
  const Config c = parse_deck_string(head + physics + "[boundary.y_min]\ntype = \"symmetry\"\n", "t.toml", ".");
  EXPECT_EQ(c.faces[YMin].type, FaceBC::FreeSlip);
  EXPECT_TRUE(c.needs_pull_kernel());
}

TEST(DeckErrors, InletProfiles) {
  const std::string physics = "[physics]\ntau = 0.6\n";
  const std::string inlet = "[boundary.x_min]\ntype = \"velocity_inlet\"\nvelocity = [0.02, 0, 0]\n";
  EXPECT_CONTAINS(error_of(head + physics + inlet + "profile = \"log_law\"\nreference_height = 4\n"),
                  "boundary.x_min.roughness_length: missing required key (expected a number > 0 (the roughness length z0, cells))");
  EXPECT_CONTAINS(error_of(head + physics + inlet + "profile = \"power_law\"\n"),
                  "boundary.x_min.reference_height: missing required key (expected a number > 0 (cells above the ground, "
                  "the lower face along z, where the speed is `velocity`))");
  EXPECT_CONTAINS(error_of(head + physics + inlet + "profile = \"parabolic\"\nexponent = 0.2\n"),
                  "boundary.x_min.exponent");
  EXPECT_CONTAINS(error_of(head + physics + inlet + "profile = \"parabola\"\n"),
                  "boundary.x_min.profile: expected one of");
  EXPECT_CONTAINS(error_of(head + physics + "[boundary.z_min]\ntype = \"velocity_inlet\"\nvelocity = [0, 0, 0.01]\n"
                                            "profile = \"log_law\"\nreference_height = 4\nroughness_length = 0.1\n"),
                  "boundary.z_min.profile: \"log_law\" varies with the height (z), so it cannot be the profile of a face "
                  "normal to it");
  EXPECT_CONTAINS(error_of(head + physics + "[boundary.x_max]\ntype = \"wall\"\nprofile = \"parabolic\"\n"),
                  "boundary.x_max.profile");
  EXPECT_CONTAINS(error_of(head + physics + inlet + "profile = \"log_law\"\nreference_height = 4\nroughness_length = 0.1\n"
                                                     "[boundary.z_min]\ntype = \"periodic\"\n[boundary.z_max]\ntype = \"periodic\"\n"),
                  "boundary.x_min.profile: \"log_law\" measures heights from the z_min face, which is periodic; make it a wall");
  std::string periodic;
  for (const char* f : {"y_min", "y_max", "z_min", "z_max"})
    periodic += std::string("[boundary.") + f + "]\ntype = \"periodic\"\n";
  EXPECT_CONTAINS(error_of(head + physics + inlet + "profile = \"parabolic\"\n" + periodic),
                  "boundary.x_min.profile: \"parabolic\" needs walls (a non-periodic axis) across the face");
  // The Mach check takes a law's speed at the top of the domain: (8 / 1)^0.5 x 0.1 = 0.28 > 0.3 c_s.
  EXPECT_CONTAINS(error_of(head + physics + "[boundary.x_min]\ntype = \"velocity_inlet\"\nvelocity = [0.1, 0, 0]\n"
                                            "profile = \"power_law\"\nreference_height = 1\nexponent = 0.5\n"),
                  "boundary.x_min.velocity (at the top of its profile): lattice speed 0.28284271");
  // A law whose peak overflows is too fast, not unchecked (the run blew up at step 1).
  EXPECT_CONTAINS(error_of(head + physics + "[boundary.x_min]\ntype = \"velocity_inlet\"\nvelocity = [0.05, 0, 0]\n"
                                            "profile = \"power_law\"\nreference_height = 1\nexponent = 400\n"),
                  "boundary.x_min.velocity (at the top of its profile): lattice speed inf");
}

// Input that ran before and measured nothing: a shape that holds no cell centre (solid nowhere;
// refined cells have their centres between level-0 ones), an AMR region that refines nothing,
// probes whose CSV columns repeat, a Mach limit past c_s, a float where an integer is asked.
TEST(DeckErrors, InputThatWouldMeasureNothing) {
  const std::string p = "[physics]\ntau = 0.6\n";  // head: 8^3 cells, centres at 0..7
  const std::string thin_box = "[[obstacle]]\nshape = \"box\"\nlo = [3.3, 0, 0]\nhi = [3.4, 7, 7]\n";
  EXPECT_CONTAINS(error_of(head + p + thin_box),
                  "deck.toml:12:9: error: obstacle[0]: the box holds no cell centre: along x it spans 3.3 to 3.4, and "
                  "cell centres lie at integer coordinates from 0 to 7");
  // Level-1 centres lie at 3.25 and 3.75, level-2 ones at 3.125, 3.375, ...: one is inside.
  EXPECT_EQ(error_of(head + p + "[amr]\nmax_level = 2\n" + thin_box), "");
  EXPECT_CONTAINS(error_of(head + p + "[amr]\nmax_level = 1\n" + thin_box),
                  "the box holds no cell centre: along x it spans 3.3 to 3.4, and cell centres lie at integer "
                  "coordinates from 0 to 7, nor one of level 1");
  // A plate of no thickness on level-0 centres: solid where level-0 leaves lie, whatever max_level.
  const std::string plate = "[[obstacle]]\nshape = \"box\"\nlo = [3, 0, 0]\nhi = [3, 7, 7]\n";
  for (const char* level : {"0", "1", "3"}) EXPECT_EQ(error_of(head + p + "[amr]\nmax_level = " + level + "\n" + plate), "") << level;
  EXPECT_CONTAINS(error_of(head + p + "[[obstacle]]\nshape = \"sphere\"\ncenter = [12, 4, 4]\nradius = 4.5\n"),
                  "obstacle[0]: the sphere holds no cell centre of the domain: the nearest lies 5 cells from its");
  EXPECT_EQ(error_of(head + p + "[[obstacle]]\nshape = \"sphere\"\ncenter = [12, 4, 4]\nradius = 5\n"), "");
  // Across periodic faces the shape repeats one period away (lbm/field/Geometry.cpp): its copy at
  // x = 12 - 8 = 4 holds centres. Two periods away it has no copy.
  const std::string x_periodic = "[boundary.x_min]\ntype = \"periodic\"\n[boundary.x_max]\ntype = \"periodic\"\n";
  EXPECT_EQ(error_of(head + p + x_periodic + "[[obstacle]]\nshape = \"sphere\"\ncenter = [12, 4, 4]\nradius = 4.5\n"), "");
  EXPECT_EQ(error_of(head + p + x_periodic + "[[obstacle]]\nshape = \"box\"\nlo = [-3, 0, 0]\nhi = [-2, 7, 7]\n"), "");
  EXPECT_CONTAINS(error_of(head + p + x_periodic + "[[obstacle]]\nshape = \"sphere\"\ncenter = [20, 4, 4]\nradius = 4.5\n"),
                  "obstacle[0]: the sphere holds no cell centre of the domain");
  EXPECT_CONTAINS(error_of(head + p + "[[obstacle]]\nshape = \"cylinder\"\ncenter = [4, -3, 99]\nradius = 2.5\naxis = \"z\"\n"),
                  "obstacle[0]: the cylinder holds no cell centre");
  // Inverted, it is solid everywhere but the cylinder: accepted.
  EXPECT_EQ(error_of(head + p + "[[obstacle]]\nshape = \"cylinder\"\ncenter = [4, -3, 99]\nradius = 2.5\ninvert = true\n"), "");
  // Inverted around the whole domain, it is solid nowhere; one cell centre outside it is enough,
  // on any level up to max_level (level-1 centres reach -0.25 and 7.25).
  const std::string around = "[[obstacle]]\nshape = \"box\"\nlo = [-0.1, -5, -5]\nhi = [7.1, 20, 20]\ninvert = true\n";
  EXPECT_CONTAINS(error_of(head + p + around),
                  "obstacle[0]: the inverted box holds every cell centre of the domain (it would be solid nowhere)");
  EXPECT_EQ(error_of(head + p + "[amr]\nmax_level = 1\n" + around), "");
  EXPECT_CONTAINS(error_of(head + p + "[[obstacle]]\nshape = \"sphere\"\ncenter = [3.5, 3.5, 3.5]\nradius = 6.1\ninvert = true\n"),
                  "the inverted sphere holds every cell centre");
  EXPECT_EQ(error_of(head + p + "[[obstacle]]\nshape = \"sphere\"\ncenter = [3.5, 3.5, 3.5]\nradius = 6\ninvert = true\n"), "");
  // An obstacle with an error of its own adds no "[forces] needs a body".
  EXPECT_EQ(error_count(head + p + thin_box + "[forces]\nreference_velocity = 0.1\nreference_length = 2\nreference_area = 3\n"), 1u);

  // A region refines blocks within half a level-0 cell of its box (amr/AmrSolver.cpp region_wants).
  EXPECT_CONTAINS(error_of(head + p + "[amr]\n[[amr.region]]\nlo = [0, 9, 0]\nhi = [7, 12, 7]\nlevel = 1\n"),
                  "amr.region[0]: the box lies outside the domain along y (9 to 12; level-0 cell centres lie at 0 to 7, "
                  "and a region reaches half a cell beyond its box)");
  EXPECT_NE(error_of(head + p + "[amr]\n[[amr.region]]\nlo = [0, 8, 0]\nhi = [7, 12, 7]\nlevel = 1\n"), "");
  EXPECT_NE(error_of(head + p + "[amr]\n[[amr.region]]\nlo = [-5, 0, 0]\nhi = [-1, 7, 7]\nlevel = 1\n"), "");
  EXPECT_EQ(error_of(head + p + "[amr]\n[[amr.region]]\nlo = [0, 7.9, 0]\nhi = [7, 12, 7]\nlevel = 1\n"), "");
  EXPECT_EQ(error_of(head + p + "[amr]\n[[amr.region]]\nlo = [-5, 0, 0]\nhi = [-0.9, 7, 7]\nlevel = 1\n"), "");
  // max_level out of range says so once, not again at each region's level.
  EXPECT_EQ(error_count(head + p + "[amr]\nmax_level = 9\n[[amr.region]]\nlo = [0, 0, 0]\nhi = [3, 3, 3]\nlevel = 3\n"), 1u);

  EXPECT_CONTAINS(error_of(head + p + "[[probe]]\nname = \"a\"\npoint = [1, 1, 1]\n[[probe]]\nname = \"a\"\npoint = [2, 2, 2]\n"),
                  "probe[1]: its column name 'a' is an earlier probe's too");
  EXPECT_CONTAINS(error_of(head + p + "[[probe]]\nname = \"a_1\"\npoint = [1, 1, 1]\n"
                                      "[[probe]]\nname = \"a\"\nfrom = [0, 0, 0]\nto = [7, 0, 0]\npoints = 3\n"),
                  "probe[1]: its column name 'a_1' is an earlier probe's too");
  EXPECT_EQ(error_of(head + p + "[[probe]]\nname = \"a\"\npoint = [1, 1, 1]\n[[probe]]\nname = \"b\"\npoint = [1, 1, 1]\n"), "");

  EXPECT_CONTAINS(error_of(head + "[physics]\ntau = 0.6\nmach_limit = 5\n"),
                  "physics.mach_limit: expected a number in (0, 1], got 5");
  EXPECT_CONTAINS(error_of(head, {"simulation.steps=2.0"}), "simulation.steps: expected an integer >= 1, got float 2.0");
  EXPECT_CONTAINS(error_of(head, {"simulation.steps=1e3"}), "got float 1000.0");
  EXPECT_CONTAINS(error_of(head, {"simulation.steps=2.5"}), "got float 2.5");
}

// Accepted with a warning: an inlet whose velocity points out of the domain, samples that a run
// this short never takes.
TEST(DeckWarnings, OutwardInletAndSamplingPastTheLastStep) {
  const std::string p = "[physics]\ntau = 0.6\n";
  const Config outward = parse(head + p + "[boundary.x_max]\ntype = \"velocity_inlet\"\nvelocity = [0.05, 0, 0]\n"
                               "[boundary.x_min]\ntype = \"pressure_outlet\"\n");
  ASSERT_EQ(outward.warnings.size(), 1u);
  EXPECT_CONTAINS(outward.warnings[0], "boundary.x_max.velocity points out of the domain (u_x = 0.05)");
  EXPECT_TRUE(parse(head + p + "[boundary.x_max]\ntype = \"velocity_inlet\"\nvelocity = [-0.05, 0, 0]\n"
                    "[boundary.x_min]\ntype = \"pressure_outlet\"\n").warnings.empty());
  const Config rare = parse(head + p + "[[obstacle]]\nshape = \"sphere\"\ncenter = [4, 4, 4]\nradius = 1\n"
                            "[forces]\nreference_velocity = 0.1\nreference_length = 2\nreference_area = 3\nevery = 11\n"
                            "[[probe]]\npoint = [1, 1, 1]\n[output]\nprobes_every = 20\n");
  ASSERT_EQ(rare.warnings.size(), 2u);
  EXPECT_CONTAINS(rare.warnings[0] + rare.warnings[1], "forces.every = 11 exceeds simulation.steps = 10");
  EXPECT_CONTAINS(rare.warnings[0] + rare.warnings[1], "output.probes_every = 20 exceeds simulation.steps = 10");
  // Without a probe the cadence samples nothing: refused like other keys that do not apply.
  EXPECT_CONTAINS(error_of(head + p + "[output]\nprobes_every = 5\n"),
                  "output.probes_every: only used with [[probe]] (the deck has none)");
  const Config integrals = parse(head + p + "[output]\nintegrals_every = 5\n");
  EXPECT_EQ(integrals.integrals_every, 5);
  EXPECT_TRUE(integrals.warnings.empty());
  const Config late = parse(head + p + "[output]\nintegrals_every = 11\n");
  ASSERT_EQ(late.warnings.size(), 1u);
  EXPECT_CONTAINS(late.warnings[0], "output.integrals_every = 11 exceeds simulation.steps = 10: integrals.csv holds the initial state only");
  EXPECT_EQ(parse(head + p).integrals_every, 0);
  EXPECT_CONTAINS(error_of(head + p + "[output]\nintegrals_every = 0\n"),
                  "output.integrals_every: expected an integer >= 1 (steps between the samples of integrals.csv)");
  EXPECT_EQ(parse(head + p + "[amr]\n[output]\nintegrals_every = 5\n").integrals_every, 5);  // AMR leaves too
}
