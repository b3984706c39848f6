// ExactSum (core/ExactSum.hpp): report.json's mass, the AMR mass restoration and the body forces
// rest on its total being the same whatever the order and grouping of its terms, on every
// backend (a GPU's reduction groups terms its own way).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/ExactSum.hpp"
#include "core/Types.hpp"

namespace boreas {
namespace {

ExactSum sequential(const std::vector<double>& terms, bool reversed) {
  ExactSum sum;
  for (std::size_t i = 0; i < terms.size(); ++i) sum.add(terms[reversed ? terms.size() - 1 - i : i]);
  return sum;
}

ExactSum reduced(const std::vector<double>& terms) {
  const DeviceView<double*> values = to_device_view("terms", terms);
  ExactSum sum;
  Kokkos::parallel_reduce(
      "exact sum", Kokkos::RangePolicy<ExecSpace>(0, long(terms.size())),
      KOKKOS_LAMBDA(long i, ExactSum& s) { s.add(values(i)); }, sum);
  return sum;
}

void expect_same_words(const ExactSum& a, const ExactSum& b, const char* what) {
  EXPECT_EQ(a.whole, b.whole) << what;
  EXPECT_EQ(a.high, b.high) << what;
  EXPECT_EQ(a.low, b.low) << what;
  EXPECT_EQ(a.not_finite, b.not_finite) << what;
}

// 2^20 terms k 2^-30 with random integers |k| <= 2^30, and 2^52 and -2^52 among them: the exact
// total (sum k) 2^-30 is a double (|sum k| < 2^53), which the device's reduction and both
// sequential orders must give exactly; a plain double sum loses the fractions added while 2^52
// is in it (ulp 1), so the test tells an exact sum from a double one.
TEST(ExactSum, ReductionGivesTheExactTotal) {
  std::mt19937_64 random(3);
  std::uniform_int_distribution<std::int64_t> k(-(std::int64_t(1) << 30), std::int64_t(1) << 30);
  std::vector<double> terms(1 << 20);
  const std::size_t big = 0, minus_big = terms.size() / 2;
  std::int64_t total = 0;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const std::int64_t v = k(random);
    if (i == big || i == minus_big) {
      terms[i] = i == big ? std::ldexp(1.0, 52) : -std::ldexp(1.0, 52);
      continue;
    }
    total += v;
    terms[i] = std::ldexp(double(v), -30);
  }
  const double exact = std::ldexp(double(total), -30);
  double plain = 0;
  for (double t : terms) plain += t;
  ASSERT_NE(plain, exact) << "a plain double sum must not be exact here";
  EXPECT_EQ(sequential(terms, false).value(), exact);
  EXPECT_EQ(sequential(terms, true).value(), exact);
  EXPECT_EQ(reduced(terms).value(), exact);
}

// Doubles of every magnitude from 1e-12 to 1e9, signs mixed, whose plain double sums differ
// between orders: the device's reduction and both sequential orders hold the same words.
TEST(ExactSum, OrderAndGroupingChangeNoBit) {
  std::mt19937_64 random(17);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-40, 30);
  std::vector<double> terms(1 << 20);
  for (double& t : terms) t = std::ldexp(mantissa(random), exponent(random));
  double forward = 0, backward = 0;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    forward += terms[i];
    backward += terms[terms.size() - 1 - i];
  }
  ASSERT_NE(forward, backward) << "the terms do not tell orders apart";
  const ExactSum a = sequential(terms, false), b = sequential(terms, true), c = reduced(terms);
  expect_same_words(a, b, "reversed");
  expect_same_words(a, c, "device reduction");
  EXPECT_EQ(a.value(), c.value());
}

// A term out of (-2^62, 2^62), or NaN, makes the total NaN, wherever it stands.
TEST(ExactSum, NonFiniteTermsMakeTheTotalNaN) {
  for (const double bad : {std::nan(""), 1e19, -std::numeric_limits<double>::infinity()}) {
    std::vector<double> terms(4096, 0.25);
    terms[1234] = bad;
    EXPECT_TRUE(std::isnan(reduced(terms).value())) << bad;
    EXPECT_TRUE(std::isnan(sequential(terms, true).value())) << bad;
  }
  EXPECT_EQ(reduced(std::vector<double>(4096, 0.25)).value(), 1024.0);
}

// 2^34 terms 1 - 2^-40 (fraction words 2^32 - 1 and 2^32 - 2^24, the most a term near 1 adds),
// summed as a reduction's joins group them (each sum added to itself): the total 2^34 - 2^-6 is a
// double. Without a carry the upper fraction word passed 2^63 after 2^31 such terms (a mass over
// some 2e9 cells of density just under 1) and the total came out wrong.
TEST(ExactSum, ManyTermsNearOneDoNotOverflow) {
  const double term = 1 - std::ldexp(1.0, -40);
  ExactSum sum;
  sum.add(term);
  for (int doubling = 0; doubling < 34; ++doubling) sum += ExactSum(sum);
  EXPECT_EQ(sum.value(), std::ldexp(1.0, 34) - std::ldexp(1.0, -6));
  EXPECT_LT(sum.high, 1LL << 32);
  EXPECT_LT(sum.low, 1LL << 32);
}

}  // namespace
}  // namespace boreas
