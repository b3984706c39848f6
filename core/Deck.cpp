// Deck parsing and validation. See core/Deck.hpp and README.md ("Deck reference").
#include "core/Deck.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <system_error>
#include <tuple>
#include <unordered_set>

#include <toml++/toml.h>  // host compiler only in CUDA builds (core/CMakeLists.txt): nvcc's __noinline__ breaks it

namespace boreas {

const std::vector<std::string>& known_observables() {
  static const std::vector<std::string> k{"poiseuille_profile", "taylor_green_decay",
                                          "ghia_centerline", "permeability", "mass"};
  return k;
}

namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------- small helpers

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Case-insensitive edit distance (Levenshtein, with adjacent transpositions costing 1).
std::size_t edit_distance(const std::string& a0, const std::string& b0) {
  const std::string a = lower(a0), b = lower(b0);
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1,
                          d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

// Nearest candidate within edit distance 3 and half the word's length (a short word is not
// "near" one it shares nothing with: foo is not amr), or "" if none.
std::string nearest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = std::min<std::size_t>(3, std::max<std::size_t>(1, word.size() / 2)) + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best;
}

// Shortest representation that reads back as the same double.
std::string fmt(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

// Six significant digits, for derived quantities.
std::string fmt6(double x) {
  std::ostringstream os;
  os.precision(6);
  os << x;
  return os.str();
}

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "table";
    case toml::node_type::array: return "array";
    case toml::node_type::string: return "string";
    case toml::node_type::integer: return "integer";
    case toml::node_type::floating_point: return "float";
    case toml::node_type::boolean: return "boolean";
    case toml::node_type::date: return "date";
    case toml::node_type::time: return "time";
    case toml::node_type::date_time: return "date-time";
    default: return "nothing";
  }
}

// "got ..." text for a scalar: type plus value where it helps.
std::string got(const toml::node& n) {
  if (auto s = n.as_string()) return "got string '" + s->get() + "'";
  if (auto i = n.as_integer()) return "got " + std::to_string(i->get());
  if (auto f = n.as_floating_point()) return "got " + fmt(f->get());
  if (auto b = n.as_boolean()) return std::string("got boolean ") + (b->get() ? "true" : "false");
  return "got " + type_name(n);
}

// got() where an integer was asked for: a float says so, whole ones too ("got float 2.0", not "got 2").
std::string got_for_integer(const toml::node& n) {
  auto f = n.as_floating_point();
  if (!f) return got(n);
  std::string text = fmt(f->get());
  if (text.find_first_not_of("-0123456789") == std::string::npos) text += ".0";
  return "got float " + text;
}

std::string trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

// ---------------------------------------------------------------- diagnostics

struct Diag {
  int rank;  // 0: in the file, 1: from --set (reported after the file's)
  std::uint32_t line, col;
  std::size_t seq;
  std::string text;
};

// A table in the deck being validated, with its dotted name for messages.
struct Tbl {
  const toml::table* t = nullptr;  // null: the table is absent
  std::string name;                // "physics", "boundary.x_min", "obstacle[2]"
  std::string header;              // how to show it in "[...] unknown key": "physics"
  bool broken = false;             // present but not a table (already reported)
  const toml::node* get(std::string_view k) const { return t ? t->get(k) : nullptr; }
  std::string key(std::string_view k) const { return name + "." + std::string(k); }
};

class Checker {
 public:
  Checker(std::string source) : source_(std::move(source)) {}

  std::map<const toml::node*, std::string> override_of;  // nodes that came from --set
  std::vector<std::string> overrides;                     // in command-line order

  // --set diagnostics are ordered by the position of their argument.
  std::uint32_t override_index(const std::string& ov) const {
    auto it = std::find(overrides.begin(), overrides.end(), ov);
    return std::uint32_t(it - overrides.begin());
  }

  // Location of a node (a value, or a table for "missing key"); null = file start.
  void at(const toml::node* n, const toml::key* k, std::string text) {
    Diag d = locate(n, k);
    d.text += ": error: " + std::move(text);
    diags_.push_back(std::move(d));
  }
  // "file:line:column" (or "--set ...") of a node, for checks made after parsing.
  std::string where(const toml::node* n) { return locate(n, nullptr).text; }
  void at(const toml::node* n, std::string text) { at(n, nullptr, std::move(text)); }
  void raw(const std::string& ov, std::string text) {
    diags_.push_back({1, override_index(ov), 0, diags_.size(), "--set " + ov + ": error: " + text});
  }

  bool ok() const { return diags_.empty(); }

  [[noreturn]] void throw_all() {
    std::stable_sort(diags_.begin(), diags_.end(), [](const Diag& a, const Diag& b) {
      if (a.rank != b.rank) return a.rank < b.rank;
      if (a.line != b.line) return a.line < b.line;
      if (a.col != b.col) return a.col < b.col;
      return a.seq < b.seq;
    });
    std::vector<std::string> lines;
    std::string msg;
    for (const auto& d : diags_) {
      lines.push_back(d.text);
      msg += d.text + "\n";
    }
    msg += std::to_string(diags_.size()) + (diags_.size() == 1 ? " error" : " errors") +
           " in deck " + source_;
    throw DeckError(msg, std::move(lines));
  }

  // ---- structure

  // Reports keys of `tb` not in `allowed` (tables among them as unknown tables).
  void unknown_keys(const Tbl& tb, const std::vector<std::string>& allowed) {
    if (!tb.t) return;
    for (auto&& [k, v] : *tb.t) {
      const std::string key(k.str());
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      const std::string near = nearest(key, allowed);
      if (v.is_table() || v.is_array_of_tables()) {
        std::string full = tb.name.empty() ? key : tb.name + "." + key;
        std::string msg = "unknown table [" + full + "]";
        if (!near.empty()) msg += "; did you mean [" + (tb.name.empty() ? near : tb.name + "." + near) + "]?";
        else msg += " (expected in [" + tb.name + "]: " + join(allowed) + ")";
        at(&v, &k, msg);
      } else {
        std::string msg = (tb.header.empty() ? "" : "[" + tb.header + "] ") + "unknown key '" + key + "'";
        if (!near.empty()) msg += "; did you mean '" + near + "'?";
        at(&v, &k, msg);
      }
    }
  }

  // A sub-table; reports a type error if the key holds something else.
  Tbl table(const Tbl& parent, const std::string& k, const std::string& name) {
    Tbl r{nullptr, name, name};
    const toml::node* n = parent.get(k);
    if (!n) return r;
    if (!n->is_table()) {
      at(n, name + ": expected a table, " + got(*n));
      r.broken = true;
      return r;
    }
    r.t = n->as_table();
    return r;
  }

  void missing(const Tbl& tb, std::string_view k, const std::string& expected) {
    if (tb.broken) return;
    at(tb.t, tb.key(k) + ": missing required key (expected " + expected + ")");
  }

  // Marks a key as not applicable (e.g. magic with BGK); returns true if it was present.
  bool not_used(const Tbl& tb, std::string_view k, const std::string& why) {
    if (auto n = tb.get(k)) {
      at(n, tb.key(k) + ": " + why);
      return true;
    }
    return false;
  }

  // ---- scalars. Each returns nullopt when absent or invalid (invalid is reported).

  std::optional<double> number_node(const toml::node& n, const std::string& key,
                                    const std::string& expected, bool (*pred)(double)) {
    if (!n.is_number()) {
      at(&n, key + ": expected " + expected + ", " + got(n));
      return std::nullopt;
    }
    // toml++ gives no double for integers past 2^53 (not exact): they are numbers all the same.
    const double x = n.is_integer() ? double(n.as_integer()->get()) : n.as_floating_point()->get();
    if (!std::isfinite(x) || (pred && !pred(x))) {
      at(&n, key + ": expected " + expected + ", " + got(n));
      return std::nullopt;
    }
    return x;
  }
  std::optional<double> number(const Tbl& tb, std::string_view k, const std::string& expected,
                               bool (*pred)(double) = nullptr) {
    auto n = tb.get(k);
    return n ? number_node(*n, tb.key(k), expected, pred) : std::nullopt;
  }

  std::optional<long long> integer_node(const toml::node& n, const std::string& key,
                                        const std::string& expected, long long min,
                                        long long max) {
    auto i = n.as_integer();
    if (!i) {
      at(&n, key + ": expected " + expected + ", " + got_for_integer(n));
      return std::nullopt;
    }
    if (i->get() < min || i->get() > max) {
      at(&n, key + ": expected " + expected + ", " + got(n));
      return std::nullopt;
    }
    return i->get();
  }
  std::optional<long long> integer(const Tbl& tb, std::string_view k, const std::string& expected,
                                   long long min, long long max = LLONG_MAX) {
    auto n = tb.get(k);
    return n ? integer_node(*n, tb.key(k), expected, min, max) : std::nullopt;
  }

  std::optional<bool> boolean(const Tbl& tb, std::string_view k) {
    auto n = tb.get(k);
    if (!n) return std::nullopt;
    if (!n->is_boolean()) {
      at(n, tb.key(k) + ": expected a boolean (true or false), " + got(*n));
      return std::nullopt;
    }
    return n->as_boolean()->get();
  }

  std::optional<std::string> string(const Tbl& tb, std::string_view k, const std::string& expected) {
    auto n = tb.get(k);
    if (!n) return std::nullopt;
    if (!n->is_string()) {
      at(n, tb.key(k) + ": expected " + expected + ", " + got(*n));
      return std::nullopt;
    }
    return n->as_string()->get();
  }

  // A string from a fixed list; returns its index.
  std::optional<std::size_t> choice_node(const toml::node& n, const std::string& key,
                                         const std::vector<std::string>& options) {
    const std::string expected = "one of " + join(options);
    if (!n.is_string()) {
      at(&n, key + ": expected " + expected + ", " + got(n));
      return std::nullopt;
    }
    const std::string& s = n.as_string()->get();
    for (std::size_t i = 0; i < options.size(); ++i)
      if (options[i] == s) return i;
    std::string msg = key + ": expected " + expected + ", " + got(n);
    const std::string near = nearest(s, options);
    if (!near.empty()) msg += "; did you mean '" + near + "'?";
    at(&n, msg);
    return std::nullopt;
  }
  std::optional<std::size_t> choice(const Tbl& tb, std::string_view k,
                                    const std::vector<std::string>& options) {
    auto n = tb.get(k);
    return n ? choice_node(*n, tb.key(k), options) : std::nullopt;
  }

  // ---- vectors. dims: 2 or 3 for the lattice, 0 if unknown (then 2 or 3 entries are
  // accepted). In 2D a third entry is accepted if it equals `z_neutral`.
  std::optional<std::array<double, 3>> vec(const Tbl& tb, std::string_view k, int dims,
                                           const std::string& /*what*/, bool integers,
                                           double z_neutral, bool (*pred)(double) = nullptr,
                                           const std::string& cond = "") {
    auto n = tb.get(k);
    if (!n) return std::nullopt;
    const std::string key = tb.key(k);
    const std::string elem = integers ? "integers" : "numbers";
    std::string expected;
    if (dims == 2)
      expected = "an array of 2 " + elem + cond + " (D2Q9 is 2D)";
    else if (dims == 3)
      expected = "an array of 3 " + elem + cond;
    else
      expected = "an array of 2 or 3 " + elem + cond;
    auto a = n->as_array();
    if (!a) {
      at(n, key + ": expected " + expected + ", " + got(*n));
      return std::nullopt;
    }
    const std::size_t len = a->size();
    const bool len_ok = dims == 3 ? len == 3 : (len == 2 || len == 3);
    if (!len_ok) {
      at(n, key + ": expected " + expected + ", got " + std::to_string(len) +
                (len == 1 ? " entry" : " entries"));
      return std::nullopt;
    }
    std::array<double, 3> r{0, 0, z_neutral};
    bool good = true;
    for (std::size_t i = 0; i < len; ++i) {
      const toml::node& e = *a->get(i);
      const std::string ek = key + "[" + std::to_string(i) + "]";
      if (integers) {
        auto v = integer_node(e, ek, "an integer" + cond, LLONG_MIN, LLONG_MAX);
        if (!v) { good = false; continue; }
        if ((pred && !pred(double(*v))) || *v > INT_MAX || *v < INT_MIN) {
          const bool wide = *v > INT_MAX || *v < INT_MIN;
          at(&e, ek + ": expected an integer" + cond + (wide ? " within 32 bits (at most 2^31 - 1)" : "") + ", " + got(e));
          good = false;
          continue;
        }
        r[i] = double(*v);
      } else {
        auto v = number_node(e, ek, "a number" + cond, pred);
        if (!v) { good = false; continue; }
        r[i] = *v;
      }
    }
    if (!good) return std::nullopt;
    if (len == 3 && dims == 2 && r[2] != z_neutral) {
      at(a->get(2), key + "[2]: must be " + fmt(z_neutral) + " for the 2D lattice D2Q9, got " +
                        fmt(r[2]));
      return std::nullopt;
    }
    return r;
  }

 private:
  // The diagnostic's sort key, with its location as text.
  Diag locate(const toml::node* n, const toml::key* k) const {
    Diag d{0, 1, 1, diags_.size(), {}};
    if (auto it = n ? override_of.find(n) : override_of.end(); it != override_of.end()) {
      d.rank = 1;
      d.line = override_index(it->second);
      d.text = "--set " + it->second;
    } else if (const auto& sp = n ? n->source().path : nullptr; sp && sp->rfind("--set ", 0) == 0) {
      d.rank = 1;
      d.line = override_index(sp->substr(6));
      d.text = *sp;
    } else {
      const toml::source_region& r = (k && k->source().begin.line) ? k->source()
                                     : n                            ? n->source()
                                                                    : toml::source_region{};
      if (r.begin.line) d.line = r.begin.line, d.col = r.begin.column;
      d.text = source_ + ":" + std::to_string(d.line) + ":" + std::to_string(d.col);
    }
    return d;
  }

