#include "io/Json.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <system_error>

namespace boreas::json {

namespace {

const char* type_name(Type t) {
  switch (t) {
    case Type::null: return "null";
    case Type::boolean: return "bool";
    case Type::int64: return "int";
    case Type::uint64: return "uint";
    case Type::floating: return "double";
    case Type::string: return "string";
    case Type::array: return "array";
    case Type::object: return "object";
  }
  return "?";
}

[[noreturn]] void type_error(Type have, const char* want) {
  throw TypeError(std::string("json: value is ") + type_name(have) + ", expected " + want);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Object

Object::Object(std::initializer_list<Member> members) {
  for (const auto& m : members) set(m.first, m.second);
}

Value* Object::find(std::string_view key) {
  for (auto& m : members_)
    if (m.first == key) return &m.second;
  return nullptr;
}

const Value* Object::find(std::string_view key) const {
  for (const auto& m : members_)
    if (m.first == key) return &m.second;
  return nullptr;
}

Value& Object::operator[](std::string_view key) {
  if (Value* v = find(key)) return *v;
  members_.emplace_back(std::string(key), Value{});
  return members_.back().second;
}

Value& Object::at(std::string_view key) {
  if (Value* v = find(key)) return *v;
  throw std::out_of_range("json: no member \"" + std::string(key) + "\"");
}

const Value& Object::at(std::string_view key) const {
  if (const Value* v = find(key)) return *v;
  throw std::out_of_range("json: no member \"" + std::string(key) + "\"");
}

Value& Object::set(std::string_view key, Value v) {
  Value& slot = (*this)[key];
  slot = std::move(v);
  return slot;
}

bool Object::erase(std::string_view key) {
  for (auto it = members_.begin(); it != members_.end(); ++it) {
    if (it->first == key) {
      members_.erase(it);
      return true;
    }
  }
  return false;
}

bool operator==(const Object& a, const Object& b) { return a.members_ == b.members_; }

// ---------------------------------------------------------------------------------------------
// Value

bool Value::as_bool() const {
  if (auto p = std::get_if<bool>(&v_)) return *p;
  type_error(type(), "bool");
}

std::int64_t Value::as_int64() const {
  if (auto p = std::get_if<std::int64_t>(&v_)) return *p;
  if (auto p = std::get_if<std::uint64_t>(&v_)) {
    if (*p <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return static_cast<std::int64_t>(*p);
    throw TypeError("json: uint64 value " + std::to_string(*p) + " does not fit int64");
  }
  type_error(type(), "integer");
}

std::uint64_t Value::as_uint64() const {
  if (auto p = std::get_if<std::uint64_t>(&v_)) return *p;
  if (auto p = std::get_if<std::int64_t>(&v_)) {
    if (*p >= 0) return static_cast<std::uint64_t>(*p);
    throw TypeError("json: negative value " + std::to_string(*p) + " is not a uint64");
  }
  type_error(type(), "non-negative integer");
}

double Value::as_double() const {
  if (auto p = std::get_if<double>(&v_)) return *p;
  if (auto p = std::get_if<std::int64_t>(&v_)) return static_cast<double>(*p);
  if (auto p = std::get_if<std::uint64_t>(&v_)) return static_cast<double>(*p);
  type_error(type(), "number");
}

const std::string& Value::as_string() const {
  if (auto p = std::get_if<std::string>(&v_)) return *p;
  type_error(type(), "string");
}
std::string& Value::as_string() {
  if (auto p = std::get_if<std::string>(&v_)) return *p;
  type_error(type(), "string");
}
const Array& Value::as_array() const {
  if (auto p = std::get_if<Array>(&v_)) return *p;
  type_error(type(), "array");
}
Array& Value::as_array() {
  if (auto p = std::get_if<Array>(&v_)) return *p;
  type_error(type(), "array");
}
const Object& Value::as_object() const {
  if (auto p = std::get_if<Object>(&v_)) return *p;
  type_error(type(), "object");
}
Object& Value::as_object() {
  if (auto p = std::get_if<Object>(&v_)) return *p;
  type_error(type(), "object");
}

Value& Value::operator[](std::string_view key) {
  if (is_null()) v_ = Object{};
  return as_object()[key];
}

const Value& Value::operator[](std::string_view key) const { return as_object().at(key); }

Value& Value::at_index(std::size_t i) {
  Array& a = as_array();
  if (i >= a.size())
    throw std::out_of_range("json: index " + std::to_string(i) + " out of range (size " +
                            std::to_string(a.size()) + ")");
  return a[i];
}

const Value& Value::at_index(std::size_t i) const {
  const Array& a = as_array();
  if (i >= a.size())
    throw std::out_of_range("json: index " + std::to_string(i) + " out of range (size " +
                            std::to_string(a.size()) + ")");
  return a[i];
}

Value& Value::push_back(Value v) {
  if (is_null()) v_ = Array{};
  Array& a = as_array();
  a.push_back(std::move(v));
  return a.back();
}

bool Value::contains(std::string_view key) const { return find(key) != nullptr; }

const Value* Value::find(std::string_view key) const {
  if (auto p = std::get_if<Object>(&v_)) return p->find(key);
  return nullptr;
}

std::size_t Value::size() const {
  if (auto p = std::get_if<Array>(&v_)) return p->size();
  if (auto p = std::get_if<Object>(&v_)) return p->size();
  return 0;
}

bool operator==(const Value& a, const Value& b) {
  // int64 and uint64 holding the same integer compare equal (parse() prefers int64).
  if (a.is_integer() && b.is_integer()) {
    if (a.is_int() && b.is_int()) return a.as_int64() == b.as_int64();
    if (a.is_uint() && b.is_uint()) return a.as_uint64() == b.as_uint64();
    const Value& s = a.is_int() ? a : b;  // the signed one
    const Value& u = a.is_int() ? b : a;
    return s.as_int64() >= 0 && static_cast<std::uint64_t>(s.as_int64()) == u.as_uint64();
  }
  return a.v_ == b.v_;
}

// ---------------------------------------------------------------------------------------------
// Output

std::string format_double(double d) {
  if (!std::isfinite(d)) return "null";
  char buf[64];
  // Shortest representation that round-trips exactly (at most 17 significant digits).
  auto res = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::string quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          static const char hex[] = "0123456789abcdef";
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 0xf];
        } else {
          out += ch;  // UTF-8 passes through unchanged
        }
    }
  }
  out += '"';
  return out;
}

