#pragma once
// A CSV time series a run appends to (forces.csv, probes.csv, integrals.csv): a header "step,<columns>" and one
// row per sample, numbers printed with 17 significant digits (they read back to the same bits).
// Every rank keeps the rows; only the writer touches the file. A run restarted at `first_step`
// keeps the existing file's rows up to that step (refusing a file with other columns) and drops
// the later ones, which it repeats, so the file ends as the uninterrupted run's would. A last line
// without its newline is a row whose write was cut short (a full disk, a kill): dropped, said by
// cut_row() (one after the restart step is repeated; one at or before it is a gap).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/Checkpoint.hpp"

namespace boreas {

// A series' rows up to a step as a checkpoint records them: how many, and text_hash of their lines
// as written. A restart compares them with the file it continues, which may have been written
// since by another run into the same directory.
struct CsvRows {
  long rows = 0;
  std::uint64_t text_hash = text_hash_start;
  bool operator==(const CsvRows& o) const { return rows == o.rows && text_hash == o.text_hash; }
};

// The complete rows of the series file at `path` up to `step` (its header line not counted; a
// last line cut short left out, `cut` set); none where a line is not numbers (a CsvSeries reading
// the file names it).
std::optional<CsvRows> csv_file_rows(const std::string& path, long step, bool& cut);

class CsvSeries {
 public:
  CsvSeries(std::string path, std::vector<std::string> columns, bool writer, long first_step);

  void append(long step, const std::vector<double>& values);
  const std::vector<long>& steps() const { return steps_; }
  const std::vector<std::vector<double>>& rows() const { return rows_; }
  const std::string& path() const { return path_; }
  // A restart found no file of the earlier run (another output directory): rows start here.
  bool history_missing() const { return history_missing_; }
  // A restart found the file's last row cut short and dropped it: that line, else "".
  const std::string& cut_row() const { return cut_row_; }
  // The rows up to `step` (all of them but those an instability's fallback left behind it).
  CsvRows rows_up_to(long step) const;

 private:
  void keep(long step, std::vector<double> values, const std::string& text);

  std::string path_;
  std::size_t columns_;
  bool writer_;
  bool history_missing_ = false;
  std::string cut_row_;
  std::vector<long> steps_;
  std::vector<std::vector<double>> rows_;
  std::vector<std::uint64_t> text_hashes_;  // text_hash of the rows up to each, in order
};

}  // namespace boreas