  std::string source_;
  std::vector<Diag> diags_;
};

bool gt_half(double x) { return x > 0.5; }
bool positive(double x) { return x > 0; }
bool nonneg(double x) { return x >= 0; }
bool ge1(double x) { return x >= 1; }
constexpr int max_cells_per_axis = 1 << 30;
constexpr double max_cells = 1125899906842624.0;  // 2^50

std::array<int, 3> to_int3(const std::array<double, 3>& a) {
  return {int(a[0]), int(a[1]), int(a[2])};
}

double norm(const std::array<double, 3>& v) {
  return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

const std::vector<std::string> face_names{"x_min", "x_max", "y_min", "y_max", "z_min", "z_max"};
const std::vector<std::string> top_tables{"simulation", "lattice",  "domain",   "collision",
                                          "physics",    "initial",  "boundary", "obstacle",
                                          "geometry",   "output",   "validation",
                                          "parallel",   "amr",      "checkpoint", "forces",
                                          "statistics", "probe",    "units"};

// How a deck opens the table schema_keys() names `table` (arrays of tables in double brackets).
std::string table_heading(const std::string& table) {
  if (table == "region") return "[[amr.region]]";
  if (table == "obstacle" || table == "probe") return "[[" + table + "]]";
  return "[" + table + "]";
}

// All keys of all tables, for "did you mean [table] key" on stray top-level keys.
const std::map<std::string, std::vector<std::string>>& schema_keys() {
  static const std::map<std::string, std::vector<std::string>> m{
      {"simulation", {"name", "steps", "kernel", "tile", "merge_form", "traversal", "layout", "bundle", "storage"}},
      {"lattice", {"model", "precision"}},
      {"domain", {"cells"}},
      {"collision", {"model", "magic", "sgs", "smagorinsky_constant", "csm_constant", "cumulant", "cumulant_limiter"}},
      {"physics",
       {"tau", "viscosity", "reynolds", "length", "velocity", "density", "force", "mach_limit"}},
      {"initial", {"type", "velocity", "amplitude"}},
      {"boundary", face_names},
      {"face", {"type", "velocity", "density", "profile", "reference_height", "exponent", "roughness_length",
                "turbulence_intensity", "turbulence_length", "turbulence_time", "convective_velocity"}},
      {"obstacle",
       {"shape", "center", "radius", "lo", "hi", "axis", "file", "scale", "offset", "bounce_back",
        "interpolation", "invert", "angular_velocity"}},
      {"geometry", {"voxel_file", "dims", "offset"}},
      {"output", {"directory", "every", "vtk", "progress_every", "probes_every", "integrals_every"}},
      {"probe", {"name", "point", "from", "to", "points"}},
      {"validation", {"observables"}},
      {"checkpoint", {"every", "minutes", "keep", "directory"}},
      {"statistics", {"start", "every"}},
      {"units", {"dx", "velocity", "lattice_velocity", "density"}},
      {"forces", {"every", "reference_velocity", "reference_length", "reference_area", "drag_axis", "lift_axis"}},
      {"amr", {"leaf_size", "max_level", "region", "regrid_every", "criterion", "refine_above", "coarsen_below", "crmt"}},
      {"region", {"level", "lo", "hi", "near", "distance"}},
      {"parallel",
       {"dims", "overlap", "decomposition", "buffers", "ghost_width", "max_ghost_width", "blocks_per_rank"}},
  };
  return m;
}

// ---------------------------------------------------------------- --set overrides

bool valid_bare_key(const std::string& s) {
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (!std::isalnum(c) && c != '_' && c != '-') return false;
  return true;
}

// Applies the overrides to `doc`; records which nodes they own so diagnostics about those
// nodes are reported against the --set argument.
void apply_overrides(toml::table& doc, const std::vector<std::string>& overrides, Checker& chk) {
  chk.overrides = overrides;
  std::vector<std::pair<std::string, std::string>> owned;  // dotted path -> override text
  for (const std::string& ov : overrides) {
    const auto eq = ov.find('=');
    if (eq == std::string::npos) {
      chk.raw(ov, "expected key.path=value");
      continue;
    }
    const std::string keypath = trim(std::string_view(ov).substr(0, eq));
    const std::string valtext = trim(std::string_view(ov).substr(eq + 1));
    std::vector<std::string> segs;
    {
      std::size_t p = 0;
      while (true) {
        const auto d = keypath.find('.', p);
        segs.push_back(keypath.substr(p, d == std::string::npos ? std::string::npos : d - p));
        if (d == std::string::npos) break;
        p = d + 1;
      }
    }
    if (!std::all_of(segs.begin(), segs.end(), valid_bare_key)) {
      chk.raw(ov, "invalid key path '" + keypath +
                                 "' (expected dotted names like physics.tau)");
      continue;
    }
    // The value: a TOML value if it parses as one, otherwise a string.
    toml::table parsed;
    bool parsed_ok = false;
    std::string why_not;
    try {
      parsed = toml::parse("v = " + valtext + "\n", "--set " + ov);
      parsed_ok = parsed.size() == 1 && parsed.get("v") != nullptr;
    } catch (const toml::parse_error& e) {
      why_not = std::string(e.description());
    }
    // An integer TOML cannot read (only past 64 bits: digits without a leading zero or an
    // underscore) is not taken for a string; other text is one ("12ab", "007": unquoted names).
    const std::size_t sign = !valtext.empty() && (valtext[0] == '-' || valtext[0] == '+') ? 1 : 0;
    const bool digits = valtext.size() > sign + 1 && valtext[sign] != '0' &&
                        valtext.find_first_not_of("0123456789", sign) == std::string::npos;
    if (!parsed_ok && digits && !why_not.empty()) {
      chk.raw(ov, "'" + valtext + "' is not a number TOML reads: " + why_not);
      continue;
    }
    if (!parsed_ok) {
      parsed = toml::table{};
      parsed.insert_or_assign("v", valtext);
    }
    toml::table* cur = &doc;
    std::string path;
    bool fail = false;
    std::vector<std::string> created;
    for (std::size_t i = 0; i + 1 < segs.size(); ++i) {
      path += (i ? "." : "") + segs[i];
      toml::node* child = cur->get(segs[i]);
      if (!child) {
        cur->insert_or_assign(segs[i], toml::table{});
        child = cur->get(segs[i]);
        created.push_back(path);
      } else if (!child->is_table()) {
        chk.raw(ov, "cannot set '" + keypath + "': '" + path + "' is " +
                                   (child->is_array() || child->is_integer() ? "an " : "a ") + type_name(*child) +
                                   ", not a table");
        fail = true;
        break;
      }
      cur = child->as_table();
    }
    if (fail) continue;
    toml::table* target = cur;
    const std::string& leaf = segs.back();
    parsed.get("v")->visit([&](auto&& x) { target->insert_or_assign(leaf, std::move(x)); });
    for (auto& c : created) owned.emplace_back(c, ov);
    owned.emplace_back(keypath, ov);
  }
  for (const auto& [path, ov] : owned) {
    if (const toml::node* n = doc.at_path(path).node()) chk.override_of[n] = ov;
  }
}

// ---------------------------------------------------------------- the validator

// simulation.traversal: the order of the cell steps of ab_pull, ab_push, aa and the AMR levels
// (which step with ab_pull).
void check_traversal_key(Checker& c, const Config& cfg, const Tbl& sim) {
  const StreamingKernel kind = cfg.kernel.kind;
  if (kind != StreamingKernel::ABPull && kind != StreamingKernel::ABPush && kind != StreamingKernel::AA)
    c.not_used(sim, "traversal", "only used by ab_pull, ab_push, aa and the AMR levels (simulation.kernel is \"" +
                                     scheme_name(cfg.kernel) + "\")");
}

// Keys that only some kernels, layouts or ghost widths use, and ghost widths a kernel cannot
// exchange: refused here rather than ignored or found at run time.
void check_kernel_keys(Checker& c, const Config& cfg, const Tbl& sim, const Tbl& par) {
  const StreamingKernel kind = cfg.kernel.kind;
  const std::string k = scheme_name(cfg.kernel);
  const bool is_auto = kind == StreamingKernel::Auto, merged = kind == StreamingKernel::Merged,
             merged_aa = kind == StreamingKernel::MergedAA;
  const std::string kernel_is = " (simulation.kernel is \"" + k + "\")";
  if (!is_auto && !merged && !merged_aa && kind != StreamingKernel::SwapPrism)
    c.not_used(sim, "tile", "only used by swap_prism, merged2/merged3, merged_aa2/merged_aa3 and auto" + kernel_is);
  if (!is_auto && !merged) c.not_used(sim, "merge_form", "only used by merged2/merged3 and auto" + kernel_is);
  check_traversal_key(c, cfg, sim);
  if ((!is_auto || cfg.layout_required) && cfg.layout != StorageLayout::AoSoA)
    c.not_used(sim, "bundle", "only used with layout = \"aosoa\" (or kernel = \"auto\" without a layout, which tries it)");
  if (cfg.parallel.ghost_width != 0)
    c.not_used(par, "max_ghost_width", "only used with ghost_width = \"auto\"");
  if (cfg.parallel.overlap_required && !is_auto && !cfg.kernel.steps_in_parts())
    c.at(par.get("overlap"), "parallel.overlap: simulation.kernel = \"" + k +
                 "\" sweeps whole blocks and exchanges after each sweep; the overlap strategies split a step into "
                 "boundary and interior parts, which \"ab_pull\", \"ab_push\" and \"aa\" can do. Use one of "
                 "those, or overlap = \"none\"");
  const int h = cfg.parallel.ghost_width;
  const toml::node* gw = par.get("ghost_width");
  if (!gw || h == 1 || is_auto || kind == StreamingKernel::ABPull) return;
  if (merged) {
    const int steps = cfg.kernel.steps;
    if (h > 1 && h != steps)
      c.at(gw, "parallel.ghost_width = " + std::to_string(h) + " with simulation.kernel = \"" + k +
                   "\": merged<k> exchanges k = " + std::to_string(steps) +
                   " ghost layers once per sweep; leave ghost_width at 1, or set it to " + std::to_string(steps) +
                   " or \"auto\"");
    return;
  }
  c.at(gw, "parallel.ghost_width: simulation.kernel = \"" + k +
               "\" exchanges one ghost layer per step; CRMT ghost widths other than 1 apply to \"ab_pull\" and "
               "\"merged2\" / \"merged3\" only");
}

// simulation.storage = "sparse" (lbm/field/SparseField.hpp): fluid cells only, stepped by the
// pull or AA kernel over a neighbour index; links leave a rank through its own cells' slots, so
// only walls and periodic faces close them (the other face rules read slots those links reuse).
void check_sparse_storage(Checker& c, const Config& cfg, const Tbl& root, const Tbl& sim, const Tbl& par) {
  const std::string why = " with simulation.storage = \"sparse\"";
  const StreamingKernel kind = cfg.kernel.kind;
  if (const auto* k = sim.get("kernel"); k && kind != StreamingKernel::ABPull && kind != StreamingKernel::AA &&
                                          kind != StreamingKernel::Auto)
    c.at(k, "simulation.kernel = \"" + scheme_name(cfg.kernel) + "\"" + why +
                ": the sparse storage steps with \"aa\" (seed 002's choice) or \"ab_pull\" (the reference); "
                "\"auto\" takes \"aa\"");
  for (const char* key : {"layout", "bundle", "tile", "merge_form", "traversal"})
    c.not_used(sim, key, "not used by the sparse storage (one array per direction over its fluid cells, no tiles)");
  if (cfg.parallel.ghost_width != 0) c.not_used(par, "max_ghost_width", "only used with ghost_width = \"auto\"");
  if (const auto* o = par.get("overlap"); o && cfg.parallel.overlap != OverlapKind::None &&
                                          cfg.parallel.overlap != OverlapKind::Interior)
    c.at(o, std::string("parallel.overlap = \"") + overlap_name(cfg.parallel.overlap) + "\"" + why +
                ": its link exchange overlaps the cells without remote links (\"interior\") or runs before the "
                "step (\"none\")");
  if (const auto* gw = par.get("ghost_width"); gw && cfg.parallel.ghost_width != 1)
    c.at(gw, "parallel.ghost_width" + why + ": the sparse storage has no ghost layers (CRMT needs them); use 1");
  if (root.get("amr")) c.at(root.get("amr"), "amr" + why + ": AMR levels keep dense leaves; use storage = \"dense\"");
  const Tbl bnd{root.get("boundary") ? root.get("boundary")->as_table() : nullptr, "boundary", "boundary"};
  for (int f = 0; f < num_faces; ++f) {
    const FaceBC t = cfg.faces[f].type;
    if (t == FaceBC::Periodic || t == FaceBC::Wall) continue;
    const toml::node* n = bnd.t ? bnd.t->at_path(face_names[f] + ".type").node() : nullptr;
    c.at(n ? n : sim.get("storage"), "boundary." + face_names[f] + ".type" + why +
                                        ": only \"wall\" and \"periodic\" faces (moving walls, inlets and outlets need "
                                        "the boundary cells' slots of the dense storage)");
  }
}

// What reads a neighbour's post-collision populations (Config::needs_pull_kernel) runs on ab_pull,
// which "auto" takes; `reads` says what the feature reads there.
bool runs_on_pull(const Config& cfg) {
  return cfg.kernel.kind == StreamingKernel::ABPull || cfg.kernel.kind == StreamingKernel::Auto;
}
std::string pull_kernel_refusal(const std::string& what, const std::string& reads, const Config& cfg) {
  return what + " is applied by the \"ab_pull\" kernel, which " + reads + "; simulation.kernel is \"" +
         scheme_name(cfg.kernel) + "\" (\"auto\" takes \"ab_pull\")";
}

// A free-slip face reflects from the cell beside the receiving one (lbm/scheme/PullStep.hpp): the
// pull kernel still holds that population (so do the AMR leaves, which always pull).
void free_slip_face(Checker& c, const Tbl& ft, int face, bool amr, const Config& cfg) {
  const std::string what = "boundary." + face_names[face] + ".type: a free-slip (symmetry) face";
  if (!amr && !runs_on_pull(cfg) && cfg.storage == StorageKind::Dense)
    c.at(ft.get("type"), pull_kernel_refusal(what, "reads the post-collision population of the neighbour along the face", cfg));
}

// An outflow face reads the post-collision population of the cell inside (lbm/physics/Boundary.hpp):
// the pull kernel holds it (so do the AMR leaves, which always pull; sparse storage takes no open
// faces). Its speed U defaults to 1 (Config.hpp: measured the safest and least reflecting).
void outflow_face(Checker& c, const Tbl& ft, int face, bool amr, Config& cfg) {
  const std::string what = "boundary." + face_names[face] + ".type: an outflow face";
  if (!amr && cfg.storage == StorageKind::Dense && !runs_on_pull(cfg))
    c.at(ft.get("type"), pull_kernel_refusal(what, "reads the post-collision population of the cell inside", cfg));
  if (auto u = c.number(ft, "convective_velocity", "a number in (0, 1] (lattice units: the speed at which the flow leaves)",
                        [](double x) { return x > 0 && x <= 1; }))
    cfg.faces[face].convective_velocity = *u;
}

// Synthetic turbulence of velocity inlet `face` (lbm/physics/InflowTurbulence.hpp): one inlet, the
// pull kernel (its field is refreshed before every step; the AMR leaves always pull), dense storage.
void inflow_turbulence(Checker& c, const Tbl& ft, int face, bool amr, Config& cfg) {
  FaceCondition& fc = cfg.faces[face];
  const std::string key = ft.key("turbulence_intensity");
  if (!ft.get("turbulence_intensity")) {
    c.not_used(ft, "turbulence_length", "turbulence_length is only used with turbulence_intensity");
    c.not_used(ft, "turbulence_time", "turbulence_time is only used with turbulence_intensity");
    return;
  }
  const std::string what = "a number in (0, 0.5] (RMS of each velocity component / the local mean speed)";
  if (auto v = c.number(ft, "turbulence_intensity", what, [](double x) { return x > 0 && x <= 0.5; }))
    fc.turbulence_intensity = *v;
  if (auto v = c.number(ft, "turbulence_length", "a number >= 1 (cells)", [](double x) { return x >= 1; }))
    fc.turbulence_length = *v;
  if (auto v = c.number(ft, "turbulence_time", "a number >= 1 (time steps)", [](double x) { return x >= 1; }))
    fc.turbulence_time = *v;
  for (int other = 0; other < face; ++other)
    if (cfg.faces[other].turbulence_intensity > 0) {
      c.at(ft.get("turbulence_intensity"), key + ": only one inlet carries synthetic turbulence (" +
                                               face_names[other] + " does already)");
      return;
    }
  if (!amr && !runs_on_pull(cfg))
    c.at(ft.get("turbulence_intensity"), key + ": inflow turbulence is verified on the \"ab_pull\" kernel only; "
                                             "simulation.kernel is \"" + scheme_name(cfg.kernel) +
                                             "\" (\"auto\" takes \"ab_pull\")");
}

// The axis heights are measured along: y in 2D, z in 3D (and where the lattice is unknown).
int vertical_axis(int dims) { return dims == 2 ? 1 : 2; }

// The speed profile of velocity inlet `face` (lbm/physics/Boundary.hpp InletProfile).
void inlet_profile(Checker& c, const Tbl& ft, int face, int dims, FaceCondition& fc) {
  const std::string key = ft.key("profile");
  if (auto k = c.choice(ft, "profile", inlet_profile_names())) fc.profile = InletProfileKind(*k);
  const bool law = fc.profile == InletProfileKind::PowerLaw || fc.profile == InletProfileKind::LogLaw;
  const std::string law_name = inlet_profile_names()[int(fc.profile)];
  const int up = vertical_axis(dims);
  if (law && face / 2 == up)
    c.at(ft.get("profile"), key + ": \"" + law_name + "\" varies with the height (" + "xyz"[up] +
                                "), so it cannot be the profile of a face normal to it");
  const std::string height_what = "a number > 0 (cells above the ground, the lower face along " +
                                  std::string(1, "xyz"[up]) + ", where the speed is `velocity`)";
  if (law) {
    if (!ft.get("reference_height"))
      c.missing(ft, "reference_height", height_what);
    else if (auto v = c.number(ft, "reference_height", height_what, positive))
      fc.reference_height = *v;
  } else {
    c.not_used(ft, "reference_height", "reference_height is only used by profiles \"power_law\" and \"log_law\"");
  }
  if (fc.profile == InletProfileKind::PowerLaw) {
    if (auto v = c.number(ft, "exponent", "a number > 0 (alpha of (h / h_ref)^alpha)", positive)) fc.exponent = *v;
  } else {
    c.not_used(ft, "exponent", "exponent is only used by profile \"power_law\"");
  }
  if (fc.profile == InletProfileKind::LogLaw) {
    const std::string what = "a number > 0 (the roughness length z0, cells)";
    if (!ft.get("roughness_length"))
      c.missing(ft, "roughness_length", what);
    else if (auto v = c.number(ft, "roughness_length", what, positive))
      fc.roughness_length = *v;
  } else {
    c.not_used(ft, "roughness_length", "roughness_length is only used by profile \"log_law\"");
  }
}

// initial.type = "channel" (lbm/field/Field.cpp): a 3D stream along x between walls at the y
// faces, whose bulk velocity is initial.velocity.
void initial_channel(Checker& c, const Tbl& ini, const Tbl& root, int dims, const Config& cfg) {
  const std::string why = "initial.type = \"channel\" starts a stream along x between walls at y_min and y_max";
  if (dims != 3) c.at(ini.get("type"), why + "; it needs a 3D lattice");
  const auto& v = cfg.initial_velocity;
  if (!ini.get("velocity") || !(v[0] > 0) || v[1] != 0 || v[2] != 0)
    c.at(ini.get("velocity") ? ini.get("velocity") : ini.get("type"),
         "initial.velocity: " + why + ": give its bulk velocity as [U, 0, 0] with U > 0");
  const toml::node* boundary = root.get("boundary");
  for (int f : {YMin, YMax})
    if (cfg.faces[f].type != FaceBC::Wall) {
      const toml::node* type = boundary && boundary->is_table() ? boundary->as_table()->at_path(face_names[f] + ".type").node() : nullptr;
      c.at(type ? type : boundary ? boundary : ini.get("type"),
           "boundary." + face_names[f] + ": " + why + "; make it type = \"wall\"");
    }
}

// Quadratic interpolated bounce-back reads f* two cells behind a wall cell: one step's reach is two
// cells (comm/Crmt.hpp), so the exchange every step carries two ghost layers, the default here.
void quadratic_wall_ghosts(Checker& c, const Tbl& par, Config& cfg) {
  const toml::node* gw = par.get("ghost_width");
  const std::string why = ": quadratic interpolated bounce-back reads populations two cells from the wall, one "
                          "step's reach is two cells";
  if (!gw)
    cfg.parallel.ghost_width = 2;
  else if (cfg.parallel.ghost_width == 1)
    c.at(gw, "parallel.ghost_width = 1" + why + "; set 2 or more (2: an exchange every step), \"auto\", or leave it out");
  else if (cfg.parallel.ghost_width == 0 && cfg.parallel.max_ghost_width < 2)
    c.at(par.get("max_ghost_width"), "parallel.max_ghost_width = 1" + why + "; set 2 or more");
}

// [parallel] with [amr]: the leaves are shared along the Morton curve (amr/Partition.hpp) and
// exchanged whole (comm/LeafHalo.hpp) under parallel.overlap; the Cartesian keys do not apply,
// and CRMT on leaves is amr.crmt (its period follows from the forest, not from a ghost width).
void check_amr_parallel(Checker& c, const Config& cfg, const Tbl& par) {
  const std::string why = ": with [amr] the ranks share the leaves along the Morton curve (README \"AMR\")";
  for (const char* key : {"dims", "decomposition", "blocks_per_rank", "max_ghost_width"}) c.not_used(par, key, "not used" + why);
  c.not_used(par, "buffers", "not used with [amr]: whole leaves are staged through the host");
  if (const auto* gw = par.get("ghost_width"); gw && cfg.parallel.ghost_width != 1)
    c.at(gw, "parallel.ghost_width: AMR leaves exchange whole leaves; CRMT on leaves is amr.crmt = true (its "
             "period is derived from the forest); use 1 or leave it out");
}

// [amr] and its [[amr.region]] list (amr/Refinement.hpp). The AMR levels step with the pull
// kernel of their own (amr/AmrLattice.hpp), so a deck naming another kernel is refused.
void parse_amr(Checker& c, const Tbl& root, Config& cfg, const Tbl& sim, bool cells_ok) {
  const Tbl amr = c.table(root, "amr", "amr");
  if (amr.broken) return;
  c.unknown_keys(amr, schema_keys().at("amr"));
  cfg.amr.enabled = true;
  if (auto n = amr.get("leaf_size")) {
    auto v = c.integer_node(*n, "amr.leaf_size", "4, 8 or 16", 4, 16);
    if (v && (*v == 4 || *v == 8 || *v == 16))
      cfg.amr.leaf_size = int(*v);
    else if (v)
      c.at(n, "amr.leaf_size: expected 4, 8 or 16, " + got(*n));
  }
  const auto max_level = c.integer(amr, "max_level", "an integer from 0 to 8", 0, 8);
  if (max_level) cfg.amr.max_level = int(*max_level);
  const bool max_level_ok = max_level || !amr.get("max_level");  // else its own error says why
  cfg.locations["amr.max_level"] = c.where(amr.get("max_level") ? amr.get("max_level") : amr.t);  // check_amr_memory
  const int dims = cfg.dimensions(), n = cfg.amr.leaf_size;
  if (cells_ok)
    for (int d = 0; d < dims; ++d)
      if (cfg.cells[d] % n != 0) {
        c.at(root.t->at_path("domain.cells").node(), "domain.cells[" + std::to_string(d) + "] = " + std::to_string(cfg.cells[d]) +
                                     ": with [amr] every extent must be a multiple of amr.leaf_size = " +
                                     std::to_string(n));
        break;
      }
  if (const auto* k = sim.get("kernel"); k && cfg.kernel.kind != StreamingKernel::ABPull &&
                                          cfg.kernel.kind != StreamingKernel::Auto)
    c.at(k, "simulation.kernel: AMR levels step with their own two-lattice pull kernel; use \"ab_pull\" or "
            "\"auto\", or leave the key out");
  for (const char* key : {"layout", "bundle", "tile", "merge_form"})
    c.not_used(sim, key, "not used with [amr]: the levels' leaves step with their own pull kernel (one array per "
                         "direction, no tiles)");
  check_traversal_key(c, cfg, sim);
  if (auto r = c.integer(amr, "regrid_every", "an integer >= 0 (level-0 steps; 0: no regridding)", 0))
    cfg.amr.regrid_every = long(*r);
  if (auto b = c.boolean(amr, "crmt")) cfg.amr.crmt = *b;
  if (auto k = c.choice(amr, "criterion", {"vorticity", "gradient"})) cfg.amr.criterion = RegridCriterion(*k);
  if (auto a = c.number(amr, "refine_above", "a number > 0 (velocity change per cell, lattice units)", positive))
    cfg.amr.refine_above = *a;
  cfg.amr.coarsen_below = cfg.amr.refine_above / 2;
  if (auto b = c.number(amr, "coarsen_below", "a number >= 0 (velocity change per cell, lattice units)",
                        [](double x) { return x >= 0; }))
    cfg.amr.coarsen_below = *b;
  if (cfg.amr.regrid_every > 0 && !amr.get("refine_above"))
    c.missing(amr, "refine_above", "a number > 0: the indicator above which blocks are refined (amr.regrid_every > 0)");
  if (cfg.amr.regrid_every == 0)
    for (auto k : {"criterion", "refine_above", "coarsen_below"})
      c.not_used(amr, k, std::string(k) + " is only used with amr.regrid_every > 0");
  if (amr.get("coarsen_below") && cfg.amr.coarsen_below >= cfg.amr.refine_above && cfg.amr.refine_above > 0)
    c.at(amr.get("coarsen_below"), "amr.coarsen_below: expected less than amr.refine_above = " + fmt(cfg.amr.refine_above) +
                                       " (the band between them keeps blocks from flickering)");
  const auto* rn = amr.get("region");
  if (!rn) return;
  if (!rn->is_array_of_tables()) {
    c.at(rn, "amr.region: expected an array of tables ([[amr.region]]), " + got(*rn));
    return;
  }
  const auto& arr = *rn->as_array();
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string name = "amr.region[" + std::to_string(i) + "]";
    const Tbl rt{arr.get(i)->as_table(), name, name};
    c.unknown_keys(rt, schema_keys().at("region"));
    AmrRegion r;
    bool good = true;
    const std::string level_expected =
        "an integer from 1 to amr.max_level" + (max_level_ok ? " = " + std::to_string(cfg.amr.max_level) : std::string());
    if (!rt.get("level")) {
      c.missing(rt, "level", level_expected);
      good = false;
    } else if (auto l = c.integer(rt, "level", level_expected, 1, max_level_ok ? std::max(1, cfg.amr.max_level) : 8);
               l && *l <= cfg.amr.max_level) {
      r.level = int(*l);
    } else {
      if (l && max_level_ok) c.at(rt.get("level"), name + ".level: expected " + level_expected + ", got " + std::to_string(*l));
      good = false;
    }
    if (rt.get("near")) {
      r.kind = AmrRegion::Kind::NearWalls;
      if (!c.choice(rt, "near", {"walls"})) good = false;
      bool walls = !cfg.obstacles.empty() || root.get("geometry");
      for (const FaceCondition& f : cfg.faces) walls = walls || f.type == FaceBC::Wall || f.type == FaceBC::MovingWall;
      if (good && !walls) {
        c.at(rt.get("near"), name + ".near: \"walls\" would refine nothing: the domain has no wall or moving-wall "
                                    "face, no [[obstacle]] and no [geometry] (inlet, outlet, free-slip and periodic "
                                    "faces do not count)");
        good = false;
      }
      for (auto k : {"lo", "hi"}) c.not_used(rt, k, std::string(k) + " is only used by box regions (without near)");
      if (!rt.get("distance"))
        c.missing(rt, "distance", "a number >= 0 (level-0 cells)");
      else if (auto d = c.number(rt, "distance", "a number >= 0 (level-0 cells)", [](double x) { return x >= 0; }))
        r.distance = *d;
      else
        good = false;
    } else {
      c.not_used(rt, "distance", "distance is only used with near = \"walls\"");
      for (auto k : {"lo", "hi"})
        if (!rt.get(k)) {
          c.missing(rt, k, "the box corner as an array of level-0 cell-centre coordinates (or near = \"walls\")");
          good = false;
        }
      auto lo = c.vec(rt, "lo", dims, "lo", false, 0), hi = c.vec(rt, "hi", dims, "hi", false, 0);
      if (lo && hi) {
        r.lo = *lo;
        r.hi = *hi;
        for (int d = 0; d < 3; ++d)
          if (r.lo[d] > r.hi[d]) {
            c.at(rt.get("hi"), name + ".hi: expected lo <= hi in every component");
            good = false;
            break;
          }
        for (int d = 0; d < dims && good && cells_ok; ++d)
          // It refines blocks within half a level-0 cell of it (amr/AmrSolver.cpp region_wants):
          // beyond that from the domain it would refine nothing.
          if (r.hi[d] <= -1 || r.lo[d] >= cfg.cells[d]) {
            c.at(rt.get("lo"), name + ": the box lies outside the domain along " + "xyz"[d] + " (" + fmt(r.lo[d]) +
                                   " to " + fmt(r.hi[d]) + "; level-0 cell centres lie at 0 to " +
                                   std::to_string(cfg.cells[d] - 1) + ", and a region reaches half a cell beyond its box)");
            good = false;
          }
      } else {
        good = false;
      }
    }
    if (good) cfg.amr.regions.push_back(r);
  }
}

