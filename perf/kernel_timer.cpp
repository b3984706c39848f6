// Wall time per Kokkos kernel name, through Kokkos' profiling hooks: what a category of
// report.json's timing_s (LBM, AMR interpolation, ...) is made of. Build and use:
//   g++ -O2 -shared -fPIC perf/kernel_timer.cpp -o /tmp/libkernel_timer.so
//   KOKKOS_PROFILE_LIBRARY=/tmp/libkernel_timer.so build/openmp/bin/boreas DECK -q
// At exit it prints to stderr the 20 kernels (parallel_for and parallel_reduce) that took longest,
// with their call counts. A kernel's time runs from its launch to the next hook of the same kernel
// returning, so on asynchronous backends (CUDA) it counts launches, not work, unless the code
// fences after it; on host backends it is the work.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace {
using Clock = std::chrono::steady_clock;
std::map<std::uint64_t, std::pair<std::string, Clock::time_point>> running;
std::map<std::string, std::pair<double, long>> totals;  // name: seconds, calls
std::uint64_t next_id = 0;

void begin(const char* name, std::uint64_t* id) {
  *id = next_id++;
  running[*id] = {name, Clock::now()};
}

void end(std::uint64_t id) {
  const auto it = running.find(id);
  if (it == running.end()) return;
  auto& total = totals[it->second.first];
  total.first += std::chrono::duration<double>(Clock::now() - it->second.second).count();
  ++total.second;
  running.erase(it);
}
}  // namespace

extern "C" {
void kokkosp_init_library(int, std::uint64_t, std::uint32_t, void*) {}
void kokkosp_begin_parallel_for(const char* name, std::uint32_t, std::uint64_t* id) { begin(name, id); }
void kokkosp_end_parallel_for(std::uint64_t id) { end(id); }
void kokkosp_begin_parallel_reduce(const char* name, std::uint32_t, std::uint64_t* id) { begin(name, id); }
void kokkosp_end_parallel_reduce(std::uint64_t id) { end(id); }
void kokkosp_finalize_library() {
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& [name, total] : totals) ranked.push_back({total.first, name + " (" + std::to_string(total.second) + " calls)"});
  std::sort(ranked.rbegin(), ranked.rend());
  std::fprintf(stderr, "kernel_timer: seconds per Kokkos kernel\n");
  for (std::size_t i = 0; i < std::min<std::size_t>(20, ranked.size()); ++i)
    std::fprintf(stderr, "%10.3f  %s\n", ranked[i].first, ranked[i].second.c_str());
}
}
