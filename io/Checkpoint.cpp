#include "io/Checkpoint.hpp"
#include "io/BoxFile.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include <fcntl.h>
#include <unistd.h>

#include "core/Error.hpp"
#include "core/Mix64.hpp"

namespace boreas {

namespace {

namespace fs = std::filesystem;

constexpr char magic[8] = {'B', 'O', 'R', 'E', 'A', 'S', 'C', 'K'};
constexpr std::uint64_t fnv_prime = 1099511628211ull;
constexpr long alignment = 4096;
constexpr int prefix_bytes = 24;  // magic, header length, header hash
// The JSON header's largest size, written and read (an AMR forest's refined blocks are listed
// there, ~16 bytes each); the reader allocates no more than this for a damaged length.
constexpr std::uint64_t max_header_bytes = std::uint64_t(1) << 30;

constexpr int checkpoint_version = 1;

const char* native_byte_order() {
  const std::uint16_t one = 1;
  unsigned char first = 0;
  std::memcpy(&first, &one, 1);
  return first == 1 ? "little" : "big";
}

// Whether a header (its hash already matched) holds what the reader takes from it, of the types
// it reads: the signature, three positive int sizes, positive int cell bytes, the data's offset
// and length (non-negative), its hash and, where given, its byte order. (The sizes are then
// checked against the deck's and the file's, and the data against the hash.)
bool header_complete(const Json& meta) {
  const Json* format = member(meta, "format");
  const Json* cells = member(meta, "cells");
  const Json* cell_bytes = member(meta, "cell_bytes");
  const Json* offset = member(meta, "data_offset");
  const Json* bytes = member(meta, "data_bytes");
  const Json* hash = member(meta, "data_hash");
  const Json* order = member(meta, "byte_order");
  const auto positive_int = [](const Json& n) {
    return n.is_number_integer() && n.get<long long>() >= 1 && n.get<long long>() <= std::numeric_limits<int>::max();
  };
  const auto non_negative = [](const Json* n) { return n && n->is_number_integer() && n->get<long long>() >= 0; };
  return format && *format == "boreas-checkpoint" && cells && cells->is_array() && cells->size() == 3 &&
         std::all_of(cells->begin(), cells->end(), positive_int) && cell_bytes && positive_int(*cell_bytes) &&
         non_negative(offset) && non_negative(bytes) && hash && hash->is_number_unsigned() &&
         (!order || (order->is_string() && (*order == "little" || *order == "big")));
}

void put_u64(char* at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) at[i] = char((v >> (8 * i)) & 0xff);
}
std::uint64_t get_u64(const char* at) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t(static_cast<unsigned char>(at[i])) << (8 * i);
  return v;
}

// A cell's global index and bytes mixed 8 bytes at a time; cells combine by a (wrapping) sum, so
// the order and the ranks that hold them do not matter.
std::uint64_t cell_hash(std::uint64_t global, const unsigned char* bytes, int n) {
  std::uint64_t h = splitmix_finalise(global);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, bytes + i, 8);
    h = splitmix_finalise(h ^ word);
  }
  if (i < n) {
    std::uint64_t word = 0;
    std::memcpy(&word, bytes + i, std::size_t(n - i));
    h = splitmix_finalise(h ^ word);
  }
  return h;
}

std::uint64_t pieces_hash(const std::vector<BoxBytes>& pieces, const std::array<int, 3>& cells, int cell_bytes) {
  std::uint64_t h = 0;
  for (const BoxBytes& b : pieces) {
    const unsigned char* v = b.values.data();
    for (int z = b.lo[2]; z < b.hi[2]; ++z)
      for (int y = b.lo[1]; y < b.hi[1]; ++y)
        for (int x = b.lo[0]; x < b.hi[0]; ++x, v += cell_bytes)
          h += cell_hash((static_cast<std::uint64_t>(z) * cells[1] + y) * cells[0] + x, v, cell_bytes);
  }
  return h;
}

