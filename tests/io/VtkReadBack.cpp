#include "tests/io/VtkReadBack.hpp"

#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkXMLImageDataReader.h>
#include <vtkXMLPImageDataReader.h>

namespace boreas::test {

namespace {
template <class Reader>
std::vector<std::pair<std::string, std::vector<double>>> read_with(const std::string& path) {
  vtkNew<Reader> reader;
  reader->SetFileName(path.c_str());
  reader->Update();
  std::vector<std::pair<std::string, std::vector<double>>> out;
  vtkImageData* image = reader->GetOutput();
  if (!image) return out;
  vtkCellData* cells = image->GetCellData();
  for (int i = 0; i < cells->GetNumberOfArrays(); ++i) {
    vtkDataArray* a = cells->GetArray(i);
    std::vector<double> v;
    for (vtkIdType t = 0; t < a->GetNumberOfTuples(); ++t)
      for (int k = 0; k < a->GetNumberOfComponents(); ++k) v.push_back(a->GetComponent(t, k));
    out.emplace_back(a->GetName(), std::move(v));
  }
  return out;
}
}  // namespace

std::vector<std::pair<std::string, std::vector<double>>> read_cell_arrays(const std::string& path) {
  const bool parallel = path.size() > 5 && path.compare(path.size() - 5, 5, ".pvti") == 0;
  return parallel ? read_with<vtkXMLPImageDataReader>(path) : read_with<vtkXMLImageDataReader>(path);
}

}  // namespace boreas::test
