#pragma once
// Command-line handling shared by `boreas` and `boreas-bench`: Kokkos's own options
// (--kokkos-threads=N, --kokkos-device-id=N, ...) are set aside before CLI11 sees the line, so
// that they reach Kokkos instead of being rejected, and every usage error exits with status 2
// (CLI11's own codes, 106-109, are not the README's contract); --help, --kokkos-help and
// --kokkos-tools-help exit with 0.
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
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

// What is wrong with a --kokkos-* argument, or "": Kokkos 3.4 ignores names it does not know,
// ends the program (an uncaught exception) on a value that is not a number, and its OpenMP backend
// overruns a fixed table past 512 threads.
inline std::string kokkos_argument_problem(const std::string& arg) {
  const std::size_t eq = arg.find('=');
  const std::string name = arg.substr(0, eq), value = eq == std::string::npos ? "" : arg.substr(eq + 1);
  const bool has_value = eq != std::string::npos;
  const auto count = [&](long lo, long hi) -> std::string {
    const std::string expected = "expected " + name + "=N with N an integer in [" + std::to_string(lo) + ", " +
                                 std::to_string(hi) + "]";
    if (value.empty() || value.size() > 9 || value.find_first_not_of("0123456789") != std::string::npos)
      return expected + (has_value ? ", got '" + value + "'" : "");
    const long n = std::stol(value);
    return n < lo || n > hi ? expected + ", got " + value : "";
  };
  if (name == "--kokkos-threads") return count(1, 512);
  if (name == "--kokkos-numa") return count(1, 512);
  if (name == "--kokkos-device-id" || name == "--kokkos-device") return count(0, 1 << 16);
  if (name == "--kokkos-num-devices" || name == "--kokkos-ndevices") {
    const std::size_t comma = value.find(',');  // N[,SKIP]
    const std::string first = value.substr(0, comma);
    const bool digits = !first.empty() && first.size() <= 5 && first.find_first_not_of("0123456789") == std::string::npos &&
                        (comma == std::string::npos ||
                         (comma + 1 < value.size() && value.size() - comma <= 6 &&
                          value.find_first_not_of("0123456789", comma + 1) == std::string::npos));
    return digits && std::stol(first) >= 1 ? "" : "expected " + name + "=N or " + name + "=N,SKIP (integers, N >= 1)";
  }
  if (name == "--kokkos-tools-args") return has_value && !value.empty() ? "" : "expected " + name + "=VALUE";
  if (name == "--kokkos-tools-library") {
    if (!has_value || value.empty()) return "expected " + name + "=VALUE";
    // Kokkos loads the first of a ';'-separated list and, where it cannot, says so and runs on.
    const std::string first = value.substr(0, value.find(';'));
    if (void* tool = dlopen(first.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      dlclose(tool);
      return "";
    }
    const char* why = dlerror();
    return name + ": cannot load '" + first + "'" + (why ? std::string(": ") + why : std::string());
  }
  if (name == "--kokkos-disable-warnings" || name == "--kokkos-tune-internals" || name == "--kokkos-tools-help" ||
      name == "--kokkos-help")
    return has_value ? name + " takes no value" : "";
  return "unknown Kokkos option " + name +
         " (Kokkos 3.4 knows --kokkos-threads, --kokkos-numa, --kokkos-device-id, --kokkos-num-devices, "
         "--kokkos-disable-warnings, --kokkos-tune-internals, --kokkos-tools-library, --kokkos-tools-args, "
         "--kokkos-tools-help, --kokkos-help)";
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

// Kokkos started for the object's lifetime, what it prints as it starts (OpenMP binding warnings
// on std::cout) sent to stderr: boreas-bench's stdout holds JSON lines only.
class KokkosSession {
 public:
  explicit KokkosSession(std::vector<std::string> args) : args_(std::move(args)) {
    ArgvView view(args_);
    std::cout.flush();
    std::fflush(stdout);
    const int saved = dup(STDOUT_FILENO);
    dup2(STDERR_FILENO, STDOUT_FILENO);
    Kokkos::initialize(view.argc, view.argv());
    std::cout.flush();
    std::fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
  }
  ~KokkosSession() { Kokkos::finalize(); }
  KokkosSession(const KokkosSession&) = delete;
  KokkosSession& operator=(const KokkosSession&) = delete;

 private:
  std::vector<std::string> args_;
};

// Parses `args` (argv[0] first) and checks `kokkos` (argv[0] first, the --kokkos-* arguments).
// Returns -1 when the program should go on, otherwise the exit status: 0 after --help, 2 after a
// usage error (printed on stderr when `print` is set).
inline int parse_command_line(CLI::App& app, std::vector<std::string> args, const std::vector<std::string>& kokkos,
                              bool print) {
  for (std::size_t i = 1; i < kokkos.size(); ++i)
    if (const std::string problem = kokkos_argument_problem(kokkos[i]); !problem.empty()) {
      if (print) std::fprintf(stderr, "%s: error: %s\n", app.get_name().c_str(), problem.c_str());
      return 2;
    }
  // Kokkos prints its options (and a loaded tool's) as it starts: like --help, nothing else runs.
  if (std::any_of(kokkos.begin() + 1, kokkos.end(),
                  [](const std::string& a) { return a == "--kokkos-help" || a == "--kokkos-tools-help"; })) {
    if (print) {
      std::vector<std::string> own = kokkos;
      ArgvView view(own);
      Kokkos::initialize(view.argc, view.argv());
      Kokkos::finalize();
    }
    return 0;
  }
  // `--set --output-dir DIR` would take the option as the key and leave DIR over.
  for (std::size_t i = 1; i < args.size(); ++i)
    if (args[i] == "--set" && (i + 1 == args.size() || args[i + 1].rfind("-", 0) == 0)) {
      if (print)
        std::fprintf(stderr, "%s: error: --set: expected key=value, %s\n", app.get_name().c_str(),
                     i + 1 == args.size() ? "got nothing" : ("got the option '" + args[i + 1] + "'").c_str());
      return 2;
    }
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

// `arg` as a POSIX shell reads it back: as it is when plain, otherwise in single quotes.
inline std::string shell_quoted(const std::string& arg) {
  if (!arg.empty() &&
      arg.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=,+-:@%") == std::string::npos)
    return arg;
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace boreas
