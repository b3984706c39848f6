#include "drivers/bench/Roofline.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>

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

template <class Real>
Bandwidth time_copy_kernel(const DeviceView<Real*>& a, const DeviceView<Real*>& b, int repeats) {
  const long elements = long(a.extent(0));
  const auto pass = [=]() {
    Kokkos::parallel_for(
        "boreas::bench::copy", Kokkos::RangePolicy<ExecSpace>(0, elements),
        KOKKOS_LAMBDA(const long i) { b(i) = a(i); });
  };
  return time_passes(pass, 2.0 * sizeof(Real) * elements, repeats);
}
}  // namespace

template <class Real>
Bandwidth copy_bandwidth(long elements, int repeats) {
  DeviceView<Real*> a("copy_a", elements), b("copy_b", elements);
  Kokkos::deep_copy(a, Real(1));
  return time_copy_kernel(a, b, repeats);
}

template <class Real>
CopyBandwidths copy_bandwidths(long elements, int repeats) {
  DeviceView<Real*> a("copy_a", elements), b("copy_b", elements);
  Kokkos::deep_copy(a, Real(1));
  return {time_copy_kernel(a, b, repeats),
          time_passes([=]() { Kokkos::deep_copy(b, a); }, 2.0 * sizeof(Real) * elements, repeats)};
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
