#include "drivers/Machine.hpp"

#include <Kokkos_Core.hpp>
#include <unistd.h>

#include <ctime>
#include <fstream>
#include <sstream>

#include "core/Types.hpp"

namespace boreas {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

// The execution space's own description of the device it selected (GPU backends).
std::string device_description() {
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, ExecSpace::memory_space>::accessible)
    return cpu_model();
  std::ostringstream os;
  ExecSpace().print_configuration(os, true);
  std::istringstream lines(os.str());
  std::string line;
  while (std::getline(lines, line))
    if (line.find("Selected") != std::string::npos) return line;
  return ExecSpace::name();
}

std::string hostname() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

std::string utc_now() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace boreas
