#pragma once
// The .pvd collection file of a ParaView time series (VtkSeries.hpp, AmrSeries.hpp): (time, file)
// entries rewritten atomically after every output, and continued by a restarted run.
//
// Plain host C++17 (no Kokkos, no VTK).
#include <string>
#include <utility>
#include <vector>

namespace boreas {

// Writes `text` to `path` via a temporary file + rename, so readers never see a partial file.
// Throws Error (core/Error.hpp) on failure.
void write_text_atomically(const std::string& path, const std::string& text);

std::string xml_escape(const std::string& in);
const char* byte_order();  // "LittleEndian" or "BigEndian", as VTK's XML headers say it

class PvdCollection {
 public:
  explicit PvdCollection(std::string path) : path_(std::move(path)) {}
  const std::string& path() const { return path_; }
  // Adds an output (the same file again replaces the last entry's time) and rewrites the file.
  void add(double time, const std::string& file);
  // Keeps the existing file's entries up to `time` whose files are there (a checkpointed run
  // continued; a missing .pvd starts an empty series). Returns what the user should be warned of,
  // or "": entries dropped, a missing .pvd where the run had `written` one by `time`. Throws
  // Error on a file it cannot read or parse (with its line).
  std::string resume(double time, bool written);
  bool empty() const { return entries_.empty(); }

 private:
  std::string path_;
  std::vector<std::pair<double, std::string>> entries_;  // (time, file relative to the .pvd)
};

}  // namespace boreas