// A deck's input file path, relative ones resolved against the deck's directory.
fs::path input_path(const std::string& file, const std::string& base_dir) {
  fs::path p(file);
  if (p.is_relative() && !base_dir.empty()) p = fs::path(base_dir) / p;
  return p.lexically_normal();
}

// Reports `key` if `p` (the deck's `file`) cannot be read.
bool readable(Checker& c, const toml::node* node, const std::string& key, const fs::path& p,
              const std::string& file) {
  std::error_code ec;
  const bool is_file = fs::is_regular_file(p, ec);
  std::ifstream in(p, std::ios::binary);
  if (is_file && in) return true;
  const std::string why = fs::exists(p, ec) ? (is_file ? std::string(std::strerror(errno)) : std::string("not a regular file"))
                                            : std::string("no such file");
  c.at(node, key + ": cannot read '" + p.string() + "' (" + why + ")" +
                 (fs::path(file).is_relative() ? "; relative paths are resolved against the deck's directory" : ""));
  return false;
}

// How an [[obstacle]]'s links are closed: bounce_back, invert, angular_velocity.
// Per-link data (crossing fractions, wall velocities) is read by the two-lattice pull kernel of
// dense blocks only (lbm/scheme/PullStep.hpp).
bool obstacle_walls(Checker& c, const Tbl& ot, const std::string& name, const Config& cfg, bool amr, Obstacle& ob) {
  bool good = true;
  if (auto b = c.choice(ot, "bounce_back", {"halfway", "interpolated"}))
    ob.bounce_back = Obstacle::BounceBack(*b);
  else if (ot.get("bounce_back"))
    good = false;
  if (ob.bounce_back != Obstacle::BounceBack::Interpolated) {
    c.not_used(ot, "interpolation", "only used with bounce_back = \"interpolated\"");
  } else if (auto i = c.choice(ot, "interpolation", {"linear", "quadratic"})) {
    ob.interpolation = Obstacle::Interpolation(*i);
    // The leaves' ghost ring is one cell deep (amr/AmrLattice.hpp); the quadratic rule reads two.
    if (amr && ob.quadratic()) {
      c.at(ot.get("interpolation"), name + ".interpolation = \"quadratic\" reads populations two cells from the "
                                           "wall, and AMR leaves carry one ghost cell; use \"linear\" with [amr]");
      good = false;
    }
  } else if (ot.get("interpolation")) {
    good = false;
  }
  const bool analytic = ob.shape == Obstacle::Shape::Box || ob.shape == Obstacle::Shape::Sphere ||
                        ob.shape == Obstacle::Shape::Cylinder;
  if (auto v = c.boolean(ot, "invert")) {
    ob.invert = *v;
    if (*v && !analytic) {
      c.at(ot.get("invert"), name + ".invert: only shapes \"box\", \"sphere\" and \"cylinder\" can be inverted");
      good = false;
    }
  } else if (ot.get("invert")) {
    good = false;
  }
  if (auto w = c.number(ot, "angular_velocity", "a number (radians per time step, about the cylinder's axis)")) {
    ob.angular_velocity = *w;
    if (ob.shape != Obstacle::Shape::Cylinder) {
      c.at(ot.get("angular_velocity"), name + ".angular_velocity: only a cylinder rotates (about its axis)");
      good = false;
    }  // its surface speed takes the Mach check with the deck's other speeds
  }
  // The AMR leaves keep per-link data and always pull (amr/AmrLattice.hpp).
  if (good && ob.needs_wall_links() && !amr) {
    const toml::node* n = ot.get("bounce_back") ? ot.get("bounce_back") : ot.get("angular_velocity");
    const std::string what = name + (ob.bounce_back == Obstacle::BounceBack::Interpolated
                                         ? ": interpolated bounce-back"
                                         : ": a rotating obstacle");
    if (cfg.storage == StorageKind::Sparse) {
      c.at(n, what + " needs simulation.storage = \"dense\" (the sparse storage keeps no per-link data)");
      good = false;
    } else if (!runs_on_pull(cfg)) {
      c.at(n, pull_kernel_refusal(what, "reads the neighbour's post-collision populations it interpolates", cfg));
      good = false;
    }
  }
  return good;
}