namespace {

void newline(std::string& out, int indent, int depth) {
  if (indent < 0) return;
  out += '\n';
  out.append(static_cast<std::size_t>(indent) * static_cast<std::size_t>(depth), ' ');
}

void dump_to(std::string& out, const Value& v, int indent, int depth) {
  switch (v.type()) {
    case Type::null: out += "null"; break;
    case Type::boolean: out += v.as_bool() ? "true" : "false"; break;
    case Type::int64: out += std::to_string(v.as_int64()); break;
    case Type::uint64: out += std::to_string(v.as_uint64()); break;
    case Type::floating: out += format_double(v.as_double()); break;
    case Type::string: out += quote(v.as_string()); break;
    case Type::array: {
      const Array& a = v.as_array();
      if (a.empty()) {
        out += "[]";
        break;
      }
      out += '[';
      bool first = true;
      for (const Value& e : a) {
        if (!first) out += ',';
        first = false;
        newline(out, indent, depth + 1);
        dump_to(out, e, indent, depth + 1);
      }
      newline(out, indent, depth);
      out += ']';
      break;
    }
    case Type::object: {
      const Object& o = v.as_object();
      if (o.empty()) {
        out += "{}";
        break;
      }
      out += '{';
      bool first = true;
      for (const auto& [key, member] : o) {
        if (!first) out += ',';
        first = false;
        newline(out, indent, depth + 1);
        out += quote(key);
        out += indent < 0 ? ":" : ": ";
        dump_to(out, member, indent, depth + 1);
      }
      newline(out, indent, depth);
      out += '}';
      break;
    }
  }
}

}  // namespace