// agree(), and where any rank failed, `tmp` (a partial file nothing else would remove) removed.
void agree_or_remove(MPI_Comm comm, const std::string& error, const std::string& tmp) {
  try {
    agree(comm, error);
  } catch (const Error&) {
    std::error_code ec;
    if (!tmp.empty()) fs::remove(tmp, ec);
    throw;
  }
}

void fsync_directory(const fs::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

std::uint64_t text_hash(const std::string& text, std::uint64_t state) {
  std::uint64_t h = state;
  for (unsigned char c : text) h = (h ^ c) * fnv_prime;
  return h;
}

void write_checkpoint(MPI_Comm comm, const std::string& path, Json meta, const std::array<int, 3>& cells,
                      int cell_bytes, const std::vector<BoxBytes>& pieces) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::uint64_t local_hash = pieces_hash(pieces, cells, cell_bytes), hash = 0;
  MPI_Allreduce(&local_hash, &hash, 1, MPI_UINT64_T, MPI_SUM, comm);
  const long long data_bytes = static_cast<long long>(cells[0]) * cells[1] * cells[2] * cell_bytes;
  meta["format"] = "boreas-checkpoint";
  meta["version"] = checkpoint_version;
  meta["cells"] = cells;
  meta["cell_bytes"] = cell_bytes;
  meta["data_bytes"] = data_bytes;
  meta["data_hash"] = hash;
  meta["byte_order"] = native_byte_order();
  // The header's length does not depend on data_offset's digits as long as the offset is set
  // before the final dump: reserve it first.
  meta["data_offset"] = 0;
  // Text that is not UTF-8 (a deck's path) is written with replacement characters, not refused.
  const auto text_of = [](const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); };
  const long long header_end = prefix_bytes + static_cast<long long>(text_of(meta).size()) + 32;
  meta["data_offset"] = (header_end + alignment - 1) / alignment * alignment;
  const std::string header = text_of(meta);
  const long long data_offset = meta["data_offset"].get<long long>();

  const std::string tmp = path + ".tmp";
  std::string error;
  if (header.size() > max_header_bytes)
    error = path + ": the checkpoint's header would hold " + std::to_string(header.size()) + " bytes, more than the " +
            std::to_string(max_header_bytes) + " a restart reads (too many refined blocks)";
  agree(comm, error);
  if (rank == 0) {
    std::error_code ec;
    const fs::path dir = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
    fs::create_directories(dir, ec);
    if (ec) {
      error = dir.string() + ": cannot create the checkpoint directory: " + ec.message();
    } else {
      fs::remove(tmp, ec);
      if (ec) error = tmp + ": cannot remove a stale temporary file: " + ec.message();
    }
  }
  agree(comm, error);
  MPI_File file = open_file(comm, tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY, "cannot create the checkpoint");
  int rc = MPI_SUCCESS;

  if (rank == 0) {
    std::vector<char> head(static_cast<std::size_t>(data_offset), 0);
    std::memcpy(head.data(), magic, 8);
    put_u64(head.data() + 8, header.size());
    put_u64(head.data() + 16, text_hash(header));
    std::memcpy(head.data() + prefix_bytes, header.data(), header.size());
    MPI_Status status;
    rc = MPI_File_write_at(file, 0, head.data(), int(head.size()), MPI_BYTE, &status);
    int written = 0;
    if (rc == MPI_SUCCESS) MPI_Get_count(&status, MPI_BYTE, &written);
    if (rc != MPI_SUCCESS)
      error = tmp + ": cannot write the header: " + mpi_error(rc);
    else if (written != int(head.size()))
      error = tmp + ": cannot write the header (" + std::to_string(written) + " of " + std::to_string(head.size()) +
              " bytes written; is the disk full?)";
  }
  if (const std::string e = write_boxes(file, data_offset, cells, cell_bytes, pieces); !e.empty() && error.empty())
    error = tmp + ": cannot write the populations: " + e;
  rc = MPI_File_sync(file);
  if (rc != MPI_SUCCESS && error.empty()) error = tmp + ": cannot flush to disk: " + mpi_error(rc);
  rc = MPI_File_close(&file);
  if (rc != MPI_SUCCESS && error.empty()) error = tmp + ": cannot close: " + mpi_error(rc);
  // What is on disk decides, not the calls' codes alone: a short file never replaces a good one.
  std::error_code ec;
  if (rank == 0 && error.empty()) {
    const auto size = fs::file_size(tmp, ec);
    if (ec)
      error = tmp + ": cannot stat the written checkpoint: " + ec.message();
    else if (static_cast<long long>(size) != data_offset + data_bytes)
      error = tmp + ": the written checkpoint has " + std::to_string(size) + " bytes, not " +
              std::to_string(data_offset + data_bytes) + " (is the disk full?)";
  }
  agree_or_remove(comm, error, rank == 0 ? tmp : std::string());
  if (rank == 0) {
    fs::rename(tmp, path, ec);
    if (ec)
      error = path + ": cannot rename the written checkpoint into place: " + ec.message();
    else
      fsync_directory(fs::path(path).parent_path());
  }
  agree_or_remove(comm, error, rank == 0 ? tmp : std::string());
}

