#include "core/Scheme.hpp"

namespace boreas {

namespace {
struct Named {
  const char* name;
  Scheme scheme;
};
const Named names[] = {{"ab_pull", {StreamingKernel::ABPull, 1}},    {"ab_push", {StreamingKernel::ABPush, 1}},
                       {"aa", {StreamingKernel::AA, 1}},             {"swap", {StreamingKernel::Swap, 1}},
                       {"swap_prism", {StreamingKernel::SwapPrism, 1}}, {"merged2", {StreamingKernel::Merged, 2}},
                       {"merged3", {StreamingKernel::Merged, 3}},    {"merged_aa2", {StreamingKernel::MergedAA, 2}},
                       {"merged_aa3", {StreamingKernel::MergedAA, 3}}, {"auto", {StreamingKernel::Auto, 1}}};
}  // namespace

const std::vector<std::string>& known_kernels() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> v;
    for (const Named& n : names)
      if (n.scheme.kind != StreamingKernel::Auto) v.push_back(n.name);
    return v;
  }();
  return k;
}

std::optional<Scheme> parse_scheme(const std::string& name) {
  for (const Named& n : names)
    if (name == n.name) return n.scheme;
  return std::nullopt;
}

std::string scheme_name(const Scheme& scheme) {
  for (const Named& n : names)
    if (n.scheme == scheme) return n.name;
  return "unknown";
}

}  // namespace boreas
