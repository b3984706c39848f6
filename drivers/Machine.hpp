#pragma once
// What machine a run is on, for records (boreas-bench) and for keys (kernel = "auto" cache).
#include <string>

namespace boreas {

std::string cpu_model();           // /proc/cpuinfo "model name", or "unknown"
std::string device_description();  // the CPU on host backends, the selected device on GPUs
std::string hostname();
std::string utc_now();             // ISO 8601, seconds

}  // namespace boreas
