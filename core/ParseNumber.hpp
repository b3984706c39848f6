#pragma once
// Numbers read back from text files (STL, height maps, a restarted run's probes.csv and .pvd):
// the whole token must be one number. strtod/strtol rather than std::stod/std::stol, which throw
// on a malformed token (an exception without the file and line the caller names) and std::stod on
// a subnormal value, which Boreas's own output may hold.
#include <cerrno>
#include <cstdlib>
#include <string>

namespace boreas {

// A finite or non-finite double, subnormals included; false if `token` is not exactly one number.
inline bool parse_double(const std::string& token, double& value) {
  const char* begin = token.c_str();
  char* end = nullptr;
  value = std::strtod(begin, &end);
  return end != begin && *end == '\0';
}

// A decimal integer that a long holds; false if `token` is not one, or overflows.
inline bool parse_long(const std::string& token, long& value) {
  const char* begin = token.c_str();
  char* end = nullptr;
  errno = 0;
  value = std::strtol(begin, &end, 10);
  return end != begin && *end == '\0' && errno != ERANGE;
}

}  // namespace boreas
