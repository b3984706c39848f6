// Comm's byte collectives carry any size: past MPI's int counts they go in several calls; a
// point-to-point message goes as one element of a derived type. The limit is lowered here (a few
// bytes) so that those paths run on small data: what arrives must be every byte sent, in rank
// order, as a single call delivers it.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <string>
#include <vector>

#include "comm/Mpi.hpp"
#include "core/ExactSum.hpp"

namespace boreas {
namespace {

// Rank r's bytes: an uneven count per rank (rank 1 none), each byte naming its rank and place.
std::vector<unsigned char> bytes_of(int rank) {
  std::vector<unsigned char> v(rank == 1 ? 0 : 5 + 7 * rank);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<unsigned char>(31 * rank + i);
  return v;
}

TEST(Collectives, AllgatherInRoundsGivesEveryRanksBytesInOrder) {
  Comm comm(MPI_COMM_WORLD);
  std::vector<unsigned char> expected;
  for (int r = 0; r < comm.size(); ++r) {
    const std::vector<unsigned char> v = bytes_of(r);
    expected.insert(expected.end(), v.begin(), v.end());
  }
  const std::vector<unsigned char> mine = bytes_of(comm.rank());
  EXPECT_EQ(comm.allgather(mine), expected);
  for (long long limit : {1LL, 3LL, 8LL, 13LL}) EXPECT_EQ(comm.allgather(mine, limit), expected) << limit;
}

// The memory checks count the ranks that share a GPU by its UUID (drivers/RunCheck.hpp
// device_share): a node sum over the ranks whose group is this rank's (all ranks run on this node
// here; groups by parity, one of them a long name, compared whole up to 63 bytes).
TEST(Collectives, NodeSumOverTheRanksOfOneGroup) {
  Comm comm(MPI_COMM_WORLD);
  const std::string odd(80, 'x'), even = "5f1a3c2e9b7d4e60a1b2c3d4e5f60718";
  const int rank = comm.rank();
  long long expected = 0;
  for (int r = 0; r < comm.size(); ++r)
    if (r % 2 == rank % 2) expected += r + 1;
  EXPECT_EQ(node_sum(MPI_COMM_WORLD, rank + 1, rank % 2 ? odd : even), expected);
  EXPECT_EQ(node_sum(MPI_COMM_WORLD, rank + 1), comm.size() * (comm.size() + 1) / 2);
}

// Each rank sums 2^31 terms 1 - 2^-40 (built by joins, as a reduction groups them; on 3 ranks
// the upper fraction words of the ranks' sums add past 2^63): every rank gets the exact total
// ranks x (2^31 - 2^-9), a double, as report.json's mass of a run of that many cells would be.
TEST(Collectives, ExactSumsOfManyRanksDoNotOverflow) {
  Comm comm(MPI_COMM_WORLD);
  ExactSum mine;
  mine.add(1 - std::ldexp(1.0, -40));
  for (int doubling = 0; doubling < 31; ++doubling) mine += ExactSum(mine);
  const double expected = comm.size() * (std::ldexp(1.0, 31) - std::ldexp(1.0, -9));
  EXPECT_EQ(comm.sum(mine), expected);
  EXPECT_EQ(comm.sum(std::vector<ExactSum>{mine, mine}), std::vector<double>(2, expected));
}

TEST(Collectives, BroadcastInPiecesGivesRankZerosBytes) {
  Comm comm(MPI_COMM_WORLD);
  const std::vector<unsigned char> sent = bytes_of(2);
  const std::string text = "rank zero's text, 29 bytes.";
  for (long long limit : {1LL, 4LL, 1000LL}) {
    EXPECT_EQ(comm.broadcast(comm.rank() == 0 ? sent : std::vector<unsigned char>{}, limit), sent) << limit;
    EXPECT_EQ(comm.broadcast(comm.rank() == 0 ? text : std::string("other"), limit), text) << limit;
  }
}

// Each rank sends its successor a message of 4,099 bytes (and one of none) with the given limits on
// either side: the derived type of a split message and plain bytes are the same bytes to MPI.
TEST(Collectives, PointToPointMessagesPastTheLimitArriveWhole) {
  Comm comm(MPI_COMM_WORLD);
  const int to = (comm.rank() + 1) % comm.size(), from = (comm.rank() + comm.size() - 1) % comm.size();
  std::vector<unsigned char> sent(4099);
  for (std::size_t i = 0; i < sent.size(); ++i) sent[i] = static_cast<unsigned char>(i * 7 + comm.rank());
  for (long long send_limit : {1000LL, 4099LL, Comm::max_mpi_count})
    for (long long receive_limit : {Comm::max_mpi_count, 3LL, 4098LL}) {
      std::vector<unsigned char> received(sent.size() + 1, 0), nothing(1, 0);
      MPI_Request r[4] = {comm.irecv(received.data(), long(sent.size()), from, 7, receive_limit),
                          comm.irecv(nothing.data(), 0, from, 8, receive_limit),
                          comm.isend(sent.data(), long(sent.size()), to, 7, send_limit),
                          comm.isend(sent.data(), 0, to, 8, send_limit)};
      MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
      for (std::size_t i = 0; i < sent.size(); ++i)
        ASSERT_EQ(received[i], static_cast<unsigned char>(i * 7 + from)) << i << " limits " << send_limit << " " << receive_limit;
      EXPECT_EQ(received.back(), 0) << "a byte past the message was written";
    }
}

}  // namespace
}  // namespace boreas
