// Comm's byte collectives carry any size: past MPI's int counts they go in several calls. The
// limit is lowered here (a few bytes) so that the split paths run on small data: what arrives must
// be every byte sent, in rank order, as a single call delivers it.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

#include "comm/Mpi.hpp"

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

TEST(Collectives, BroadcastInPiecesGivesRankZerosBytes) {
  Comm comm(MPI_COMM_WORLD);
  const std::vector<unsigned char> sent = bytes_of(2);
  const std::string text = "rank zero's text, 29 bytes.";
  for (long long limit : {1LL, 4LL, 1000LL}) {
    EXPECT_EQ(comm.broadcast(comm.rank() == 0 ? sent : std::vector<unsigned char>{}, limit), sent) << limit;
    EXPECT_EQ(comm.broadcast(comm.rank() == 0 ? text : std::string("other"), limit), text) << limit;
  }
}

}  // namespace
}  // namespace boreas
