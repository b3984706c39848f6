#include "io/CsvSeries.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/Error.hpp"
#include "core/ParseNumber.hpp"

namespace boreas {

CsvSeries::CsvSeries(std::string path, std::vector<std::string> columns, bool writer, long first_step)
    : path_(std::move(path)), columns_(columns.size()), writer_(writer) {
  std::string header = "step";
  for (const std::string& c : columns) header += "," + c;
  if (first_step > 0) {
    std::ifstream file(path_, std::ios::binary);
    history_missing_ = !file;
    std::stringstream text;
    text << file.rdbuf();
    std::string content = text.str(), line;
    if (!content.empty() && content.back() != '\n') {
      const std::size_t start = content.rfind('\n') + 1;  // 0 where the header itself was cut
      cut_row_ = content.substr(start);
      content.erase(start);
    }
    std::istringstream in(content);
    if (std::getline(in, line) && line != header)
      throw Error(path_ + ": its columns are not this deck's (header \"" + line + "\"); move it away to restart");
    for (long number = 2; std::getline(in, line); ++number) {
      std::istringstream row(line);
      std::string cell;
      if (!std::getline(row, cell, ',')) continue;
      const auto not_a_number = [&](const char* expected) {
        return Error(path_ + ": line " + std::to_string(number) + ": expected " + expected + ", got '" + cell +
                     "'; move the file away to restart without its history");
      };
      long step = 0;
      if (!parse_long(cell, step)) throw not_a_number("a step number");
      if (step > first_step) break;
      std::vector<double> values;
      for (double v = 0; std::getline(row, cell, ',');) {
        if (!parse_double(cell, v)) throw not_a_number("a number");
        values.push_back(v);
      }
      if (values.size() != columns_) throw Error(path_ + ": the row of step " + std::to_string(step) + " is incomplete");
      steps_.push_back(step);
      rows_.push_back(std::move(values));
    }
  }
  if (!writer_) return;
  // Written beside and renamed over the old file: the other ranks, reading it at the same time,
  // see the old rows or the new ones, never a row half written.
  const std::string fresh = path_ + ".new";
  {
    std::ofstream out(fresh, std::ios::trunc);
    out << header << "\n";
    for (std::size_t i = 0; i < rows_.size(); ++i) write_row(out, steps_[i], rows_[i]);
    out.close();  // a full disk shows here
    if (!out) throw Error(fresh + ": cannot write");
  }
  std::error_code error;
  std::filesystem::rename(fresh, path_, error);
  if (error) throw Error(path_ + ": cannot write (" + error.message() + ")");
}

void CsvSeries::append(long step, const std::vector<double>& values) {
  if (values.size() != columns_)
    throw std::logic_error(path_ + ": " + std::to_string(values.size()) + " values for " + std::to_string(columns_) + " columns");
  if (writer_) {
    std::ofstream out(path_, std::ios::app);
    write_row(out, step, values);
    out.close();  // a full disk shows here
    if (!out) throw Error(path_ + ": cannot write");
  }
  steps_.push_back(step);
  rows_.push_back(values);
}

void CsvSeries::write_row(std::ofstream& out, long step, const std::vector<double>& values) const {
  out << step;
  char buf[32];
  for (double v : values) {
    std::snprintf(buf, sizeof buf, ",%.17g", v);
    out << buf;
  }
  out << "\n";
}

}  // namespace boreas
