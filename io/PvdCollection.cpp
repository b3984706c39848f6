#include "io/PvdCollection.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <system_error>

#include "core/Error.hpp"
#include "core/ParseNumber.hpp"

namespace fs = std::filesystem;

namespace boreas {

namespace {

// The shortest text that reads back as the same double (the .pvd's time values).
std::string shortest(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string xml_unescape(const std::string& in) {
  static const std::pair<const char*, char> entities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  std::string out;
  for (std::size_t i = 0; i < in.size();) {
    bool matched = false;
    for (const auto& [name, c] : entities)
      if (in.compare(i, std::char_traits<char>::length(name), name) == 0) {
        out += c;
        i += std::char_traits<char>::length(name);
        matched = true;
        break;
      }
    if (!matched) out += in[i++];
  }
  return out;
}

}  // namespace

void write_text_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot open " + tmp + " for writing");
    out << text;
    out.close();  // a full disk may show only here
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw Error("error writing " + tmp + " (full disk?)");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw Error("cannot rename " + tmp + " to " + path + ": " + ec.message());
}

std::string xml_escape(const std::string& in) {
  std::string out;
  for (char c : in) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

const char* byte_order() {
  const std::uint16_t probe = 1;
  return *reinterpret_cast<const unsigned char*>(&probe) == 1 ? "LittleEndian" : "BigEndian";
}

void PvdCollection::add(double time, const std::string& file) {
  if (!entries_.empty() && entries_.back().second == file) entries_.back().first = time;  // same step again
  else entries_.emplace_back(time, file);
  std::ostringstream x;
  x << "<?xml version=\"1.0\"?>\n"
    << "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"" << byte_order() << "\">\n"
    << "  <Collection>\n";
  for (const auto& [t, f] : entries_)
    x << "    <DataSet timestep=\"" << shortest(t) << "\" group=\"\" part=\"0\" file=\"" << xml_escape(f) << "\"/>\n";
  x << "  </Collection>\n"
    << "</VTKFile>\n";
  write_text_atomically(path_, x.str());
}

std::string PvdCollection::resume(double time, bool written) {
  entries_.clear();
  if (!fs::exists(path_))
    return !written ? "" : path_ + " did not exist when the run restarted at timestep " + shortest(time) +
           ": it lists only the outputs from there (restart into the earlier run's output directory to continue "
           "its series)";
  std::ifstream in(path_);
  if (!in) throw Error("cannot read " + path_);
  static const std::regex dataset("<DataSet timestep=\"([^\"]*)\"[^>]* file=\"([^\"]*)\"");
  std::string line;
  std::smatch m;
  for (long number = 1; std::getline(in, line); ++number)
    if (std::regex_search(line, m, dataset)) {
      double t = 0;
      if (!parse_double(m[1].str(), t))
        throw Error(path_ + ": line " + std::to_string(number) + ": timestep \"" + m[1].str() +
                    "\" is not a number; move the file away to restart without its list of earlier outputs");
      if (t <= time) entries_.emplace_back(t, xml_unescape(m[2].str()));
    }
  // ParaView stops at an entry whose file is gone.
  std::vector<std::string> gone;
  const fs::path directory = fs::path(path_).parent_path();
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                [&](const auto& e) {
                                  std::error_code ec;
                                  const bool missing = !fs::exists(directory / e.second, ec);
                                  if (missing) gone.push_back(e.second);
                                  return missing;
                                }),
                 entries_.end());
  if (gone.empty()) return "";
  return path_ + " listed " + std::to_string(gone.size()) + (gone.size() == 1 ? " output" : " outputs") +
         " up to the restart whose files are gone (" + gone.front() + (gone.size() > 1 ? ", ..." : "") +
         "): dropped from its list";
}

}  // namespace boreas
