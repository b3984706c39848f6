#pragma once
// JSON for run reports, benchmark lines and the kernel-choice cache: nlohmann::ordered_json
// (Debian's nlohmann-json3-dev), whose objects keep insertion order, as people read report.json
// top to bottom. Doubles print in the shortest form that reads back exactly; NaN and infinities
// print as null.
#include <nlohmann/json.hpp>

#include <string>

namespace boreas {

using Json = nlohmann::ordered_json;

// Member `key` of an object, or nullptr when absent (or not an object).
inline const Json* member(const Json& object, const std::string& key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

}  // namespace boreas
