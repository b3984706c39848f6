#include "io/CsvSeries.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/Error.hpp"
#include "core/ParseNumber.hpp"

namespace boreas {

namespace {
std::string read_whole(const std::string& path, bool& opened) {
  std::ifstream file(path, std::ios::binary);
  opened = bool(file);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The text of a row as the file holds it.
std::string row_text(long step, const std::vector<double>& values) {
  std::string line = std::to_string(step);
  char buf[32];
  for (double v : values) {
    std::snprintf(buf, sizeof buf, ",%.17g", v);
    line += buf;
  }
  return line + "\n";
}

// `content` without a last line cut short (no newline), which is returned.
std::string cut_last_line(std::string& content) {
  if (content.empty() || content.back() == '\n') return "";
  const std::size_t start = content.rfind('\n') + 1;  // 0 where the header itself was cut
  std::string cut = content.substr(start);
  content.erase(start);
  return cut;
}
}  // namespace

std::optional<CsvRows> csv_file_rows(const std::string& path, long step, bool& cut) {
  bool opened = false;
  std::string content = read_whole(path, opened);
  cut = !cut_last_line(content).empty();
  std::istringstream in(content);
  CsvRows rows;
  std::string line, cell;
  std::getline(in, line);  // the header
  for (long row_step = 0; std::getline(in, line);) {
    std::istringstream row(line);
    if (!std::getline(row, cell, ',') || !parse_long(cell, row_step)) return std::nullopt;
    if (row_step > step) break;
    for (double v = 0; std::getline(row, cell, ',');)
      if (!parse_double(cell, v)) return std::nullopt;
    ++rows.rows;
    rows.text_hash = text_hash(line + "\n", rows.text_hash);
  }
  return rows;
}

CsvSeries::CsvSeries(std::string path, std::vector<std::string> columns, bool writer, long first_step)
    : path_(std::move(path)), columns_(columns.size()), writer_(writer) {
  std::string header = "step";
  for (const std::string& c : columns) header += "," + c;
  if (first_step > 0) {
    bool opened = false;
    std::string content = read_whole(path_, opened), line;
    history_missing_ = !opened;
    cut_row_ = cut_last_line(content);
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
      const std::string text = row_text(step, values);
      keep(step, std::move(values), text);
    }
  }
  if (!writer_) return;
  // Written beside and renamed over the old file: the other ranks, reading it at the same time,
  // see the old rows or the new ones, never a row half written.
  const std::string fresh = path_ + ".new";
  {
    std::ofstream out(fresh, std::ios::trunc);
    out << header << "\n";
    for (std::size_t i = 0; i < rows_.size(); ++i) out << row_text(steps_[i], rows_[i]);
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
  const std::string text = row_text(step, values);
  if (writer_) {
    std::ofstream out(path_, std::ios::app);
    out << text;
    out.close();  // a full disk shows here
    if (!out) throw Error(path_ + ": cannot write");
  }
  keep(step, values, text);
}

void CsvSeries::keep(long step, std::vector<double> values, const std::string& text) {
  text_hashes_.push_back(text_hash(text, text_hashes_.empty() ? text_hash_start : text_hashes_.back()));
  steps_.push_back(step);
  rows_.push_back(std::move(values));
}

CsvRows CsvSeries::rows_up_to(long step) const {
  const long rows = long(std::upper_bound(steps_.begin(), steps_.end(), step) - steps_.begin());
  return {rows, rows > 0 ? text_hashes_[rows - 1] : text_hash_start};
}

}  // namespace boreas
