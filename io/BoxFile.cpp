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

// The file view of this rank's rows (sorted by offset) after `data_offset`, and the rows' bytes
// packed in that order; `cell_type` is one cell's bytes (counts in cells, not bytes, stay in int).
struct RowView {
  MPI_Datatype file_type = MPI_DATATYPE_NULL, cell_type = MPI_DATATYPE_NULL;
  int cells = 0;
  RowView(const std::vector<Row>& rows, int cell_bytes) {
    std::vector<int> lengths;
    std::vector<MPI_Aint> displacements;
    long long total = 0;
    for (const Row& r : rows) {
      lengths.push_back(r.bytes);
      displacements.push_back(static_cast<MPI_Aint>(r.file_offset));
      total += r.bytes;
    }
    MPI_Type_create_hindexed(int(rows.size()), lengths.data(), displacements.data(), MPI_BYTE, &file_type);
    MPI_Type_commit(&file_type);
    MPI_Type_contiguous(cell_bytes, MPI_BYTE, &cell_type);
    MPI_Type_commit(&cell_type);
    cells = int(total / cell_bytes);
  }
  ~RowView() {
    MPI_Type_free(&file_type);
    MPI_Type_free(&cell_type);
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
  RowView view(rows, cell_bytes);
  MPI_File_set_view(file, data_offset, MPI_BYTE, view.file_type, "native", MPI_INFO_NULL);
  const int rc = MPI_File_write_all(file, data, view.cells, view.cell_type, MPI_STATUS_IGNORE);
  return rc == MPI_SUCCESS ? std::string() : mpi_error(rc);
}

void read_boxes(MPI_Comm comm, const std::string& path, long long data_offset, const std::array<int, 3>& cells,
                int cell_bytes, std::vector<BoxBytes>& pieces) {
  for (BoxBytes& p : pieces) p.values.assign(static_cast<std::size_t>(p.cells()) * cell_bytes, 0);
  std::string error;
  MPI_File file;
  int rc = MPI_File_open(comm, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &file);
  if (rc != MPI_SUCCESS) error = path + ": cannot open: " + mpi_error(rc);
  agree(comm, error);
  const std::vector<Row> rows = rows_of(pieces, cells, cell_bytes);
  // One box's rows arrive in its own order; several boxes' go through a buffer in file order.
  const bool direct = pieces.size() == 1;
  std::vector<unsigned char> packed;
  {
    RowView view(rows, cell_bytes);
    if (!direct) packed.resize(static_cast<std::size_t>(view.cells) * cell_bytes);
    MPI_File_set_view(file, data_offset, MPI_BYTE, view.file_type, "native", MPI_INFO_NULL);
    MPI_Status status;
    rc = MPI_File_read_all(file, direct ? pieces.front().values.data() : packed.data(), view.cells, view.cell_type,
                           &status);
    int got = 0;
    MPI_Get_count(&status, view.cell_type, &got);
    if (rc != MPI_SUCCESS)
      error = path + ": cannot read: " + mpi_error(rc);
    else if (got != view.cells)
      error = path + ": file ends early (read " + std::to_string(got) + " of " + std::to_string(view.cells) +
              " cells of this rank)";
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
