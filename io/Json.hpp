// Boreas — a small, dependency-free JSON value type for run reports and benchmark output.
//
//   json::Value report = json::Object{};
//   report["lattice"] = "D3Q19";
//   report["steps"] = 100;
//   report["timing"]["lbm"] = 1.5;          // null members become objects on first use
//   report["ranks"].push_back(0);           // null members become arrays on push_back
//   json::Value cfg = json::Object{{"nx", 64}, {"tau", 0.6}, {"dims", json::Array{64, 64, 1}}};
//   std::string text = report.dump();       // pretty (indent 2); dump(-1) gives one compact line
//   json::Value back = json::parse(text);   // throws json::ParseError ("line:column: message")
//
// Objects keep insertion order. Integers are stored as int64 (signed C++ types) or uint64
// (unsigned C++ types); doubles are printed in the shortest form that round-trips exactly,
// integral-valued doubles keep a ".0" so they parse back as doubles, NaN/Inf print as null.
// Plain host C++17: no Kokkos, no lbm/, no VTK.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace boreas::json {

class Value;

/// A JSON array.
using Array = std::vector<Value>;

/// A JSON object: members in insertion order (lookup is linear, fine for report-sized objects).
class Object {
 public:
  using Member = std::pair<std::string, Value>;
  using iterator = std::vector<Member>::iterator;
  using const_iterator = std::vector<Member>::const_iterator;

  Object() = default;
  Object(std::initializer_list<Member> members);

  /// Member `key`, inserted as null at the end if absent.
  Value& operator[](std::string_view key);
  /// Member `key`; throws std::out_of_range if absent.
  Value& at(std::string_view key);
  const Value& at(std::string_view key) const;
  /// Pointer to member `key`, or nullptr.
  Value* find(std::string_view key);
  const Value* find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  /// Sets (replacing an existing member in place, keeping its position) and returns the member.
  Value& set(std::string_view key, Value v);
  /// Removes member `key`; returns whether it existed.
  bool erase(std::string_view key);

  std::size_t size() const { return members_.size(); }
  bool empty() const { return members_.empty(); }
  iterator begin() { return members_.begin(); }
  iterator end() { return members_.end(); }
  const_iterator begin() const { return members_.begin(); }
  const_iterator end() const { return members_.end(); }

  friend bool operator==(const Object& a, const Object& b);
  friend bool operator!=(const Object& a, const Object& b) { return !(a == b); }

 private:
  std::vector<Member> members_;
};

enum class Type { null, boolean, int64, uint64, floating, string, array, object };  // variant order

/// Thrown on type mismatches when accessing a Value (e.g. as_string() on a number).
class TypeError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// Thrown by parse(); what() reads "line L, column C: message". line/column are 1-based.
class ParseError : public std::runtime_error {
 public:
  ParseError(std::size_t line, std::size_t column, const std::string& message);
  std::size_t line() const { return line_; }
  std::size_t column() const { return column_; }

 private:
  std::size_t line_, column_;
};

class Value {
 public:
  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool b) : v_(b) {}
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  Value(I i) {
    if constexpr (std::is_signed_v<I>) v_ = static_cast<std::int64_t>(i);
    else v_ = static_cast<std::uint64_t>(i);
  }
  Value(float d) : v_(static_cast<double>(d)) {}
  Value(double d) : v_(d) {}
  Value(const char* s) : v_(std::string(s)) {}
  Value(std::string s) : v_(std::move(s)) {}
  Value(std::string_view s) : v_(std::string(s)) {}
  Value(Array a) : v_(std::move(a)) {}
  Value(Object o) : v_(std::move(o)) {}

  Type type() const { return static_cast<Type>(v_.index()); }
  bool is_null() const { return type() == Type::null; }
  bool is_bool() const { return type() == Type::boolean; }
  bool is_int() const { return type() == Type::int64; }      // stored as int64
  bool is_uint() const { return type() == Type::uint64; }    // stored as uint64
  bool is_integer() const { return is_int() || is_uint(); }
  bool is_double() const { return type() == Type::floating; }
  bool is_number() const { return is_integer() || is_double(); }
  bool is_string() const { return type() == Type::string; }
  bool is_array() const { return type() == Type::array; }
  bool is_object() const { return type() == Type::object; }

  bool as_bool() const;
  /// Any integer that fits int64 (a uint64 above INT64_MAX throws TypeError).
  std::int64_t as_int64() const;
  /// Any non-negative integer.
  std::uint64_t as_uint64() const;
  /// Any number (integers are converted).
  double as_double() const;
  const std::string& as_string() const;
  std::string& as_string();
  const Array& as_array() const;
  Array& as_array();
  const Object& as_object() const;
  Object& as_object();

  /// Object access; a null value becomes an empty object first. Throws TypeError otherwise.
  Value& operator[](std::string_view key);
  Value& operator[](const char* key) { return (*this)[std::string_view(key)]; }
  Value& operator[](const std::string& key) { return (*this)[std::string_view(key)]; }
  /// Const object access; throws std::out_of_range if absent.
  const Value& operator[](std::string_view key) const;
  const Value& operator[](const char* key) const { return (*this)[std::string_view(key)]; }
  const Value& operator[](const std::string& key) const { return (*this)[std::string_view(key)]; }
  /// Array access (bounds checked, throws std::out_of_range).
  template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  Value& operator[](I index) { return at_index(static_cast<std::size_t>(index)); }
  template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  const Value& operator[](I index) const { return at_index(static_cast<std::size_t>(index)); }

  /// Appends to an array; a null value becomes an empty array first.
  Value& push_back(Value v);
  /// Object: whether member `key` exists (false for non-objects).
  bool contains(std::string_view key) const;
  /// Object: pointer to member or nullptr (nullptr for non-objects).
  const Value* find(std::string_view key) const;
  /// Elements of an array / members of an object / 0 for scalars and null.
  std::size_t size() const;

  /// indent >= 0: pretty printed with that many spaces per level; indent < 0: one compact line.
  std::string dump(int indent = 2) const;

  friend bool operator==(const Value& a, const Value& b);
  friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }

 private:
  Value& at_index(std::size_t i);
  const Value& at_index(std::size_t i) const;

  std::variant<std::nullptr_t, bool, std::int64_t, std::uint64_t, double, std::string, Array, Object> v_{nullptr};
};

/// Parses one JSON document (surrounding whitespace allowed). Throws ParseError.
Value parse(std::string_view text);

/// Formats a double the way dump() does ("0.1", "2.0", "1e-300"; NaN/Inf -> "null").
std::string format_double(double d);

/// Escapes and quotes a string the way dump() does.
std::string quote(std::string_view s);

}  // namespace boreas::json
