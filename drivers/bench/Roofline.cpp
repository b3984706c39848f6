#include "drivers/bench/Roofline.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <utility>

#include "core/Timers.hpp"
#include "core/Types.hpp"

namespace boreas::bench {

namespace {
template <class Kernel>
Bandwidth time_passes(const Kernel& pass, double bytes_per_pass, int repeats) {
  pass();  // first touch and warm-up
  Kokkos::fence();
  Bandwidth bw;
  for (int r = 0; r < repeats; ++r) {
    Kokkos::Timer timer;
    pass();
    Kokkos::fence();
    bw.all_gbs.push_back(bytes_per_pass / timer.seconds() / 1e9);
  }
  bw.median_gbs = median(bw.all_gbs);
  return bw;
}

// Each work item copies kCopyLanes elements a quarter of the array apart, all loaded before any
// is stored: a GPU thread then keeps four loads in flight, where one element per thread left an
// H100 / H200 at 0.42 of cudaMemcpy's bandwidth (bound by the bytes in flight, so float ran at half
// double's GB/s); on a CPU thread the four are four unit-stride streams. The arrays hold a whole
// number of lanes (copy_arrays), so that no item tests a bound.
constexpr long kCopyLanes = 4;

template <class Real>
Bandwidth time_copy_kernel(const DeviceView<Real*>& a, const DeviceView<Real*>& b, int repeats) {
  const long elements = long(a.extent(0)), lane = elements / kCopyLanes;
  const auto pass = [=]() {
    Kokkos::parallel_for(
        "boreas::bench::copy", Kokkos::RangePolicy<ExecSpace>(0, lane), KOKKOS_LAMBDA(const long i) {
          Real v[kCopyLanes];
          for (long k = 0; k < kCopyLanes; ++k) v[k] = a(i + k * lane);
          for (long k = 0; k < kCopyLanes; ++k) b(i + k * lane) = v[k];
        });
  };
  return time_passes(pass, 2.0 * sizeof(Real) * elements, repeats);
}

// Source (all ones) and destination of at least `elements` reals, a whole number of copy lanes.
template <class Real>
std::pair<DeviceView<Real*>, DeviceView<Real*>> copy_arrays(long elements) {
  const long padded = (elements + kCopyLanes - 1) / kCopyLanes * kCopyLanes;
  DeviceView<Real*> a("copy_a", padded), b("copy_b", padded);
  Kokkos::deep_copy(a, Real(1));
  return {a, b};
}
}  // namespace

template <class Real>
Bandwidth copy_bandwidth(long elements, int repeats) {
  const auto arrays = copy_arrays<Real>(elements);
  return time_copy_kernel(arrays.first, arrays.second, repeats);
}

template <class Real>
CopyBandwidths copy_bandwidths(long elements, int repeats) {
  const auto arrays = copy_arrays<Real>(elements);
  const DeviceView<Real*> a = arrays.first, b = arrays.second;
  return {time_copy_kernel(a, b, repeats),
          time_passes([=]() { Kokkos::deep_copy(b, a); }, 2.0 * sizeof(Real) * a.extent(0), repeats)};
}

template <class Real>
Bandwidth inplace_bandwidth(long elements_per_stream, int streams, int repeats) {
  // Streams padded to whole 4 KiB pages plus one cache line, as DenseField staggers direction
  // planes: power-of-two strides would put all streams in the same cache sets.
  const long line = 64 / sizeof(Real), page = 4096 / sizeof(Real);
  const long stride = (elements_per_stream + page - 1) / page * page + line;
  DeviceView<Real*> a("inplace_streams", stride * streams);
  Kokkos::deep_copy(a, Real(1));
  // -1 keeps the values bounded and exact over any number of passes.
  const Real s = Real(-1);
  const auto pass = [=]() {
    Kokkos::parallel_for(
        "boreas::bench::inplace", Kokkos::RangePolicy<ExecSpace>(0, elements_per_stream),
        KOKKOS_LAMBDA(const long i) {
          for (int q = 0; q < streams; ++q) a(q * stride + i) = s * a(q * stride + i);
        });
  };
  return time_passes(pass, 2.0 * sizeof(Real) * elements_per_stream * streams, repeats);
}

template Bandwidth copy_bandwidth<double>(long, int);
template Bandwidth copy_bandwidth<float>(long, int);
template CopyBandwidths copy_bandwidths<double>(long, int);
template CopyBandwidths copy_bandwidths<float>(long, int);
template Bandwidth inplace_bandwidth<double>(long, int, int);
template Bandwidth inplace_bandwidth<float>(long, int, int);

}  // namespace boreas::bench