// Why a box, sphere or cylinder (not inverted) holds no cell centre of refinement level `level`
// (centres at (i + 1/2) 2^-level - 1/2 in level-0 cell-centre coordinates on the refined axes),
// or "": DomainGeometry tests cells at their centres, so one that holds none of any level is
// solid nowhere.
std::string holds_no_cell_centre(const Obstacle& ob, const std::array<int, 3>& cells, int dims, int level) {
  const auto spacing = [&](int d) { return d < dims ? std::ldexp(1.0, -level) : 1.0; };
  const auto count = [&](int d) { return d < dims ? static_cast<long>(cells[d]) << level : long(cells[d]); };
  const auto centre = [&](int d, double i) { return (i + 0.5) * spacing(d) - 0.5; };
  const auto index = [&](int d, double x) { return (x + 0.5) / spacing(d) - 0.5; };  // centre's inverse
  if (ob.shape == Obstacle::Shape::Box) {
    for (int d = 0; d < 3; ++d) {
      const double first = std::max(0.0, std::ceil(index(d, ob.lo[d])));  // the lowest centre >= lo
      if (first > double(count(d) - 1) || centre(d, first) > ob.hi[d])
        return std::string("the box holds no cell centre: along ") + "xyz"[d] + " it spans " + fmt(ob.lo[d]) + " to " +
               fmt(ob.hi[d]) + ", and cell centres lie at " +
               (d < dims && level > 0 ? "steps of " + fmt(spacing(d)) : std::string("integer coordinates")) + " from " +
               fmt(centre(d, 0)) + " to " + fmt(centre(d, double(count(d) - 1)));
    }
    return "";
  }
  double r2 = 0;  // from the centre to the nearest cell centre, axis by axis
  for (int d = 0; d < 3; ++d) {
    if (ob.shape == Obstacle::Shape::Cylinder && d == ob.axis) continue;
    const double i = std::clamp(std::round(index(d, ob.center[d])), 0.0, double(count(d) - 1));
    r2 += (centre(d, i) - ob.center[d]) * (centre(d, i) - ob.center[d]);
  }
  if (r2 <= ob.radius * ob.radius) return "";
  return std::string("the ") + (ob.shape == Obstacle::Shape::Sphere ? "sphere" : "cylinder") +
         " holds no cell centre of the domain: the nearest lies " + fmt6(std::sqrt(r2)) + " cells from its axis or centre, its radius is " +
         fmt(ob.radius);
}

// Why an inverted box, sphere or cylinder is solid nowhere: the shape (convex) holds every cell
// centre of every level up to `finest`, as it holds the corners of the finest level's; or "".
std::string holds_every_cell_centre(const Obstacle& ob, const std::array<int, 3>& cells, int dims, int finest) {
  const double h = std::ldexp(1.0, -finest);
  for (int corner = 0; corner < 8; ++corner) {
    std::array<double, 3> p{};
    for (int d = 0; d < 3; ++d)
      p[d] = d < dims ? (corner >> d & 1 ? cells[d] - 0.5 - 0.5 * h : 0.5 * h - 0.5) : (corner >> d & 1 ? cells[d] - 1.0 : 0.0);
    double r2 = 0;
    bool inside = true;
    for (int d = 0; d < 3; ++d) {
      if (ob.shape == Obstacle::Shape::Box) inside = inside && p[d] >= ob.lo[d] && p[d] <= ob.hi[d];
      else if (ob.shape == Obstacle::Shape::Sphere || d != ob.axis) r2 += (p[d] - ob.center[d]) * (p[d] - ob.center[d]);
    }
    if (!inside || (ob.shape != Obstacle::Shape::Box && r2 > ob.radius * ob.radius)) return "";
  }
  return "the inverted " + obstacle_shape_names()[int(ob.shape)] + " holds every cell centre of the domain";
}

// The keys of an [[obstacle]] of shape "stl" or "height_map". The file is read here, so that a
// malformed one is refused before any work; the solid it bounds must reach into the domain, and
// `bounds` gets the box around it in cell-centre coordinates.
bool surface_obstacle(Checker& c, const Tbl& ot, int dims, const std::string& base_dir, bool cells_ok, Config& cfg,
                      Obstacle& ob, Obstacle& bounds) {
  const bool stl = ob.shape == Obstacle::Shape::Surface;
  const std::string what = stl ? "a path to an STL file (ASCII or binary)" : "a path to an ESRI ASCII grid of heights";
  for (auto k : {"lo", "hi", "center", "radius", "axis"})
    c.not_used(ot, k, std::string(k) + " is not used by shapes \"stl\" and \"height_map\" (use file, scale, offset)");
  if (dims == 2) {
    c.at(ot.get("shape"), ot.key("shape") + ": \"" + obstacle_shape_names()[int(ob.shape)] +
                              "\" needs a 3D lattice (D3Q19 or D3Q27)");
    return false;
  }
  bool good = true;
  if (auto v = c.number(ot, "scale", "a number > 0 (cells per length unit of the file)", positive))
    ob.placement.scale = *v;
  else if (ot.get("scale"))
    good = false;
  if (auto v = c.vec(ot, "offset", 3, "offset", false, 0))
    ob.placement.offset = *v;
  else if (ot.get("offset"))
    good = false;
  if (!ot.get("file")) {
    c.missing(ot, "file", what);
    return false;
  }
  const auto file = c.string(ot, "file", what);
  if (!file || file->empty()) {
    if (file) c.at(ot.get("file"), ot.key("file") + ": expected a non-empty path");
    return false;
  }
  const fs::path p = input_path(*file, base_dir);
  ob.file = p.string();
  if (!readable(c, ot.get("file"), ot.key("file"), p, *file) || !good) return false;
  Vertex lo, hi;  // the solid's bounding box in cell-centre coordinates
  try {
    if (stl) {
      const TriangleMesh mesh = read_stl(ob.file);
      // Closed, consistently oriented surfaces (several shells, repeated triangles) are decided
      // exactly by their winding number (lbm/field/SurfaceSolid.hpp); others by ray parity.
      if (const MeshEdges edges = mesh_edges(mesh); edges.open > 0 && edges.unbalanced > 0)
        cfg.warnings.push_back(ot.name + ": '" + ob.file + "' is not watertight (" + std::to_string(edges.open) +
                               " edges not shared by two triangles): a cell is inside when two of the three "
                               "rays from it along x, y and z say so");
      lo.fill(HUGE_VAL);
      hi.fill(-HUGE_VAL);
      for (const Triangle& t : mesh.triangles)
        for (const Vertex& v : t)
          for (int d = 0; d < 3; ++d) {
            lo[d] = std::min(lo[d], v[d]);
            hi[d] = std::max(hi[d], v[d]);
          }
    } else {
      const HeightMap map = read_height_map(ob.file);
      double top = -HUGE_VAL;
      for (double h : map.heights) top = std::max(top, h);
      lo = {map.x0, map.y0, -HUGE_VAL};
      hi = {map.x0 + map.ncols * map.cell_size, map.y0 + map.nrows * map.cell_size, top};
    }
  } catch (const Error& e) {
    c.at(ot.get("file"), ot.key("file") + ": " + e.what());
    return false;
  }
  for (int d = 0; d < 3 && cells_ok; ++d) {
    const double a = ob.placement.offset[d] + ob.placement.scale * lo[d];
    const double b = ob.placement.offset[d] + ob.placement.scale * hi[d];
    bounds.shape = Obstacle::Shape::Box;
    bounds.lo[d] = a;
    bounds.hi[d] = b;
    // Across periodic faces the solid repeats one period away (lbm/field/Geometry.cpp).
    const double n = cfg.cells[d];
    const auto outside = [&](double shift) { return b + shift < -0.5 || a + shift > n - 0.5; };
    if (outside(0) && (cfg.faces[2 * d].type != FaceBC::Periodic || (outside(n) && outside(-n)))) {
      c.at(ot.get("file"), ot.key("file") + ": the solid of '" + ob.file + "' lies outside the domain along " +
                               "xyz"[d] + ": it spans " + fmt(a) + " to " + fmt(b) + " in cell coordinates, the domain " +
                               "-0.5 to " + fmt(cfg.cells[d] - 0.5) + " (check scale and offset)");
      return false;
    }
  }
  return true;
}

