#pragma once
// A CSV time series a run appends to (forces.csv, probes.csv): a header "step,<columns>" and one
// row per sample, numbers printed with 17 significant digits (they read back to the same bits).
// Every rank keeps the rows; only the writer touches the file. A run restarted at `first_step`
// keeps the existing file's rows up to that step (refusing a file with other columns) and drops
// the later ones, which it repeats, so the file ends as the uninterrupted run's would. A last line
// without its newline is a row whose write was cut short (a full disk, a kill): dropped, said by
// cut_row() (one after the restart step is repeated; one at or before it is a gap).
#include <fstream>
#include <string>
#include <vector>

namespace boreas {

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

 private:
  void write_row(std::ofstream& out, long step, const std::vector<double>& values) const;

  std::string path_;
  std::size_t columns_;
  bool writer_;
  bool history_missing_ = false;
  std::string cut_row_;
  std::vector<long> steps_;
  std::vector<std::vector<double>> rows_;
};

}  // namespace boreas
