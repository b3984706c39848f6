#include "drivers/RunCheck.hpp"

#include <fstream>
#include <iterator>
#include <limits>

#include "comm/Decomposition.hpp"
#include "comm/Mpi.hpp"
#include "core/Deck.hpp"
#include "core/Error.hpp"
#include "core/MemoryBudget.hpp"
#include "drivers/Checkpointing.hpp"
#include "drivers/Report.hpp"
#include "drivers/Observables.hpp"
#include "io/Checkpoint.hpp"
#include "lbm/scheme/Traversal.hpp"

namespace boreas {

void check_same_deck_on_every_rank(MPI_Comm comm, const Config& config, const std::vector<std::string>& overrides,
                                   const std::string& restart) {
  std::ifstream in(config.deck_path, std::ios::binary);
  // Bytes, each part ended by a NUL (which none holds): no text encoding assumed.
  std::string given{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  given += '\0';
  for (const std::string& o : overrides) given += o + '\0';
  given += restart + '\0';
  for (const Json& o : checkpoint_signature(config)["obstacles"]) given += o.value("file_hash", "") + '\0';
  const std::vector<std::uint64_t> hashes = Comm(comm).allgather(std::vector<std::uint64_t>{text_hash(given)});
  for (std::size_t r = 1; r < hashes.size(); ++r)
    if (hashes[r] != hashes[0])
      throw Error("rank " + std::to_string(r) + " was given another deck than rank 0 (its deck's text, its --set "
                  "or --restart options or the obstacle files the deck names differ): every rank must be given the "
                  "same");
}

void check_file_solids(MPI_Comm comm, const Config& config, const DomainGeometry& domain) {
  const Comm ranks(comm);
  const int finest = config.amr.enabled ? config.amr.max_level : 0;
  for (std::size_t k = 0; k < config.obstacles.size(); ++k) {
    const Obstacle& ob = config.obstacles[k];
    if (ob.invert || (ob.shape != Obstacle::Shape::Surface && ob.shape != Obstacle::Shape::HeightMap)) continue;
    bool solid = false;
    for (int level = 0; level <= finest && !solid; ++level)
      solid = ranks.sum(static_cast<long long>(domain.solid_at_some_centre(k, level, ranks.rank(), ranks.size()))) > 0;
    if (solid) continue;
    const std::string levels =
        finest == 0 ? "" : finest == 1 ? " nor of level 1" : " nor of levels 1 to " + std::to_string(finest);
    throw_deck_error(config, "obstacle[" + std::to_string(k) + "]",
                     "the solid of '" + ob.file + "' holds no cell centre of level 0" + levels +
                         " though its bounding box does: it lies between the centres (thinner than the cell "
                         "spacing, or an open surface that encloses nothing) and would be solid nowhere; "
                         "hint: give it a thickness of at least one cell, refine, or check scale and offset");
  }
}

namespace {

std::string memory_hint(const Config& config) {
  std::string hint = "hint: run on more ranks or nodes, or a smaller domain.cells";
  if (config.precision == Precision::Double) hint += ", or lattice.precision = \"float\"";
  if (!config.kernel.in_place()) hint += ", or an in-place kernel (\"aa\": one lattice)";
  return hint;
}

}  // namespace

void check_run(const Config& config, int ranks, int ranks_on_node) {
  for (const std::string& name : config.observables)
    if (const std::string why = observable_unsuited(config, name); !why.empty())
      throw_deck_error(config, "validation.observables", why);
  const MemoryNeed need = estimate_memory(config, ranks, exec_is_host);
  const std::optional<long long> host = host_memory_available();
  const long long available = host.value_or(0);
  if (host && double(need.host_bytes) * ranks_on_node > double(available))
    throw_deck_error(config, "domain.cells",
                     "the run needs at least " + format_bytes(need.host_bytes) + " of host memory per rank (" +
                         std::to_string(need.cells_per_rank) + " cells per rank on " + std::to_string(ranks) +
                         (ranks == 1 ? " rank" : " ranks") + "), " + format_bytes(need.host_bytes * ranks_on_node) +
                         " for the " + std::to_string(ranks_on_node) + " on this node, which has " +
                         format_bytes(available) + " available; " + memory_hint(config));
  // Per-rank cell counts travel as MPI's int counts (output gathers).
  if (need.cells_per_rank > std::numeric_limits<int>::max())
    throw_deck_error(config, "domain.cells",
                     std::to_string(need.cells_per_rank) + " cells per rank exceed the 2^31 - 1 a rank can hold; run on at least " +
                         std::to_string(need.cells_per_rank * ranks / std::numeric_limits<int>::max() + 1) + " ranks");
  const int per_rank = config.parallel.blocks_per_rank, blocks = ranks * per_rank;
  const std::string block_count =
      std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks") +
      (per_rank > 1 ? " x " + std::to_string(per_rank) + " blocks per rank" : "");
  if (config.parallel.decomposition == DecompositionKind::Bisection) {
    const long long cells = 1LL * config.cells[0] * config.cells[1] * config.cells[2];
    if (cells < blocks)
      throw_deck_error(config, "domain.cells",
                       std::to_string(cells) + " cells cannot be bisected into " + block_count);
    return;
  }
  const std::array<int, 3>& dims = config.parallel.dims;
  if (dims[0] > 0) {
    if (1LL * dims[0] * dims[1] * dims[2] != blocks)
      throw_deck_error(config, "parallel.dims",
                       "[" + std::to_string(dims[0]) + ", " + std::to_string(dims[1]) + ", " + std::to_string(dims[2]) +
                           "] makes " + std::to_string(1LL * dims[0] * dims[1] * dims[2]) +
                           " blocks, the run has " + block_count);
    return;
  }
  try {
    cartesian_dims(config.cells, blocks, config.dimensions());
  } catch (const Error& e) {
    throw_deck_error(config, "domain.cells", e.what());
  }
}

DeviceShare device_share(MPI_Comm comm) {
  DeviceShare share;
  share.free = device_memory_available();
  // Every rank of a device backend (the collective may not depend on one rank's reading).
  if (!exec_is_host) share.ranks = int(node_sum(comm, 1, device_identity()));
  return share;
}

namespace {
// ", 4.8 GiB for the 4 ranks sharing the device" where ranks share it (nothing for one).
std::string shared_device_need(long long together, int ranks) {
  return ranks > 1 ? ", " + format_bytes(together) + " for the " + std::to_string(ranks) + " ranks sharing the device"
                   : std::string();
}
}  // namespace

void check_device_memory(const Config& config, int ranks, const DeviceShare& device) {
  if (!device.free) return;
  const MemoryNeed need = estimate_memory(config, ranks, false);
  // This rank's need (the largest rank's, as every rank decides alike) and the smallest share of
  // the cells for each other rank on the device: never more than they need together.
  long long cells = 1;
  for (int d = 0; d < 3; ++d) cells *= config.cells[d];
  const long long per_cell = need.cells_per_rank > 0 ? need.device_bytes / need.cells_per_rank : 0;
  const long long together = need.device_bytes + (device.ranks - 1) * per_cell * (cells / ranks);
  if (double(together) > double(*device.free))
    throw_deck_error(config, "domain.cells",
                     "the run needs at least " + format_bytes(need.device_bytes) + " of device memory per rank (" +
                         std::to_string(need.cells_per_rank) + " cells per rank)" +
                         shared_device_need(together, device.ranks) + ", the device has " +
                         format_bytes(*device.free) + " free; " + memory_hint(config));
}

std::string amr_memory_shortfall(const Config& config, long long blocks, int ranks, int ranks_on_node,
                                 const DeviceShare& device) {
  const long long n = config.amr.leaf_size, side = n + 2, cells = config.dimensions() == 2 ? side * side : side * side * side;
  const long long interior = config.dimensions() == 2 ? n * n : n * n * n;
  const long long lattice = cells * lattice_directions(config.lattice) * (config.precision == Precision::Float ? 4 : 8);
  // The leaves always pull, on two lattices (amr/AmrLattice.hpp), whatever simulation.kernel says;
  // the convergence monitor keeps a velocity per interior cell of a leaf (counted for every block),
  // [statistics] their averages, counted for the fewest leaves a forest of `blocks` has (each
  // refined block has 2^D children: at least blocks - (blocks - 1) / 2^D of them are leaves).
  const long long children = config.dimensions() == 2 ? 4 : 8;
  const long long leaves = config.statistics.enabled ? blocks - (blocks - 1) / children : 0;
  const long long whole = ranks > 1 ? 3 * blocks * lattice : 0;
  const auto holding = [&](long long held_blocks) {
    return held_blocks * (cells * device_bytes_per_cell(config, Scheme{}) + interior * monitor_bytes_per_cell) +
           leaves / ranks * interior * statistics_bytes_per_cell + whole;
  };
  // This rank's need (the most blocks a rank holds, as every rank decides alike) and the fewest
  // for each other rank sharing the memory: never more than they need together.
  const long long per_rank = holding((blocks + ranks - 1) / ranks);
  const std::optional<long long>& device_free = device.free;
  const int sharing = device_free ? device.ranks : ranks_on_node;  // the ranks the memory is shared by
  const long long together = per_rank + (sharing - 1) * holding(blocks / ranks);
  const std::optional<long long> free = device_free ? device_free : host_memory_available();
  if (!free || double(together) <= double(*free)) return {};
  const long long available = *free;
  return "the forest holds " + std::to_string(blocks) + " blocks of " + std::to_string(cells) +
         " cells (ghost ring included); the run needs at least " + format_bytes(per_rank) + " of " +
         (device_free ? "device memory per rank" : "host memory per rank") +
         (whole > 0 ? " (" + format_bytes(whole) + " of it 3 lattices of the whole forest, which every rank holds)" : "") +
         (device_free ? shared_device_need(together, sharing) + ", the device has " + format_bytes(available) + " free"
                      : ", " + format_bytes(together) + " for the " + std::to_string(sharing) +
                            " on this node, which has " + format_bytes(available) + " available");
}

void check_amr_memory(const Config& config, long long blocks, int ranks, int ranks_on_node, const DeviceShare& device) {
  const std::string shortfall = amr_memory_shortfall(config, blocks, ranks, ranks_on_node, device);
  if (shortfall.empty()) return;
  std::string hint = "hint: fewer or smaller [[amr.region]]s, a lower amr.max_level, more nodes";
  if (config.precision == Precision::Double) hint += ", or lattice.precision = \"float\"";
  throw_deck_error(config, "amr.max_level", shortfall + "; " + hint);
}

std::vector<std::string> backend_warnings(const Config& config, bool device_backend) {
  std::vector<std::string> warnings;
  const StreamingKernel kind = config.kernel.kind;
  if (device_backend && (kind == StreamingKernel::Swap || kind == StreamingKernel::SwapPrism))
    warnings.push_back("simulation.kernel = \"" + scheme_name(config.kernel) +
                       "\" sweeps the rows in ordered waves, one GPU thread per row: on a GPU it runs "
                       "hundreds of times slower than \"aa\" (12 against 5,659 MLUPS, D3Q19 double at 256^3 "
                       "on an H100), which needs the same single lattice");
  return warnings;
}

}  // namespace boreas
