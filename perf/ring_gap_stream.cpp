// What the ghost ring stored inside each block costs a memory-bound sweep, apart from any LBM
// (perf/README.md, 2026-11-28 noon): 4096 blocks of Q = 19 directions of 64 cells (a 4^3 leaf's
// interior), each direction followed by GAP unused cells (152: the 4^3 ring; 0: interiors packed),
// read, scaled and written to a second array, swapped each sweep, prefetched two blocks ahead as
// the leaf step does.
//   g++ -O3 -march=native perf/ring_gap_stream.cpp -o /tmp/ring_gap_stream && /tmp/ring_gap_stream 152
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

int main(int argc, char** argv) {
  const int Q = 19, interior = 64, gap = argc > 1 ? std::atoi(argv[1]) : 152, blocks = 4096, sweeps = 20;
  const long stride = interior + gap;
  std::vector<double> a(std::size_t(blocks) * Q * stride, 1.0), b(a.size(), 0.0);
  double* src = a.data();
  double* dst = b.data();
  const auto start = std::chrono::steady_clock::now();
  for (int s = 0; s < sweeps; ++s) {
    for (long k = 0; k < blocks; ++k) {
      if (k + 2 < blocks)
        for (int q = 0; q < Q; ++q)
          for (int c = 0; c < interior; c += 8) {
            __builtin_prefetch(src + ((k + 2) * Q + q) * stride + c, 0);
            __builtin_prefetch(dst + ((k + 2) * Q + q) * stride + c, 1);
          }
      for (int q = 0; q < Q; ++q) {
        const double* in = src + (k * Q + q) * stride;
        double* out = dst + (k * Q + q) * stride;
        for (int c = 0; c < interior; ++c) out[c] = in[c] * 0.99 + 0.01;
      }
    }
    std::swap(src, dst);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cells = double(blocks) * interior * sweeps;
  std::printf("gap %d: %.1f million cells per second, %.2f GB/s read + written\n", gap, cells / seconds / 1e6,
              cells * Q * 2 * sizeof(double) / seconds / 1e9);
}
