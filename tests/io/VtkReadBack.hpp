#pragma once
// Reads a written .vti or .pvti back with VTK's own readers, as ParaView does: every cell array,
// all components flat. Host-only (VTK's headers stay out of device compilation).
#include <string>
#include <utility>
#include <vector>

namespace boreas::test {

// (array name, values) in the file's order; empty when the file cannot be read.
std::vector<std::pair<std::string, std::vector<double>>> read_cell_arrays(const std::string& path);

}  // namespace boreas::test
