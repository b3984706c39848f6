#pragma once
// Command-line handling shared by `boreas` and `boreas-bench`: Kokkos's own options
// (--kokkos-threads=N, --kokkos-device-id=N, ...) are set aside before CLI11 sees the line, so
// that they reach Kokkos instead of being rejected, and every usage error exits with status 2
// (CLI11's own codes, 106-109, are not the README's contract); --help exits with 0.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace boreas {

struct SplitArguments {
  std::vector<std::string> app;     // argv[0] and the program's own arguments
  std::vector<std::string> kokkos;  // argv[0] and every --kokkos-* argument, in order
};

inline bool is_kokkos_argument(const std::string& arg) { return arg.rfind("--kokkos-", 0) == 0; }

inline SplitArguments split_kokkos_arguments(int argc, char** argv) {
  SplitArguments out;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i > 0 && is_kokkos_argument(arg))
      out.kokkos.push_back(arg);
    else
      out.app.push_back(arg);
    if (i == 0) out.kokkos.push_back(arg);
  }
  return out;
}

// Parses `args` (argv[0] first). Returns -1 when the program should go on, otherwise the exit
// status: 0 after --help, 2 after a usage error (printed on stderr when `print` is set).
inline int parse_command_line(CLI::App& app, std::vector<std::string> args, bool print) {
  try {
    args.erase(args.begin());
    std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last to first
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    if (print) std::printf("%s", app.help().c_str());
    return 0;
  } catch (const CLI::CallForAllHelp& e) {
    if (print) std::printf("%s", app.help("", CLI::AppFormatMode::All).c_str());
    return 0;
  } catch (const CLI::ParseError& e) {
    if (print)
      std::fprintf(stderr, "%s: error: %s\nRun with --help for more information.\n", app.get_name().c_str(),
                   e.what());
    return 2;
  }
  return -1;
}

// argc/argv for Kokkos::ScopeGuard over strings that outlive it.
struct ArgvView {
  std::vector<char*> pointers;
  int argc = 0;
  explicit ArgvView(std::vector<std::string>& args) {
    for (auto& a : args) pointers.push_back(a.data());
    argc = static_cast<int>(pointers.size());
    pointers.push_back(nullptr);
  }
  char** argv() { return pointers.data(); }
};

}  // namespace boreas