Config validate(const toml::table& doc, Checker& c, const std::string& source_name,
                const std::string& base_dir) {
  Config cfg;
  const Tbl root{&doc, "", ""};

  // Top level: only known tables.
  for (auto&& [k, v] : doc) {
    const std::string key(k.str());
    if (std::find(top_tables.begin(), top_tables.end(), key) != top_tables.end()) continue;
    std::string near = nearest(key, top_tables);
    if (v.is_table() || v.is_array_of_tables()) {
      c.at(&v, &k, "unknown table [" + key + "]" +
                       (near.empty() ? " (the tables are " + join(top_tables) + ")" : "; did you mean [" + near + "]?"));
      continue;
    }
    std::string msg = "unknown top-level key '" + key + "'";
    std::string owner;
    for (const auto& [tname, keys] : schema_keys())
      if (tname != "face" && tname != "boundary" &&
          std::find(keys.begin(), keys.end(), key) != keys.end()) {
        owner = tname;
        break;
      }
    if (!owner.empty())
      msg += "; keys belong in a table: did you mean '" + key + "' under " + table_heading(owner) + "?";
    else if (!near.empty())
      msg += "; did you mean table [" + near + "]?";
    c.at(&v, &k, msg);
  }

  // [lattice] first: the dimension shapes other checks.
  const Tbl lat = c.table(root, "lattice", "lattice");
  c.unknown_keys(lat, schema_keys().at("lattice"));
  int dims = 0;
  {
    const std::vector<std::string> models{"D2Q9", "D3Q19", "D3Q27"};
    if (!lat.get("model")) {
      c.missing(lat, "model", "one of " + join(models));
    } else if (auto m = c.choice(lat, "model", models)) {
      cfg.lattice = *m == 0 ? LatticeKind::D2Q9 : *m == 1 ? LatticeKind::D3Q19 : LatticeKind::D3Q27;
      dims = cfg.dimensions();
    }
    if (auto p = c.choice(lat, "precision", {"double", "float"}))
      cfg.precision = *p == 0 ? Precision::Double : Precision::Float;
  }

  // [simulation]
  const Tbl sim = c.table(root, "simulation", "simulation");
  bool kernel_ok = true;
  c.unknown_keys(sim, schema_keys().at("simulation"));
  cfg.name = fs::path(source_name).stem().string();
  if (cfg.name.empty()) cfg.name = "boreas";
  if (auto n = c.string(sim, "name", "a non-empty string without '/' or '\\'")) {
    if (n->empty() || n->find('/') != std::string::npos || n->find('\\') != std::string::npos)
      c.at(sim.get("name"), "simulation.name: expected a non-empty string without '/' or '\\', got '" +
                                *n + "'");
    else
      cfg.name = *n;
  }
  if (!sim.get("steps"))
    c.missing(sim, "steps", "an integer >= 1");
  else if (auto s = c.integer(sim, "steps", "an integer >= 1", 1))
    cfg.steps = long(*s);
  {
    std::vector<std::string> kernels = known_kernels();
    kernels.push_back("auto");  // drivers/KernelChoice.hpp
    if (auto k = c.choice(sim, "kernel", kernels)) cfg.kernel = *parse_scheme(kernels[*k]);
    else kernel_ok = !sim.get("kernel");
  }
  if (auto t = c.integer(sim, "tile", "an integer from 2 to 2^31 - 1", 2, INT_MAX)) cfg.tile = int(*t);
  if (auto f = c.choice(sim, "merge_form", {"auto", "slabs", "tiles"})) cfg.merge_form = MergeForm(*f);
  if (auto t = c.choice(sim, "traversal", {"auto", "cells"})) cfg.traversal = Traversal(*t);
  if (auto l = c.choice(sim, "layout", {"soa", "aosoa"})) {
    cfg.layout = StorageLayout(*l);
    cfg.layout_required = true;
  }
  if (auto b = c.integer(sim, "bundle", "an integer from 1 to 2^31 - 1", 1, INT_MAX)) cfg.bundle = int(*b);
  if (auto st = c.choice(sim, "storage", {"dense", "sparse"})) cfg.storage = StorageKind(*st);

  // [domain]
  const Tbl dom = c.table(root, "domain", "domain");
  c.unknown_keys(dom, schema_keys().at("domain"));
  bool cells_ok = false;
  if (!dom.get("cells")) {
    c.missing(dom, "cells",
              dims == 2 ? "an array of 2 integers >= 1 (D2Q9 is 2D)"
              : dims == 3 ? "an array of 3 integers >= 1"
                          : "an array of 2 (D2Q9) or 3 integers >= 1");
  } else if (auto v = c.vec(dom, "cells", dims, "cells", true, 1, ge1, " >= 1")) {
    cfg.cells = to_int3(*v);
    cells_ok = dims != 0;
    // Cell indices along an axis, ghosts and row padding included, stay far from INT_MAX.
    for (int d = 0; d < 3; ++d)
      if (cfg.cells[d] > max_cells_per_axis) {
        c.at(dom.get("cells"), "domain.cells: " + std::to_string(cfg.cells[d]) + " cells along " + "xyz"[d] +
                                   " exceed the largest extent Boreas indexes, " + std::to_string(max_cells_per_axis) +
                                   " (2^30)");
        cells_ok = false;
      }
    // Byte counts (cells * Q * 8 * lattices) stay far from 2^63.
    const double total = double(cfg.cells[0]) * cfg.cells[1] * cfg.cells[2];
    if (cells_ok && total > max_cells) {
      c.at(dom.get("cells"), "domain.cells: " + std::to_string(cfg.cells[0]) + " x " + std::to_string(cfg.cells[1]) +
                                 " x " + std::to_string(cfg.cells[2]) + " = " + fmt(total) +
                                 " cells exceed the most Boreas counts, 2^50");
      cells_ok = false;
    }
  }
  cfg.locations["domain.cells"] = c.where(dom.get("cells") ? dom.get("cells") : dom.t);

  // [collision]
  const Tbl col = c.table(root, "collision", "collision");
  c.unknown_keys(col, schema_keys().at("collision"));
  bool trt = false, collision_known = true;
  if (col.get("model")) {
    if (auto m = c.choice(col, "model", {"BGK", "TRT", "cumulant"})) {
      cfg.collision = *m == 0 ? CollisionKind::BGK : *m == 1 ? CollisionKind::TRT : CollisionKind::Cumulant;
      trt = *m == 1;
      if (cfg.collision == CollisionKind::Cumulant && dims != 0 && cfg.lattice != LatticeKind::D3Q27)
        c.at(col.get("model"), std::string("collision.model: the cumulant collision is defined on D3Q27 (its 27 "
                                           "velocities carry the cumulants it relaxes); lattice.model is ") +
                                   lattice_name(cfg.lattice) + ": use D3Q27, or BGK/TRT");
    } else {
      collision_known = false;
    }
  }
  if (col.get("magic")) {
    if (collision_known && !trt)
      c.not_used(col, "magic", std::string("magic is only used by TRT (collision.model is ") +
                                   collision_name(cfg.collision) + ")");
    else if (auto m = c.number(col, "magic", "a number > 0", positive))
      cfg.trt_magic = *m;
  }
  if (col.get("cumulant")) {
    if (collision_known && cfg.collision != CollisionKind::Cumulant)
      c.not_used(col, "cumulant", std::string("cumulant is only used by collision.model = \"cumulant\" (collision.model is ") +
                                      collision_name(cfg.collision) + ")");
    else if (auto m = c.choice(col, "cumulant", {"standard", "parametrised"}))
      cfg.cumulant_parametrised = *m == 1;
  }
  if (col.get("cumulant_limiter")) {
    if (!cfg.cumulant_parametrised)
      c.not_used(col, "cumulant_limiter", "cumulant_limiter is only used by collision.cumulant = \"parametrised\"");
    else if (auto m = c.number(col, "cumulant_limiter", "a number >= 0 (lambda of the third-order limiter)", nonneg))
      cfg.cumulant_limiter = *m;
  }
  if (col.get("sgs")) {
    if (auto m = c.choice(col, "sgs", {"none", "smagorinsky", "csm"})) {
      cfg.sgs = SgsModel(*m);
      // On AMR levels the leaves keep the velocities and always pull (amr/AmrLattice.hpp).
      const bool uniform_csm = cfg.sgs == SgsModel::Csm && !root.get("amr");
      if (uniform_csm && cfg.storage == StorageKind::Sparse)
        c.at(col.get("sgs"), "collision.sgs = \"csm\" needs simulation.storage = \"dense\" (the model reads the "
                             "velocities of the neighbouring cells)");
      else if (uniform_csm && !runs_on_pull(cfg))
        c.at(col.get("sgs"), pull_kernel_refusal("collision.sgs = \"csm\"",
                                               "keeps the previous step's populations the model's velocity "
                                               "gradient is taken from",
                                               cfg));
    }
  }
  if (col.get("csm_constant")) {
    if (cfg.sgs != SgsModel::Csm)
      c.not_used(col, "csm_constant", "csm_constant is only used by collision.sgs = \"csm\"");
    else if (auto m = c.number(col, "csm_constant", "a number > 0 (C' of C = C' |Q/E|^(3/2))", positive))
      cfg.csm_constant = *m;
  }
  if (col.get("smagorinsky_constant")) {
    if (cfg.sgs != SgsModel::Smagorinsky)
      c.not_used(col, "smagorinsky_constant", "smagorinsky_constant is only used by collision.sgs = \"smagorinsky\"");
    else if (auto m = c.number(col, "smagorinsky_constant", "a number > 0", positive))
      cfg.smagorinsky_constant = *m;
  }

  // [physics]
  const Tbl phy = c.table(root, "physics", "physics");
  c.unknown_keys(phy, schema_keys().at("physics"));
  if (auto d = c.number(phy, "density", "a number > 0", positive)) cfg.density = *d;
  std::optional<double> mach_limit = cfg.mach_limit;
  if (phy.get("mach_limit")) {
    // Above c_s the lattice carries no flow at all; the limit guards well below it.
    mach_limit = c.number(phy, "mach_limit", "a number in (0, 1]", [](double m) { return m > 0 && m <= 1; });
    if (mach_limit) cfg.mach_limit = *mach_limit;
  }
  if (auto f = c.vec(phy, "force", dims, "force", false, 0)) cfg.force = *f;
  {
    const bool has_tau = phy.get("tau"), has_nu = phy.get("viscosity");
    const bool has_re = phy.get("reynolds"), has_l = phy.get("length"), has_u = phy.get("velocity");
    const bool has_any_re = has_re || has_l || has_u;
    const int ways = int(has_tau) + int(has_nu) + int(has_any_re);
    const std::string one_of =
        "give exactly one of physics.tau, physics.viscosity, or physics.reynolds + "
        "physics.length + physics.velocity";
    // Values are checked individually even when the combination is wrong.
    auto tau = c.number(phy, "tau", "a number > 0.5", gt_half);
    auto nu = c.number(phy, "viscosity", "a number > 0", positive);
    auto re = c.number(phy, "reynolds", "a number > 0", positive);
    auto len = c.number(phy, "length", "a number > 0 (cells)", positive);
    auto vel = c.number(phy, "velocity", "a number > 0 (lattice velocity)", positive);
    if (has_any_re && vel) cfg.reference_velocity = *vel;  // for the Mach check below
    if (ways == 0) {
      if (!phy.broken) c.at(phy.t, "physics: no viscosity given; " + one_of);
    } else if (ways > 1) {
      // Point at the later of the conflicting keys.
      std::vector<std::pair<std::string, const toml::node*>> given;
      if (has_tau) given.emplace_back("physics.tau", phy.get("tau"));
      if (has_nu) given.emplace_back("physics.viscosity", phy.get("viscosity"));
      if (has_any_re) {
        const char* k = has_re ? "reynolds" : has_l ? "length" : "velocity";
        given.emplace_back("physics." + std::string(k), phy.get(k));
      }
      c.at(given.back().second, given.back().first + ": conflicts with " + given.front().first +
                                    "; " + one_of);
    } else if (has_tau) {
      if (tau) cfg.tau = *tau;
    } else if (has_nu) {
      if (nu) {
        const double t = 3.0 * *nu + 0.5;
        if (!(t > 0.5))
          c.at(phy.get("viscosity"),
               "physics.viscosity: derived tau = 3*viscosity + 0.5 = " + fmt(t) +
                   " (viscosity = " + fmt6(*nu) +
                   ") must be > 0.5; hint: the viscosity is too small to be resolved, raise "
                   "the resolution or lower the Reynolds number");
        else
          cfg.tau = t;
      }
    } else {
      std::vector<std::string> miss;
      if (!has_re) miss.push_back("physics.reynolds");
      if (!has_l) miss.push_back("physics.length");
      if (!has_u) miss.push_back("physics.velocity");
      if (!miss.empty()) {
        const char* k = has_re ? "reynolds" : has_l ? "length" : "velocity";
        c.at(phy.get(k), "physics." + std::string(k) +
                             ": physics.reynolds, physics.length and physics.velocity must be "
                             "given together; missing " + join(miss));
      } else if (re && len && vel) {
        const double visc = *vel * *len / *re;
        const double t = 3.0 * visc + 0.5;
        cfg.reynolds = *re;
        cfg.reference_length = *len;
        cfg.reference_velocity = *vel;
        if (!(t > 0.5) || !std::isfinite(t))
          c.at(phy.get("reynolds"),
               "physics.reynolds: derived tau = " + fmt(t) +
                   " must be > 0.5 (viscosity = velocity*length/reynolds = " + fmt(*vel) + "*" +
                   fmt(*len) + "/" + fmt(*re) + " = " + fmt6(visc) +
                   ", tau = 3*viscosity + 0.5); hint: raise the resolution (physics.length, "
                   "domain.cells) or lower physics.reynolds");
        else
          cfg.tau = t;
      }
    }
    cfg.viscosity = (cfg.tau - 0.5) / 3.0;
    // An eddy viscosity and finer AMR levels only raise tau: no cell would use the variant.
    if (cfg.cumulant_parametrised && !(1 / cfg.tau > Config::parametrised_cumulant_min_rate))
      cfg.warnings.push_back("collision.cumulant = \"parametrised\" applies where 1/tau > 7/4 (tau < 4/7); tau = " +
                             fmt6(cfg.tau) + ": every cell collides with the standard cumulant rates");
  }

  // [initial]
  const Tbl ini = c.table(root, "initial", "initial");
  c.unknown_keys(ini, schema_keys().at("initial"));
  std::optional<std::size_t> itype = std::size_t{0};
  if (ini.get("type")) itype = c.choice(ini, "type", {"uniform", "taylor_green", "channel"});
  if (itype) {
    cfg.initial = InitialCondition(*itype);
    // The uniform flow, the stream that carries a Taylor-Green vortex (Galilean invariance), or
    // the channel's bulk velocity.
    if (auto v = c.vec(ini, "velocity", dims, "velocity", false, 0)) cfg.initial_velocity = *v;
    if (cfg.initial == InitialCondition::Uniform) {
      c.not_used(ini, "amplitude", "amplitude is only used by initial.type = \"taylor_green\" and \"channel\"");
    } else {
      const std::string what = cfg.initial == InitialCondition::TaylorGreen ? "taylor_green" : "channel";
      std::optional<double> a;
      if (!ini.get("amplitude"))
        c.missing(ini, "amplitude", "a number > 0 (lattice velocity) for " + what);
      else
        a = c.number(ini, "amplitude", "a number > 0 (lattice velocity)", positive);
      if (a) (cfg.initial == InitialCondition::TaylorGreen ? cfg.taylor_green_u0 : cfg.channel_perturbation) = *a;
    }
  }

  // [boundary.*]
  const Tbl bnd = c.table(root, "boundary", "boundary");
  c.unknown_keys(bnd, face_names);
  // "symmetry" is the free-slip face by another name: on a flat face both are specular reflection.
  const std::vector<std::string> bc_names{"periodic",        "wall",      "moving_wall", "velocity_inlet",
                                          "pressure_outlet", "free_slip", "symmetry",    "outflow"};
  const FaceBC bc_types[] = {FaceBC::Periodic,       FaceBC::Wall,     FaceBC::MovingWall, FaceBC::VelocityInlet,
                             FaceBC::PressureOutlet, FaceBC::FreeSlip, FaceBC::FreeSlip,   FaceBC::Outflow};
  std::array<bool, num_faces> face_type_ok{};
  for (int f = 0; f < num_faces; ++f) {
    FaceCondition& fc = cfg.faces[f];
    fc.density = cfg.density;
    face_type_ok[f] = true;
    if (dims == 2 && f >= ZMin) {
      fc.type = FaceBC::Periodic;  // nz = 1: the z direction is periodic by construction
      if (auto n = bnd.get(face_names[f]))
        c.at(n, "boundary." + face_names[f] + ": not allowed for the 2D lattice D2Q9");
      continue;
    }
    const Tbl ft = c.table(bnd, face_names[f], "boundary." + face_names[f]);
    if (!ft.t) continue;
    c.unknown_keys(ft, schema_keys().at("face"));
    std::optional<std::size_t> t = std::size_t{1};
    if (ft.get("type")) t = c.choice(ft, "type", bc_names);
    if (!t) {
      face_type_ok[f] = false;
      continue;
    }
    fc.type = bc_types[*t];
    if (fc.type == FaceBC::FreeSlip) free_slip_face(c, ft, f, root.get("amr") != nullptr, cfg);
    if (fc.type == FaceBC::Outflow)
      outflow_face(c, ft, f, root.get("amr") != nullptr, cfg);
    else
      c.not_used(ft, "convective_velocity", "convective_velocity is only used by outflow");
    const bool wants_u = fc.type == FaceBC::MovingWall || fc.type == FaceBC::VelocityInlet;
    if (wants_u) {
      if (!ft.get("velocity"))
        c.missing(ft, "velocity", std::string("a velocity vector for ") + bc_names[*t]);
      else if (auto v = c.vec(ft, "velocity", dims, "velocity", false, 0))
        fc.velocity = *v;
      // A moving wall's bounce-back (Ladd 1994) adds momentum along the wall; a normal component
      // would push mass through a closed face.
      if (fc.type == FaceBC::MovingWall && fc.velocity[f / 2] != 0)
        c.at(ft.get("velocity"), "boundary." + face_names[f] + ".velocity: a moving_wall slides in its plane: u_" +
                                     "xyz"[f / 2] + " = " + fmt(fc.velocity[f / 2]) +
                                     " crosses the face; expected 0 (flow through a face: velocity_inlet)");
    } else {
      c.not_used(ft, "velocity", "velocity is only used by moving_wall and velocity_inlet");
    }
    if (fc.type == FaceBC::PressureOutlet) {
      if (auto d = c.number(ft, "density", "a number > 0", positive)) fc.density = *d;
    } else {
      c.not_used(ft, "density", "density is only used by pressure_outlet");
    }
    if (fc.type == FaceBC::VelocityInlet) {
      const double inward = (f % 2 == 0 ? 1 : -1) * fc.velocity[f / 2];  // min faces face +axis
      if (inward < 0)
        cfg.warnings.push_back("boundary." + face_names[f] + ".velocity points out of the domain (u_" + "xyz"[f / 2] +
                               " = " + fmt(fc.velocity[f / 2]) + "): this velocity_inlet lets flow out");
      inlet_profile(c, ft, f, dims, fc);
      inflow_turbulence(c, ft, f, root.get("amr") != nullptr, cfg);
    } else {
      for (auto k : {"profile", "reference_height", "exponent", "roughness_length", "turbulence_intensity",
                     "turbulence_length", "turbulence_time"})
        c.not_used(ft, k, std::string(k) + " is only used by velocity_inlet");
    }
  }
  // Outflow faces hold no pressure level: fed by a velocity inlet with no pressure outlet to
  // anchor it, the mass drifts without bound, in an empty channel too.
  if (any_face(cfg.faces, FaceBC::Outflow) && any_face(cfg.faces, FaceBC::VelocityInlet) &&
      !any_face(cfg.faces, FaceBC::PressureOutlet))
    cfg.warnings.push_back("outflow faces with a velocity_inlet and no pressure_outlet: nothing holds the pressure level, "
                           "so the mass drifts (a D2Q9 channel 64 x 16, inlet 0.02, outflow at x_max: +56 % in 12000 "
                           "steps); make one open face a pressure_outlet");
  for (int f = 0; f < num_faces; ++f) {
    // Once every face's type is known: a parabola spans the wall-bounded axes across its face; a
    // height needs a ground, the lower face of the vertical axis.
    const FaceCondition& fc = cfg.faces[f];
    if (fc.type != FaceBC::VelocityInlet || fc.profile == InletProfileKind::Uniform) continue;
    const toml::node* at = bnd.t->at_path(face_names[f] + ".profile").node();
    if (fc.profile == InletProfileKind::Parabolic) {
      bool bounded = false;
      for (int d = 0; d < dims; ++d) bounded = bounded || (d != f / 2 && cfg.faces[2 * d].type != FaceBC::Periodic);
      if (!bounded)
        c.at(at, "boundary." + face_names[f] + ".profile: \"parabolic\" needs walls (a non-periodic axis) across the "
                 "face; every axis across it is periodic");
    } else if (cfg.faces[2 * vertical_axis(dims)].type == FaceBC::Periodic) {
      c.at(at, "boundary." + face_names[f] + ".profile: \"" + inlet_profile_names()[int(fc.profile)] +
                   "\" measures heights from the " + face_names[2 * vertical_axis(dims)] + " face, which is periodic; make it a wall");
    }
  }
  for (int f = 0; f < num_faces; f += 2) {
    if (dims == 2 && f >= ZMin) continue;
    if (!face_type_ok[f] || !face_type_ok[f + 1]) continue;
    const bool p0 = cfg.faces[f].type == FaceBC::Periodic;
    const bool p1 = cfg.faces[f + 1].type == FaceBC::Periodic;
    if (p0 == p1) continue;
    const int pf = p0 ? f : f + 1, of = p0 ? f + 1 : f;
    const toml::node* n = bnd.t ? bnd.t->at_path(face_names[pf] + ".type").node() : nullptr;
    c.at(n, "boundary." + face_names[pf] +
                ".type: periodic faces must come in pairs, but boundary." + face_names[of] +
                " is " + face_bc_name(cfg.faces[of].type) +
                (bnd.get(face_names[of]) ? "" : " (the default)") +
                "; set both to periodic or neither");
  }

  // [[obstacle]]
  // What the checks after [amr] say of each cfg.obstacles entry, in the same order.
  struct AcceptedObstacle {
    const toml::node* shape;  // where messages point
    std::string name;         // "obstacle[i]", i its place in the deck (refused ones count)
    Obstacle bounds;          // the box (shape "box") around an STL or height-map solid
  };
  std::vector<AcceptedObstacle> accepted;
  if (auto on = root.get("obstacle")) {
    if (!on->is_array_of_tables()) {
      c.at(on, "obstacle: expected an array of tables ([[obstacle]]), " + got(*on));
    } else {
      const auto& arr = *on->as_array();
      for (std::size_t i = 0; i < arr.size(); ++i) {
        const std::string name = "obstacle[" + std::to_string(i) + "]";
        const Tbl ot{arr.get(i)->as_table(), name, name};
        c.unknown_keys(ot, schema_keys().at("obstacle"));
        Obstacle ob;
        const std::vector<std::string>& shapes = obstacle_shape_names();
        if (!ot.get("shape")) {
          c.missing(ot, "shape", "one of " + join(shapes));
          continue;
        }
        auto s = c.choice(ot, "shape", shapes);
        if (!s) continue;
        ob.shape = Obstacle::Shape(*s);
        const bool from_file = ob.shape == Obstacle::Shape::Surface || ob.shape == Obstacle::Shape::HeightMap;
        if (!from_file)
          for (auto k : {"file", "scale", "offset"})
            c.not_used(ot, k, std::string(k) + " is only used by shapes \"stl\" and \"height_map\"");
        bool good = true;
        Obstacle bounds;
        if (from_file) {
          good = surface_obstacle(c, ot, dims, base_dir, cells_ok, cfg, ob, bounds);
        } else if (ob.shape == Obstacle::Shape::Box) {
          for (auto k : {"center", "radius", "axis"})
            c.not_used(ot, k, std::string(k) + " is not used by shape \"box\" (use lo and hi)");
          std::optional<std::array<double, 3>> lo, hi;
          for (auto k : {"lo", "hi"}) {
            if (!ot.get(k)) {
              c.missing(ot, k, "the box corner as an array of coordinates");
              good = false;
            }
          }
          lo = c.vec(ot, "lo", dims, "lo", false, 0);
          hi = c.vec(ot, "hi", dims, "hi", false, 0);
          if (lo && hi) {
            for (int d = 0; d < 3; ++d)
              if ((*lo)[d] > (*hi)[d]) {
                c.at(ot.get("hi"), name + ".hi: expected lo <= hi in every component, but lo[" +
                                       std::to_string(d) + "] = " + fmt((*lo)[d]) + " > hi[" +
                                       std::to_string(d) + "] = " + fmt((*hi)[d]));
                good = false;
                break;
              }
            ob.lo = *lo;
            ob.hi = *hi;
          } else {
            good = false;
          }
        } else {
          for (auto k : {"lo", "hi"})
            c.not_used(ot, k, std::string(k) + " is only used by shape \"box\"");
          if (!ot.get("center")) {
            c.missing(ot, "center", "the centre as an array of coordinates");
            good = false;
          } else if (auto v = c.vec(ot, "center", dims, "center", false, 0)) {
            ob.center = *v;
          } else {
            good = false;
          }
          if (!ot.get("radius")) {
            c.missing(ot, "radius", "a number > 0 (cells)");
            good = false;
          } else if (auto r = c.number(ot, "radius", "a number > 0 (cells)", positive)) {
            ob.radius = *r;
          } else {
            good = false;
          }
          if (ob.shape == Obstacle::Shape::Cylinder) {
            if (auto a = c.choice(ot, "axis", {"x", "y", "z"})) {
              ob.axis = int(*a);
              if (dims == 2 && ob.axis != 2) {
                c.at(ot.get("axis"), name + ".axis: must be \"z\" for the 2D lattice D2Q9");
                good = false;
              }
            } else if (ot.get("axis")) {
              good = false;
            }
          } else {
            c.not_used(ot, "axis", "axis is only used by shape \"cylinder\"");
          }
        }
        good = obstacle_walls(c, ot, name, cfg, root.get("amr") != nullptr, ob) && good;
        if (good) {
          cfg.obstacles.push_back(ob);
          accepted.push_back({ot.get("shape"), name, bounds});
          cfg.locations[name] = c.where(ot.get("shape"));  // drivers/RunCheck.cpp check_file_solids
        }
      }
    }
  }

  // [geometry]
  const Tbl geo = c.table(root, "geometry", "geometry");
  c.unknown_keys(geo, schema_keys().at("geometry"));
  if (geo.t) {
    VoxelGeometry vg;
    bool good = true;
    std::optional<std::string> file;
    if (!geo.get("voxel_file")) {
      c.missing(geo, "voxel_file", "a path to a raw uint8 voxel file");
      good = false;
    } else {
      file = c.string(geo, "voxel_file", "a path (string) to a raw uint8 voxel file");
      if (file && file->empty()) {
        c.at(geo.get("voxel_file"), "geometry.voxel_file: expected a non-empty path");
        file.reset();
      }
      good = good && file.has_value();
    }
    if (!geo.get("dims")) {
      c.missing(geo, "dims", "the voxel array size, an array of integers >= 1");
      good = false;
    } else if (auto v = c.vec(geo, "dims", dims, "dims", true, 1, ge1, " >= 1")) {
      vg.dims = to_int3(*v);
    } else {
      good = false;
    }
    if (auto v = c.vec(geo, "offset", dims, "offset", true, 0, nonneg, " >= 0"))
      vg.offset = to_int3(*v);
    else if (geo.get("offset"))
      good = false;
    if (file) {
      const fs::path p = input_path(*file, base_dir);
      vg.path = p.string();
      if (!readable(c, geo.get("voxel_file"), "geometry.voxel_file", p, *file)) {
        good = false;
      } else if (geo.get("dims") && vg.dims[0] > 0 && good) {
        std::error_code ec;
        const auto size = fs::file_size(p, ec);
        const unsigned long long expected =
            (unsigned long long)vg.dims[0] * vg.dims[1] * vg.dims[2];
        if (ec || size != expected) {
          c.at(geo.get("voxel_file"),
               "geometry.voxel_file: wrong size: " + std::to_string(size) + " bytes, expected " +
                   std::to_string(expected) + " = " + std::to_string(vg.dims[0]) + "*" +
                   std::to_string(vg.dims[1]) + "*" + std::to_string(vg.dims[2]) +
                   " (geometry.dims, one uint8 per voxel) in '" + vg.path + "'");
          good = false;
        }
      }
    }
    if (good && cells_ok) {
      for (int d = 0; d < 3; ++d) {
        if ((long long)vg.offset[d] + vg.dims[d] > cfg.cells[d]) {
          // At the offset where one moves them, else at their size.
          const bool moved = geo.get("offset") && vg.offset[d] > 0;
          c.at(geo.get(moved ? "offset" : "dims"), std::string(moved ? "geometry.offset" : "geometry.dims") +
                                                       ": the voxels do not fit in the domain along " + "xyz"[d] + ": offset " +
                                    std::to_string(vg.offset[d]) + " + dims " +
                                    std::to_string(vg.dims[d]) + " > domain.cells " +
                                    std::to_string(cfg.cells[d]));
          good = false;
          break;
        }
      }
    }
    if (good) cfg.voxels = vg;
  }

  // [output]
  const Tbl out = c.table(root, "output", "output");
  c.unknown_keys(out, schema_keys().at("output"));
  if (auto d = c.string(out, "directory", "a non-empty string (path)")) {
    if (d->empty())
      c.at(out.get("directory"), "output.directory: expected a non-empty string (path)");
    else
      cfg.output_dir = *d;
  }
  if (auto e = c.integer(out, "every", "an integer >= 0 (0 = final state only)", 0))
    cfg.output_every = long(*e);
  if (auto v = c.boolean(out, "vtk")) cfg.write_vtk = *v;
  if (auto p = c.integer(out, "progress_every", "an integer >= 0 (0 = automatic)", 0))
    cfg.progress_every = long(*p);
  if (auto p = c.integer(out, "probes_every", "an integer >= 1 (steps between probe samples)", 1)) cfg.probes_every = long(*p);
  if (out.get("probes_every") && cfg.steps > 0 && cfg.probes_every > cfg.steps)
    cfg.warnings.push_back("output.probes_every = " + std::to_string(cfg.probes_every) + " exceeds simulation.steps = " +
                           std::to_string(cfg.steps) + ": the probes record no sample");
  if (auto p = c.integer(out, "integrals_every", "an integer >= 1 (steps between the samples of integrals.csv)", 1))
    cfg.integrals_every = long(*p);
  if (cfg.integrals_every > 0 && cfg.steps > 0 && cfg.integrals_every > cfg.steps)
    cfg.warnings.push_back("output.integrals_every = " + std::to_string(cfg.integrals_every) + " exceeds simulation.steps = " +
                           std::to_string(cfg.steps) + ": integrals.csv holds the initial state only");

  // [checkpoint]
  const Tbl chk = c.table(root, "checkpoint", "checkpoint");
  c.unknown_keys(chk, schema_keys().at("checkpoint"));
  if (auto e = c.integer(chk, "every", "an integer >= 0 (steps; 0 = not by step count)", 0))
    cfg.checkpoint.every = long(*e);
  if (auto m = c.number(chk, "minutes", "a number >= 0 (wall-clock minutes; 0 = not by time)", nonneg))
    cfg.checkpoint.every_minutes = *m;
  if (auto k = c.integer(chk, "keep", "an integer from 1 to 1000", 1, 1000)) cfg.checkpoint.keep = int(*k);
  if (auto d = c.string(chk, "directory", "a non-empty string (path)")) {
    if (d->empty())
      c.at(chk.get("directory"), "checkpoint.directory: expected a non-empty string (path)");
    else
      cfg.checkpoint.directory = *d;
  }

  // [forces]
  const Tbl frc = c.table(root, "forces", "forces");
  c.unknown_keys(frc, schema_keys().at("forces"));
  if (frc.t) {
    cfg.forces.enabled = true;
    cfg.forces.every = 10;
    if (!root.get("obstacle") && !root.get("geometry"))  // not where those have errors of their own
      c.at(frc.t, "[forces] needs a body to act on: an [[obstacle]] or [geometry] voxel_file");
    if (auto e = c.integer(frc, "every", "an integer >= 1 (steps between samples)", 1)) cfg.forces.every = long(*e);
    if (cfg.steps > 0 && cfg.forces.every > cfg.steps)
      cfg.warnings.push_back("forces.every = " + std::to_string(cfg.forces.every) + " exceeds simulation.steps = " +
                             std::to_string(cfg.steps) + ": no force sample will be taken");
    auto reference = [&](const char* key, std::optional<double> fallback, const std::string& why) {
      if (frc.get(key)) return c.number(frc, key, "a number > 0 (lattice units)", positive).value_or(1.0);
      if (fallback) return *fallback;
      c.at(frc.t, std::string("forces.") + key + ": expected a number > 0 (lattice units); " + why);
      return 1.0;
    };
    cfg.forces.velocity = reference("reference_velocity", cfg.reference_velocity,
                                    "[physics] gives no velocity to default to");
    cfg.forces.length = reference("reference_length", cfg.reference_length,
                                  "[physics] gives no length to default to");
    cfg.forces.area = reference("reference_area",
                                dims == 2 ? std::optional<double>(cfg.forces.length) : std::nullopt,
                                "a 3D body needs its frontal area (2D: the length times one cell)");
    const std::vector<std::string> axes = dims == 2 ? std::vector<std::string>{"x", "y"}
                                                    : std::vector<std::string>{"x", "y", "z"};
    bool axes_read = true;  // a refused axis is not compared with the other
    for (auto [key, axis] : {std::pair<const char*, int*>{"drag_axis", &cfg.forces.drag_axis}, {"lift_axis", &cfg.forces.lift_axis}})
      if (frc.get(key)) {
        if (auto a = c.choice(frc, key, axes))
          *axis = int(*a);
        else
          axes_read = false;
      }
    if (axes_read && cfg.forces.drag_axis == cfg.forces.lift_axis)
      c.at(frc.get("lift_axis") ? frc.get("lift_axis") : frc.t,
           "forces.lift_axis" + (frc.get("lift_axis") ? std::string() : " (by default \"" + axes[cfg.forces.lift_axis] + "\")") +
               ": expected an axis other than drag_axis (" + axes[cfg.forces.drag_axis] + ")");
  }

  // [[probe]]: a point, or a line from..to of `points` cells (rounded to the nearest cell)
  if (auto pn = root.get("probe")) {
    if (!pn->is_array_of_tables()) {
      c.at(pn, "probe: expected an array of tables ([[probe]]), " + got(*pn));
    } else {
      const auto& arr = *pn->as_array();
      std::unordered_set<std::string> probe_names;
      for (std::size_t i = 0; i < arr.size(); ++i) {
        const std::string key = "probe[" + std::to_string(i) + "]";
        const Tbl pt{arr.get(i)->as_table(), key, key};
        c.unknown_keys(pt, schema_keys().at("probe"));
        std::string name = "probe" + std::to_string(i);
        if (auto n = c.string(pt, "name", "a name of letters, digits and _")) {
          if (n->empty() || n->find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
                                std::string::npos)
            c.at(pt.get("name"), key + ".name: expected a name of letters, digits and _ (a CSV column prefix), got \"" +
                                     *n + "\"");
          else
            name = *n;
        }
        auto inside = [&](const std::array<double, 3>& p, const char* k) {
          for (int d = 0; d < 3; ++d)
            if (cells_ok && (p[d] < -0.5 || p[d] > cfg.cells[d] - 0.5)) {
              c.at(pt.get(k), key + "." + k + ": expected a point inside the domain (-0.5 to " +
                                  fmt(cfg.cells[d] - 0.5) + " along " + "xyz"[d] + ": cell centres 0.." +
                                  std::to_string(cfg.cells[d] - 1) + " and the faces), got " + fmt(p[d]) + " along " +
                                  "xyz"[d]);
              return false;
            }
          return true;
        };
        auto nearest = [&](const std::array<double, 3>& p) {  // a point on the domain's face: its first cell
          std::array<int, 3> cell{};
          for (int d = 0; d < 3; ++d) cell[d] = std::clamp(int(std::lround(p[d])), 0, std::max(0, cfg.cells[d] - 1));
          return cell;
        };
        // Names are CSV column prefixes: one taken by an earlier probe (or a line's cell) is refused.
        const std::size_t earlier = cfg.probes.size();
        const auto name_clash = [&] {
          std::string clash;
          for (std::size_t a = earlier; a < cfg.probes.size(); ++a)
            if (!probe_names.insert(cfg.probes[a].name).second && clash.empty()) clash = cfg.probes[a].name;
          if (!clash.empty())
            c.at(pt.get("name") ? pt.get("name") : pt.t,
                 key + ": its column name '" + clash + "' is an earlier probe's too (a line probe names its cells "
                       "<name>_0, <name>_1, ...)");
        };
        if (pt.get("point")) {
          for (auto k : {"from", "to", "points"})
            c.not_used(pt, k, std::string(k) + " is for line probes (a point probe has point only)");
          if (auto p = c.vec(pt, "point", dims, "point", false, 0.0); p && inside(*p, "point"))
            cfg.probes.push_back({name, nearest(*p)});
        } else if (pt.get("from") || pt.get("to")) {
          auto a = c.vec(pt, "from", dims, "from", false, 0.0), b = c.vec(pt, "to", dims, "to", false, 0.0);
          if (!pt.get("from")) c.missing(pt, "from", "the line's first point");
          if (!pt.get("to")) c.missing(pt, "to", "the line's last point");
          long n = 2;
          if (auto v = c.integer(pt, "points", "an integer from 2 to 100000", 2, 100000)) n = long(*v);
          if (a && b && inside(*a, "from") && inside(*b, "to"))
            for (long j = 0; j < n; ++j) {
              std::array<double, 3> p{};
              for (int d = 0; d < 3; ++d) p[d] = (*a)[d] + ((*b)[d] - (*a)[d]) * double(j) / double(n - 1);
              cfg.probes.push_back({name + "_" + std::to_string(j), nearest(p)});
            }
        } else {
          c.missing(pt, "point", "a point [x, y(, z)] in cell coordinates, or from/to/points for a line");
        }
        name_clash();
      }
    }
  }
  if (!root.get("probe")) c.not_used(out, "probes_every", "only used with [[probe]] (the deck has none)");

  // [statistics]
  const Tbl sta = c.table(root, "statistics", "statistics");
  c.unknown_keys(sta, schema_keys().at("statistics"));
  if (sta.t) {
    cfg.statistics.enabled = true;
    if (auto v = c.integer(sta, "start", "an integer >= 0 (the first step sampled)", 0)) cfg.statistics.start = long(*v);
    if (auto v = c.integer(sta, "every", "an integer >= 1 (steps between samples)", 1)) cfg.statistics.every = long(*v);
    if (cfg.steps > 0 && cfg.statistics.start >= cfg.steps)
      c.at(sta.get("start"), "statistics.start: expected a step before simulation.steps (" + std::to_string(cfg.steps) +
                                 "): nothing would be sampled");
    else if (cfg.steps > 0 && cfg.statistics.start == 0 && cfg.statistics.every > cfg.steps)
      cfg.warnings.push_back("statistics.every = " + std::to_string(cfg.statistics.every) + " exceeds simulation.steps = " +
                             std::to_string(cfg.steps) + ": the first sample would be at step " +
                             std::to_string(cfg.statistics.every) + ", so the run writes no averages");
    if (!cfg.write_vtk)
      cfg.warnings.push_back("[statistics] with output.vtk = false: the averages go into VTK outputs only, so this run "
                             "writes them nowhere (checkpoints keep them for a restart)");
  }

  // [units]
  const Tbl uni = c.table(root, "units", "units");
  c.unknown_keys(uni, schema_keys().at("units"));
  if (uni.t) {
    PhysicalUnits& u = cfg.units;
    u.enabled = true;
    for (auto [key, what, value] : {std::tuple{"dx", "a number > 0 (metres per cell)", &u.dx},
                                    std::tuple{"velocity", "a number > 0 (m/s: the physical speed of lattice_velocity)", &u.velocity}}) {
      if (!uni.get(key))
        c.missing(uni, key, what);
      else if (auto v = c.number(uni, key, what, positive))
        *value = *v;
    }
    if (auto v = c.number(uni, "density", "a number > 0 (kg/m^3 of lattice density 1)", positive)) u.density = *v;
    const std::string lattice_what = "a number > 0 (cells per step: the lattice speed that units.velocity is)";
    if (uni.get("lattice_velocity")) {
      if (auto v = c.number(uni, "lattice_velocity", lattice_what, positive)) u.lattice_velocity = *v;
    } else if (cfg.reference_velocity) {
      u.lattice_velocity = *cfg.reference_velocity;
    } else {
      c.missing(uni, "lattice_velocity", lattice_what + "; it defaults to physics.velocity, which this deck does not give");
    }
  }

  // [validation]
  const Tbl val = c.table(root, "validation", "validation");
  c.unknown_keys(val, schema_keys().at("validation"));
  if (auto on = val.get("observables")) {
    const std::string expected = "an array of strings from " + join(known_observables());
    cfg.locations["validation.observables"] = c.where(on);  // drivers/RunCheck.cpp checks them against the run
    if (!on->is_array()) {
      c.at(on, "validation.observables: expected " + expected + ", " + got(*on));
    } else {
      const auto& arr = *on->as_array();
      for (std::size_t i = 0; i < arr.size(); ++i) {
        const std::string key = "validation.observables[" + std::to_string(i) + "]";
        if (auto k = c.choice_node(*arr.get(i), key, known_observables())) {
          const std::string& o = known_observables()[*k];
          if (std::find(cfg.observables.begin(), cfg.observables.end(), o) !=
              cfg.observables.end())
            c.at(arr.get(i), key + ": '" + o + "' is listed twice");
          else
            cfg.observables.push_back(o);
        }
      }
    }
  }

  // [parallel]: only the shape of the run over ranks; the rank count is known at run time
  // (dims whose product differs from it are refused then).
  const Tbl par = c.table(root, "parallel", "parallel");
  c.unknown_keys(par, schema_keys().at("parallel"));
  if (auto d = c.vec(par, "dims", cfg.dimensions(), "process grid", true, 1, ge1, " >= 1"))
    cfg.parallel.dims = to_int3(*d);
  static const std::vector<std::string> overlaps{"none", "nonblocking", "interior", "streams",
                                                 "systolic"};
  if (auto k = c.choice(par, "overlap", overlaps)) {
    cfg.parallel.overlap = OverlapKind(*k);
    cfg.parallel.overlap_required = cfg.parallel.overlap != OverlapKind::None;
  }
  static const std::vector<std::string> decompositions{"cartesian", "bisection"};
  if (auto k = c.choice(par, "decomposition", decompositions))
    cfg.parallel.decomposition = DecompositionKind(*k);
  static const std::vector<std::string> buffers{"auto", "device", "host"};
  if (auto k = c.choice(par, "buffers", buffers)) cfg.parallel.buffers = BufferKind(*k);
  if (const auto* gw = par.get("ghost_width")) {
    const std::string expected = "an integer from 1 to 16 or \"auto\"";
    if (gw->is_string() && gw->as_string()->get() == "auto")
      cfg.parallel.ghost_width = 0;
    else if (gw->is_string())
      c.at(gw, par.key("ghost_width") + ": expected " + expected + ", " + got(*gw));
    else if (auto h = c.integer_node(*gw, par.key("ghost_width"), expected, 1, 16))
      cfg.parallel.ghost_width = int(*h);
  }
  if (auto h = c.integer(par, "max_ghost_width", "an integer from 1 to 16", 1, 16))
    cfg.parallel.max_ghost_width = int(*h);
  if (cfg.quadratic_walls() && !root.get("amr")) quadratic_wall_ghosts(c, par, cfg);
  // Message tags carry both blocks' slots on their ranks (comm/HaloPlan.hpp): at most 64.
  if (auto b = c.integer(par, "blocks_per_rank", "an integer from 1 to 64", 1, 64))
    cfg.parallel.blocks_per_rank = int(*b);
  if (cfg.parallel.decomposition == DecompositionKind::Bisection && par.get("dims"))
    c.at(par.get("dims"), "parallel.dims: only used with decomposition = \"cartesian\"");
  if (cells_ok && cfg.parallel.dims[0] > 0)
    for (int d = 0; d < 3; ++d)
      if (cfg.parallel.dims[d] > cfg.cells[d])
        c.at(par.get("dims"), "parallel.dims[" + std::to_string(d) + "] = " + std::to_string(cfg.parallel.dims[d]) +
                                  " exceeds the " + std::to_string(cfg.cells[d]) + " cells along " + "xyz"[d]);
  cfg.locations["parallel.dims"] = c.where(par.get("dims") ? par.get("dims") : par.t);
  if (kernel_ok && cfg.storage == StorageKind::Sparse) check_sparse_storage(c, cfg, root, sim, par);
  else if (kernel_ok && !root.get("amr")) check_kernel_keys(c, cfg, sim, par);  // parse_amr checks its own
  if (root.get("amr")) {
    parse_amr(c, root, cfg, sim, cells_ok);
    check_amr_parallel(c, cfg, par);
  }
  for (std::size_t k = 0; k < cfg.obstacles.size() && cells_ok; ++k) {
    const Obstacle& ob = cfg.obstacles[k];
    // Leaves of every level up to max_level may lie where the shape is; their centres differ.
    const int finest = cfg.amr.enabled ? cfg.amr.max_level : 0;
    const std::string levels =
        finest == 0 ? "" : finest == 1 ? ", nor one of level 1" : ", nor one of levels 1 to " + std::to_string(finest);
    if (ob.invert) {
      if (const std::string why = holds_every_cell_centre(ob, cfg.cells, dims, finest); !why.empty())
        c.at(accepted[k].shape, accepted[k].name + ": " + why + " (it would be solid nowhere)");
      continue;
    }
    // A file's solid lies within the box around it (a mesh in other units, a single triangle, a
    // height map under the ground).
    const bool from_file = ob.shape == Obstacle::Shape::Surface || ob.shape == Obstacle::Shape::HeightMap;
    const Obstacle& tested = from_file ? accepted[k].bounds : ob;
    // The shape repeats one period away across periodic faces (DomainGeometry::periodic_copies):
    // a copy in the domain makes it solid there.
    std::vector<Obstacle> copies{tested};
    for (int d = 0; d < dims; ++d) {
      if (cfg.faces[2 * d].type != FaceBC::Periodic) continue;
      const std::size_t before = copies.size();
      for (double shift : {-double(cfg.cells[d]), double(cfg.cells[d])})
        for (std::size_t i = 0; i < before; ++i) {
          Obstacle copy = copies[i];
          copy.lo[d] += shift;
          copy.hi[d] += shift;
          copy.center[d] += shift;
          copies.push_back(copy);
        }
    }
    bool holds = false;
    for (int level = 0; level <= finest && !holds; ++level)
      for (const Obstacle& copy : copies) holds = holds || holds_no_cell_centre(copy, cfg.cells, dims, level).empty();
    if (holds) continue;
    const std::string why = holds_no_cell_centre(tested, cfg.cells, dims, 0);
    if (from_file)
      c.at(accepted[k].shape, accepted[k].name + ": the solid of '" + ob.file + "' holds no cell centre: " +
                                  why.substr(why.find("along ")) + levels + " (it would be solid nowhere; check scale and offset)");
    else
      c.at(accepted[k].shape, accepted[k].name + ": " + why + levels + " (it would be solid nowhere)");
  }

  if (cfg.initial == InitialCondition::Channel) initial_channel(c, ini, root, dims, cfg);

  // Mach check over every velocity the run will impose.
  if (mach_limit) {
    const double cs = 1.0 / std::sqrt(3.0);
    auto check = [&](const toml::node* n, const std::string& key, double speed) {
      const double ma = speed / cs;
      if (ma > *mach_limit)
        c.at(n, key + ": lattice speed " + fmt(speed) + " gives Mach " + fmt6(ma) +
                    " (speed / c_s, c_s = 1/sqrt(3)) > physics.mach_limit = " + fmt(*mach_limit) +
                    "; hint: lower the lattice velocity (raise the resolution to keep Re) or "
                    "raise physics.mach_limit");
    };
    for (int f = 0; f < num_faces; ++f) {
      const FaceCondition& fc = cfg.faces[f];
      // A power or log law is fastest at the top of the domain.
      const double top = cfg.cells[vertical_axis(dims)];
      const double peak = fc.profile == InletProfileKind::PowerLaw ? std::pow(top / fc.reference_height, fc.exponent)
                          : fc.profile == InletProfileKind::LogLaw
                              ? std::log(top / fc.roughness_length + 1) / std::log(fc.reference_height / fc.roughness_length + 1)
                              : 1.0;
      // A profile whose parameters were refused (reported) has no peak; one that overflows is too fast.
      const bool laws_read = (fc.profile != InletProfileKind::PowerLaw && fc.profile != InletProfileKind::LogLaw) ||
                             fc.reference_height > 0;
      if ((fc.type == FaceBC::MovingWall || fc.type == FaceBC::VelocityInlet) && bnd.t && laws_read && !std::isnan(peak))
        check(bnd.t->at_path(face_names[f] + ".velocity").node(),
              "boundary." + face_names[f] + ".velocity" + (peak > 1 ? " (at the top of its profile)" : "") +
                  (fc.turbulence_intensity > 0 ? " (plus 3 RMS of its turbulence)" : ""),
              norm(fc.velocity) * std::max(peak, 1.0) * (1 + 3 * fc.turbulence_intensity));
    }
    if (cfg.initial == InitialCondition::Uniform)
      check(ini.get("velocity"), "initial.velocity", norm(cfg.initial_velocity));
    else if (cfg.initial == InitialCondition::Channel)  // the profile's centre plus every component's perturbation
      check(ini.get("amplitude"), "initial.amplitude", 8.0 / 7.0 * norm(cfg.initial_velocity) + std::sqrt(3.0) * cfg.channel_perturbation);
    else
      check(ini.get("amplitude"), "initial.amplitude", cfg.taylor_green_u0 + norm(cfg.initial_velocity));
    if (cfg.reference_velocity)
      check(phy.get("velocity"), "physics.velocity", *cfg.reference_velocity);
    for (std::size_t k = 0; k < cfg.obstacles.size(); ++k)
      if (const Obstacle& ob = cfg.obstacles[k]; ob.angular_velocity != 0)
        check(root.t->at_path(accepted[k].name + ".angular_velocity").node(),
              accepted[k].name + ".angular_velocity (the surface speed |omega| r)",
              std::abs(ob.angular_velocity) * ob.radius);
  }

  return cfg;
}

}  // namespace

