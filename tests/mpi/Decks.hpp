#pragma once
// Small decks for the multi-rank tests that cover every boundary kind, all three lattices and both
// precisions: walls and a moving lid, a fully periodic Taylor-Green field, a parabolic inlet
// (global positions on every block) and an outlet with obstacles in float, a periodic 2D channel with a cylinder and a force (TRT).
namespace boreas::test {

struct Deck {
  const char* name;
  const char* text;
};

const Deck decks[] = {
    {"lid_driven_cavity_d3q19", R"(
[simulation]
steps = 12
[lattice]
model = "D3Q19"
[domain]
cells = [12, 10, 8]
[physics]
tau = 0.6
[boundary.y_max]
type = "moving_wall"
velocity = [0.05, 0.0, 0.02]
[output]
vtk = false
)"},
    {"taylor_green_periodic_d3q27", R"(
[simulation]
steps = 10
[lattice]
model = "D3Q27"
[domain]
cells = [12, 8, 8]
[physics]
tau = 0.7
[initial]
type = "taylor_green"
amplitude = 0.04
[boundary.x_min]
type = "periodic"
[boundary.x_max]
type = "periodic"
[boundary.y_min]
type = "periodic"
[boundary.y_max]
type = "periodic"
[boundary.z_min]
type = "periodic"
[boundary.z_max]
type = "periodic"
[output]
vtk = false
)"},
    {"channel_parabolic_inlet_outlet_obstacles_d3q19_float", R"(
[simulation]
steps = 12
[lattice]
model = "D3Q19"
precision = "float"
[domain]
cells = [16, 10, 8]
[physics]
tau = 0.65
[boundary.x_min]
type = "velocity_inlet"
velocity = [0.04, 0, 0]
profile = "parabolic"
[boundary.x_max]
type = "pressure_outlet"
density = 0.99
[boundary.z_min]
type = "periodic"
[boundary.z_max]
type = "periodic"
[[obstacle]]
shape = "sphere"
center = [6, 5, 4]
radius = 2.5
[[obstacle]]
shape = "box"
lo = [10, 0, 0]
hi = [11, 3, 7]
[output]
vtk = false
)"},
    {"periodic_channel_cylinder_d2q9_trt_force", R"(
[simulation]
steps = 15
[lattice]
model = "D2Q9"
[domain]
cells = [20, 12]
[collision]
model = "TRT"
[physics]
tau = 0.8
force = [1e-5, 0]
[boundary.x_min]
type = "periodic"
[boundary.x_max]
type = "periodic"
[[obstacle]]
shape = "cylinder"
center = [7, 6]
radius = 2.5
axis = "z"
[output]
vtk = false
)"},
};

}  // namespace boreas::test
