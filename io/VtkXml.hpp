// What VtkSeries and AmrSeries share: cell arrays from host vectors, and writes checked for errors
// (a .cpp-only header of io/: VTK types stay out of the public interfaces).
#pragma once

#include <vtkCellData.h>
#include <vtkDoubleArray.h>
#include <vtkErrorCode.h>
#include <vtkLogger.h>
#include <vtkNew.h>
#include <vtkOutputWindow.h>
#include <vtkSmartPointer.h>
#include <vtkUnsignedCharArray.h>
#include <vtkXMLWriter.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
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

// VTK's error messages while it is the output window (write_checked), kept instead of printed: the
// first says why a write failed. Warnings and other text go on to the window it replaced.
class VtkErrorCapture : public vtkOutputWindow {
 public:
  static VtkErrorCapture* New() {
    auto* capture = new VtkErrorCapture;
    capture->InitializeObjectBase();
    return capture;
  }
  vtkTypeMacro(VtkErrorCapture, vtkOutputWindow);
  void DisplayErrorText(const char* text) override {
    if (first_error.empty() && text) first_error = text;
  }
  void DisplayWarningText(const char* text) override { previous->DisplayWarningText(text); }
  void DisplayGenericWarningText(const char* text) override { previous->DisplayGenericWarningText(text); }
  void DisplayText(const char* text) override { previous->DisplayText(text); }

  vtkSmartPointer<vtkOutputWindow> previous;
  std::string first_error;
};

// Writes `path` with `writer`, or throws std::runtime_error: Write() returns 1 even when a file
// could not be opened or the disk filled up (a composite writer's piece writers and the pipeline
// report only through VTK's output window), so the errors VTK reports during the write decide.
inline void write_checked(vtkXMLWriter* writer, const std::string& path) {
  vtkNew<VtkErrorCapture> capture;
  // While it writes: the capture is VTK's output window, and VTK's logger, which prints errors on
  // stderr before the window sees them, is quiet; both restored however Write() ends.
  struct Capturing {
    vtkSmartPointer<vtkOutputWindow> window;
    vtkLogger::Verbosity stderr_verbosity;
    ~Capturing() {
      vtkLogger::SetStderrVerbosity(stderr_verbosity);
      vtkOutputWindow::SetInstance(window);
    }
  };
  int written = 0;
  {
    const Capturing restore{vtkOutputWindow::GetInstance(), vtkLogger::GetCurrentVerbosityCutoff()};
    capture->previous = restore.window;
    vtkOutputWindow::SetInstance(capture);
    vtkLogger::SetStderrVerbosity(vtkLogger::VERBOSITY_OFF);
    written = writer->Write();
  }
  const unsigned long code = writer->GetErrorCode();
  if (written == 1 && code == vtkErrorCode::NoError && capture->first_error.empty()) return;
  // "ERROR: In <file>, line <n>\n<class> (<address>): <why>\n": keep <why>.
  std::string why = capture->first_error;
  if (const std::size_t at = why.find("): "); at != std::string::npos) why = why.substr(at + 3);
  while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
  if (why.empty()) why = code != vtkErrorCode::NoError ? vtkErrorCode::GetStringFromErrorCode(code) : "VTK reported a failure";
  throw std::runtime_error(path + ": cannot write the VTK file (" + why + ")");
}

// Writes `path` with `writer` through a temporary beside it, renamed over it once whole: a run
// killed while it rewrites an output (a restart repeats the steps after its checkpoint) leaves the
// earlier file, not one cut short. Throws as write_checked, the temporary removed.
inline void write_replacing(vtkXMLWriter* writer, const std::string& path) {
  namespace fs = std::filesystem;
  const std::string tmp = path + ".tmp";
  writer->SetFileName(tmp.c_str());
  std::error_code ec;
  try {
    write_checked(writer, path);
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
  fs::rename(tmp, path, ec);
  if (!ec) return;
  const std::string why = ec.message();
  fs::remove(tmp, ec);
  throw std::runtime_error(path + ": cannot write the VTK file (cannot rename its temporary into place: " + why + ")");
}

}  // namespace boreas