std::string Value::dump(int indent) const {
  std::string out;
  dump_to(out, *this, indent, 0);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Parser

ParseError::ParseError(std::size_t line, std::size_t column, const std::string& message)
    : std::runtime_error("json parse error at line " + std::to_string(line) + ", column " +
                         std::to_string(column) + ": " + message),
      line_(line),
      column_(column) {}

namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  Value document() {
    skip_ws();
    Value v = value(0);
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected trailing characters");
    return v;
  }

 private:
  static constexpr int kMaxDepth = 512;

  [[noreturn]] void fail(const std::string& msg) const { fail_at(pos_, msg); }

  [[noreturn]] void fail_at(std::size_t at, const std::string& msg) const {
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < at && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw ParseError(line, col, msg);
  }

  bool eof() const { return pos_ >= s_.size(); }
  char peek() const { return eof() ? '\0' : s_[pos_]; }

  void skip_ws() {
    while (!eof()) {
      char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') ++pos_;
      else break;
    }
  }

  void expect_literal(std::string_view lit) {
    if (s_.substr(pos_, lit.size()) != lit) fail("invalid literal (expected '" + std::string(lit) + "')");
    pos_ += lit.size();
  }

  Value value(int depth) {
    if (depth > kMaxDepth) fail("nesting too deep");
    if (eof()) fail("unexpected end of input, expected a value");
    switch (peek()) {
      case '{': return object(depth);
      case '[': return array(depth);
      case '"': return Value(string());
      case 't': expect_literal("true"); return Value(true);
      case 'f': expect_literal("false"); return Value(false);
      case 'n': expect_literal("null"); return Value(nullptr);
      default:
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) return number();
        fail(std::string("unexpected character '") + peek() + "'");
    }
  }

  Value object(int depth) {
    ++pos_;  // '{'
    Object o;
    skip_ws();
    if (peek() == '}') {
      ++pos_;
      return Value(std::move(o));
    }
    for (;;) {
      skip_ws();
      if (peek() != '"') fail("expected a string key");
      std::string key = string();
      skip_ws();
      if (peek() != ':') fail("expected ':' after object key");
      ++pos_;
      skip_ws();
      o.set(key, value(depth + 1));  // duplicate keys: last one wins
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '}') {
        ++pos_;
        return Value(std::move(o));
      }
      fail(eof() ? "unexpected end of input in object" : "expected ',' or '}' in object");
    }
  }

  Value array(int depth) {
    ++pos_;  // '['
    Array a;
    skip_ws();
    if (peek() == ']') {
      ++pos_;
      return Value(std::move(a));
    }
    for (;;) {
      skip_ws();
      a.push_back(value(depth + 1));
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        return Value(std::move(a));
      }
      fail(eof() ? "unexpected end of input in array" : "expected ',' or ']' in array");
    }
  }

  unsigned hex4() {
    if (pos_ + 4 > s_.size()) fail("truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<unsigned>(c - 'A' + 10);
      else fail_at(pos_ - 1, "invalid hex digit in \\u escape");
    }
    return v;
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string string() {
    const std::size_t start = pos_;
    ++pos_;  // opening quote
    std::string out;
    for (;;) {
      if (eof()) fail_at(start, "unterminated string");
      const char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) fail("unescaped control character in string");
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      ++pos_;
      if (eof()) fail_at(start, "unterminated string");
      const char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (s_.substr(pos_, 2) != "\\u") fail("unpaired high surrogate in \\u escape");
            pos_ += 2;
            const unsigned lo = hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail("invalid low surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            fail("unpaired low surrogate in \\u escape");
          }
          append_utf8(out, cp);
          break;
        }
        default: fail_at(pos_ - 1, std::string("invalid escape '\\") + e + "'");
      }
    }
  }

  Value number() {
    const std::size_t start = pos_;
    bool negative = false, is_float = false;
    if (peek() == '-') {
      negative = true;
      ++pos_;
    }
    if (peek() == '0') {
      ++pos_;
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9') ++pos_;
    } else {
      fail("invalid number");
    }
    if (peek() == '.') {
      is_float = true;
      ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail("expected digit after '.'");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      is_float = true;
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail("expected digit in exponent");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    const char* first = s_.data() + start;
    const char* last = s_.data() + pos_;
    if (!is_float) {
      if (negative) {
        std::int64_t i = 0;
        auto r = std::from_chars(first, last, i);
        if (r.ec == std::errc() && r.ptr == last) return Value(i);
      } else {
        std::int64_t i = 0;
        auto r = std::from_chars(first, last, i);
        if (r.ec == std::errc() && r.ptr == last) return Value(i);
        std::uint64_t u = 0;
        r = std::from_chars(first, last, u);
        if (r.ec == std::errc() && r.ptr == last) return Value(u);
      }
      // integer too large for 64 bits: fall through to double
    }
    double d = 0.0;
    auto r = std::from_chars(first, last, d);
    if (r.ec == std::errc::result_out_of_range) {
      // Overflow -> +-inf is not representable in JSON output anyway; underflow -> 0.
      // Decide by the exponent sign: large magnitudes overflow, tiny ones underflow.
      const std::string_view tok(first, static_cast<std::size_t>(last - first));
      const auto epos = tok.find_first_of("eE");
      const bool tiny = epos != std::string_view::npos && epos + 1 < tok.size() && tok[epos + 1] == '-';
      if (tiny) return Value(negative ? -0.0 : 0.0);
      fail_at(start, "number out of range");
    }
    if (r.ec != std::errc() || r.ptr != last) fail_at(start, "invalid number");
    return Value(d);
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace

Value parse(std::string_view text) { return Parser(text).document(); }

}  // namespace boreas::json