Json read_checkpoint_header(MPI_Comm comm, const std::string& path) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string text, error;
  if (rank == 0) {
    std::ifstream in(path, std::ios::binary);
    char head[prefix_bytes];
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (!in || ec) {
      error = path + ": cannot read the checkpoint: " + (ec ? ec.message() : std::strerror(errno));
    } else if (!in.read(head, prefix_bytes) || std::memcmp(head, magic, 8) != 0) {
      error = path + ": not a Boreas checkpoint (no BOREASCK signature at its start)";
    } else {
      const std::uint64_t length = get_u64(head + 8);
      if (length > size - prefix_bytes || length > max_header_bytes) {
        error = path + ": truncated or corrupt checkpoint (its header claims " + std::to_string(length) +
                " bytes; the file has " + std::to_string(size) + ")";
      } else {
        text.resize(length);
        in.read(text.data(), std::streamsize(length));
        Json meta = Json::parse(text, nullptr, false);
        if (text_hash(text) != get_u64(head + 16)) meta = Json(Json::value_t::discarded);
        const Json* version = member(meta, "version");
        // A later format may name its keys otherwise: its version is read before them.
        if (!meta.is_discarded() && version && *version != checkpoint_version) {
          error = path + ": a checkpoint of format version " + version->dump() + "; this build of Boreas reads version " +
                  std::to_string(checkpoint_version);
        } else if (meta.is_discarded() || !version || !header_complete(meta)) {
          error = path + ": corrupt checkpoint header (not the JSON a checkpoint holds)";
        } else if (const std::string order = meta.value("byte_order", std::string(native_byte_order())); order != native_byte_order()) {
          error = path + ": written on a " + order + "-endian machine; this one is " + native_byte_order() +
                  "-endian and cannot read its populations";
        } else {
          const unsigned long long expected = meta["data_offset"].get<unsigned long long>() +
                                              meta["data_bytes"].get<unsigned long long>();  // each < 2^63
          if (expected != size)
            error = path + ": truncated or corrupt checkpoint: " + std::to_string(size) + " bytes, expected " +
                    std::to_string(expected);
        }
      }
    }
  }
  agree(comm, error);
  int length = int(text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  text.resize(length);
  MPI_Bcast(text.data(), length, MPI_CHAR, 0, comm);
  return Json::parse(text);
}

void read_checkpoint_values(MPI_Comm comm, const std::string& path, const Json& header,
                            std::vector<BoxBytes>& pieces) {
  const std::array<int, 3> cells = header.at("cells").get<std::array<int, 3>>();
  const int cell_bytes = header.at("cell_bytes").get<int>();
  read_boxes(comm, path, header.at("data_offset").get<long long>(), cells, cell_bytes, pieces);
  std::uint64_t local_hash = pieces_hash(pieces, cells, cell_bytes), hash = 0;
  MPI_Allreduce(&local_hash, &hash, 1, MPI_UINT64_T, MPI_SUM, comm);
  if (hash != header.at("data_hash").get<std::uint64_t>())
    throw Error(path + ": corrupt checkpoint: the populations read do not match the hash its header holds");
}

}  // namespace boreas
