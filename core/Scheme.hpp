#pragma once
// The streaming variant a deck names in [simulation] kernel, parsed once into a kind and the steps
// it merges per sweep. Every decision about the variant (lattices, exchanges, sweeps, memory)
// reads this, never the name.
#include <optional>
#include <string>
#include <vector>

namespace boreas {

enum class StreamingKernel { ABPull, ABPush, AA, Swap, SwapPrism, Merged, MergedAA, Auto };

struct Scheme {
  StreamingKernel kind = StreamingKernel::ABPull;
  int steps = 1;  // per sweep: k of merged<k> and merged_aa<k>, 1 otherwise

  // One lattice updated in place (AA and swap families).
  bool in_place() const {
    return kind == StreamingKernel::AA || kind == StreamingKernel::MergedAA || kind == StreamingKernel::Swap ||
           kind == StreamingKernel::SwapPrism;
  }
  // A step can be computed in any partition of the owned box (StreamingScheme::step_part): what
  // the overlap strategies need. Sweeps of whole blocks (merged, swap families) cannot.
  bool steps_in_parts() const {
    return kind == StreamingKernel::ABPull || kind == StreamingKernel::ABPush || kind == StreamingKernel::AA;
  }
  bool operator==(const Scheme& o) const { return kind == o.kind && steps == o.steps; }
};

// The names of the variants ("auto" not among them).
const std::vector<std::string>& known_kernels();

// The scheme a name stands for ("auto" included); nullopt for an unknown name.
std::optional<Scheme> parse_scheme(const std::string& name);
std::string scheme_name(const Scheme& scheme);

}  // namespace boreas
