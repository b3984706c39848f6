#pragma once

namespace boreas {

// What an exchange moves, by the storage state of the scheme (lbm/scheme/StreamedLayout.hpp):
//   Pull          ghost slot (q, g) <- owner's slot (q, g): the populations the next pull step
//                 reads (ab_pull, merged<k>; crossing_populations)
//   PullReversed  the same links in the reversed layout, slot opposite(q) on both sides (AA after
//                 its local step: the neighbour step gathers through the ghosts)
//   Push          owner's slot (q, g) <- ghost slot (q, g): what a push-type step wrote into ghost
//                 cells (ab_push, AA's neighbour step, a streamed state just loaded;
//                 pushed_populations)
//   Swap          a swap sweep's open links across ranks, for each backward member a
//                 (swap_backward) with b = opposite(a): cell M of this rank left f*_a(M) in the
//                 ghost slot (a, P) of its earlier neighbour P = M + c_a, and P's owner parked
//                 f*_b(P) in its own slot (a, P). Both values cross: the owner's slot (a, P) takes
//                 the ghost's value and M's slot (b, M) the parked one (sends are packed before
//                 anything is unpacked). A self copy first leaves the parked value in the owner's
//                 ghost slot (b, P + c_b) too, where the streamed readout looks for f*_b(P).
// Ghosts that mirror the block's own cells are self copies in Pull plans; the in-place and push
// steps complete those links themselves.
enum class HaloTransfer { Pull, PullReversed, Push, Swap };

}  // namespace boreas
