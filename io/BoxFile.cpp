#include "io/BoxFile.hpp"

#include <algorithm>
#include <cstring>

#include "core/Error.hpp"

namespace boreas {

namespace {

// Each x-row of this rank's boxes: where it lies in the file's data section and in which piece.
struct Row {
  long long file_offset;
  std::size_t piece, offset;  // byte offset inside the piece's values
  int bytes;
};

std::vector<Row> rows_of(const std::vector<BoxBytes>& pieces, const std::array<int, 3>& cells, int cell_bytes) {
  std::vector<Row> rows;
  for (std::size_t p = 0; p < pieces.size(); ++p) {
    const BoxBytes& b = pieces[p];
    std::size_t offset = 0;
    const int row_bytes = (b.hi[0] - b.lo[0]) * cell_bytes;
    for (int z = b.lo[2]; z < b.hi[2]; ++z)
      for (int y = b.lo[1]; y < b.hi[1]; ++y, offset += row_bytes) {
        const long long first = (static_cast<long long>(z) * cells[1] + y) * cells[0] + b.lo[0];
        rows.push_back({first * cell_bytes, p, offset, row_bytes});
      }
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.file_offset < b.file_offset; });
  return rows;
}

// The file view of this rank's rows (sorted by offset) after the data offset, and the memory
// type of the same rows packed one after another in that order. One of each moves everything in
// one call: counts in elements would overflow int past 2 GiB per rank (a voxel file's cells are
// single bytes).
struct RowView {
  MPI_Datatype file_type = MPI_DATATYPE_NULL, memory_type = MPI_DATATYPE_NULL;
  long long bytes = 0;
  explicit RowView(const std::vector<Row>& rows) {
    std::vector<int> lengths;
    std::vector<MPI_Aint> in_file, in_memory;
    for (const Row& r : rows) {
      lengths.push_back(r.bytes);
      in_file.push_back(static_cast<MPI_Aint>(r.file_offset));
      in_memory.push_back(static_cast<MPI_Aint>(bytes));
      bytes += r.bytes;
    }
    MPI_Type_create_hindexed(int(rows.size()), lengths.data(), in_file.data(), MPI_BYTE, &file_type);
    MPI_Type_commit(&file_type);
    MPI_Type_create_hindexed(int(rows.size()), lengths.data(), in_memory.data(), MPI_BYTE, &memory_type);
    MPI_Type_commit(&memory_type);
  }
  ~RowView() {
    MPI_Type_free(&file_type);
    MPI_Type_free(&memory_type);
  }
  RowView(const RowView&) = delete;
  RowView& operator=(const RowView&) = delete;
};

}  // namespace

// Every rank learns whether any failed, and rank order's first message.
void agree(MPI_Comm comm, const std::string& local_error) {
  int failed = local_error.empty() ? 0 : 1, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm);
  if (!any) return;
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int first = failed ? rank : size;
  int lowest = size;
  MPI_Allreduce(&first, &lowest, 1, MPI_INT, MPI_MIN, comm);
  int length = rank == lowest ? int(local_error.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, lowest, comm);
  std::string message = rank == lowest ? local_error : std::string(length, ' ');
  MPI_Bcast(message.data(), length, MPI_CHAR, lowest, comm);
  throw Error(message);
}

std::string mpi_error(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, length);
}

std::string write_boxes(MPI_File file, long long data_offset, const std::array<int, 3>& cells, int cell_bytes,
                        const std::vector<BoxBytes>& pieces) {
  const std::vector<Row> rows = rows_of(pieces, cells, cell_bytes);
  // One box's rows are in file order already; several boxes' rows are packed in file order.
  std::vector<unsigned char> packed;
  if (pieces.size() > 1)
    for (const Row& r : rows) {
      const unsigned char* from = pieces[r.piece].values.data() + r.offset;
      packed.insert(packed.end(), from, from + r.bytes);
    }
  const unsigned char* data = pieces.size() == 1 ? pieces.front().values.data() : packed.data();
  RowView view(rows);
  // Every rank enters the collective write, a rank whose view failed with nothing to write, so
  // that the others do not wait for it there.
  const int view_rc = MPI_File_set_view(file, data_offset, MPI_BYTE, view.file_type, "native", MPI_INFO_NULL);
  MPI_Status status;
  const int rc = MPI_File_write_all(file, data, view_rc == MPI_SUCCESS ? 1 : 0, view.memory_type, &status);
  if (view_rc != MPI_SUCCESS) return mpi_error(view_rc);
  if (rc != MPI_SUCCESS) return mpi_error(rc);
  // A full disk can end a write early without an error code (Open MPI's OMPIO does): count the bytes.
  MPI_Count written = 0;
  MPI_Get_elements_x(&status, MPI_BYTE, &written);
  if (written != view.bytes)
    return "wrote " + std::to_string(written) + " of this rank's " + std::to_string(view.bytes) + " bytes";
  return std::string();
}

MPI_File open_file(MPI_Comm comm, const std::string& path, int mode, const std::string& failure) {
  MPI_File file;
  const int rc = MPI_File_open(comm, path.c_str(), mode, MPI_INFO_NULL, &file);
  // Where it failed on some ranks only, those that opened the file leave it open: MPI_File_close
  // is collective (Open MPI's OMPIO starts it with a barrier) and would wait for the others.
  agree(comm, rc == MPI_SUCCESS ? std::string() : path + ": " + failure + ": " + mpi_error(rc));
  return file;
}

void read_boxes(MPI_Comm comm, const std::string& path, long long data_offset, const std::array<int, 3>& cells,
                int cell_bytes, std::vector<BoxBytes>& pieces) {
  for (BoxBytes& p : pieces) p.values.assign(static_cast<std::size_t>(p.cells()) * cell_bytes, 0);
  std::string error;
  MPI_File file = open_file(comm, path, MPI_MODE_RDONLY, "cannot open");
  int rc = MPI_SUCCESS;
  const std::vector<Row> rows = rows_of(pieces, cells, cell_bytes);
  // One box's rows arrive in its own order; several boxes' go through a buffer in file order.
  const bool direct = pieces.size() == 1;
  std::vector<unsigned char> packed;
  {
    RowView view(rows);
    if (!direct) packed.resize(static_cast<std::size_t>(view.bytes));
    MPI_Status status;
    const int view_rc = MPI_File_set_view(file, data_offset, MPI_BYTE, view.file_type, "native", MPI_INFO_NULL);
    // Collective: a rank whose view failed reads nothing but still takes part.
    rc = MPI_File_read_all(file, direct ? pieces.front().values.data() : packed.data(), view_rc == MPI_SUCCESS ? 1 : 0,
                           view.memory_type, &status);
    if (view_rc != MPI_SUCCESS) rc = view_rc;
    MPI_Count got = 0;
    if (rc == MPI_SUCCESS) MPI_Get_elements_x(&status, MPI_BYTE, &got);
    if (rc != MPI_SUCCESS)
      error = path + ": cannot read: " + mpi_error(rc);
    else if (got != view.bytes)
      error = path + ": file ends early (read " + std::to_string(got) + " of this rank's " +
              std::to_string(view.bytes) + " bytes)";
  }
  MPI_File_close(&file);
  agree(comm, error);
  if (direct) return;
  std::size_t at = 0;
  for (const Row& r : rows) {
    std::memcpy(pieces[r.piece].values.data() + r.offset, packed.data() + at, r.bytes);
    at += r.bytes;
  }
}

}  // namespace boreas
