// Cell arrays added to a VTK data set from host vectors: the one helper VtkSeries and AmrSeries
// share (a .cpp-only header of io/: VTK types stay out of the public interfaces).
#pragma once

#include <vtkCellData.h>
#include <vtkDoubleArray.h>
#include <vtkNew.h>
#include <vtkUnsignedCharArray.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace boreas {

template <class T>
void add_cell_array(vtkCellData* cd, const char* name, const std::vector<T>& data, int components) {
  using Array = std::conditional_t<std::is_same_v<T, double>, vtkDoubleArray, vtkUnsignedCharArray>;
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, std::uint8_t>, "double or uint8 cell data");
  vtkNew<Array> a;
  a->SetName(name);
  a->SetNumberOfComponents(components);
  a->SetNumberOfTuples(static_cast<vtkIdType>(data.size() / static_cast<std::size_t>(components)));
  std::copy(data.begin(), data.end(), a->GetPointer(0));
  cd->AddArray(a);
}

}  // namespace boreas