Config parse_deck_string(std::string_view text, const std::string& source_name,
                         const std::string& base_dir, const std::vector<std::string>& overrides) {
  Checker chk(source_name);
  toml::table doc;
  try {
    doc = toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    const std::string loc = source_name + ":" + std::to_string(b.line ? b.line : 1) + ":" +
                            std::to_string(b.line ? b.column : 1);
    const std::string line = loc + ": error: TOML syntax error: " + std::string(e.description());
    throw DeckError(line + "\n1 error in deck " + source_name, {line});
  }
  apply_overrides(doc, overrides, chk);
  Config cfg = validate(doc, chk, source_name, base_dir);
  if (!chk.ok()) chk.throw_all();
  cfg.deck_path = source_name;
  return cfg;
}

void throw_deck_error(const Config& config, const std::string& key, const std::string& message) {
  const auto at = config.locations.find(key);
  const std::string line =
      (at != config.locations.end() ? at->second : config.deck_path + ":1:1") + ": error: " + key + ": " + message;
  throw DeckError(line + "\n1 error in deck " + config.deck_path, {line});
}

Config parse_deck(const std::string& path, const std::vector<std::string>& overrides) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const std::string line = path + ": error: cannot read deck: is a directory";
    throw DeckError(line + "\n1 error in deck " + path, {line});
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const std::string line = path + ": error: cannot read deck: " + std::strerror(errno);
    throw DeckError(line + "\n1 error in deck " + path, {line});
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string base = fs::path(path).parent_path().string();
  return parse_deck_string(ss.str(), path, base, overrides);
}

}  // namespace boreas
