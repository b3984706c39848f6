#pragma once
// Exception types. Everything Boreas throws on purpose derives from boreas::Error, so
// drivers can catch one type, print what(), and exit with a non-zero status.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace boreas {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An invalid input deck (or --set override). what() is complete and user-facing:
// one compiler-style diagnostic per line ("deck.toml:12:5: error: ..."), followed by a
// final line with the number of errors. diagnostics() holds the individual lines.
struct DeckError : Error {
  explicit DeckError(const std::string& message, std::vector<std::string> diagnostics = {})
      : Error(message), diagnostics_(std::move(diagnostics)) {}
  const std::vector<std::string>& diagnostics() const noexcept { return diagnostics_; }

 private:
  std::vector<std::string> diagnostics_;
};

}  // namespace boreas
