#pragma once
// Wall-clock accounting per category (the papers' LBM / boundaries / MPI / output / others),
// each interval also a Kokkos profiling region so that external tools see the same split.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace boreas {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Median of repeated timings (the mean of the middle two for an even count; 0 for none).
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// A Kokkos profiling region for the lifetime of the object (Kokkos 4's ScopedRegion, which 3.4
// lacks): tools see the phases of an exchange and the categories of a run by name.
class ProfilingRegion {
 public:
  explicit ProfilingRegion(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~ProfilingRegion() { Kokkos::Profiling::popRegion(); }
  ProfilingRegion(const ProfilingRegion&) = delete;
  ProfilingRegion& operator=(const ProfilingRegion&) = delete;
};

class Timers {
 public:
  class Scope {
   public:
    Scope(Timers& t, const std::string& category) : t_(t), category_(category) {
      Kokkos::Profiling::pushRegion("boreas::" + category);
      start_ = std::chrono::steady_clock::now();
    }
    ~Scope() {
      Kokkos::fence();  // kernels are asynchronous: charge them to the category that launched them
      t_.seconds_[category_] += seconds_since(start_);
      Kokkos::Profiling::popRegion();
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Timers& t_;
    std::string category_;
    std::chrono::steady_clock::time_point start_;
  };

  Scope scope(const std::string& category) { return Scope(*this, category); }
  void add(const std::string& category, double seconds) { seconds_[category] += seconds; }
  double get(const std::string& category) const {
    auto it = seconds_.find(category);
    return it == seconds_.end() ? 0.0 : it->second;
  }

 private:
  std::map<std::string, double> seconds_;
};

}  // namespace boreas
