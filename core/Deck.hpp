#pragma once
// Input deck parsing: TOML -> validated, unit-converted boreas::Config.
// The full schema is documented in README.md, section "Deck reference".
//
// All problems in a deck are collected and thrown together as one boreas::DeckError
// before any work is done; each line is formatted like a compiler diagnostic:
//   cavity3d.toml:12:5: error: [physics] unknown key 'taus'; did you mean 'tau'?
//   --set physics.tau=0.4: error: physics.tau: expected a number > 0.5, got 0.4
#include <string>
#include <string_view>
#include <vector>

#include "core/Config.hpp"
#include "core/Error.hpp"

namespace boreas {

// Validation observables a deck may name in [validation] observables.
const std::vector<std::string>& known_observables();

// Reads and validates the deck at `path`. `overrides` are "key.path=value" strings from
// --set; the value is parsed as a TOML value (a string if it does not parse as one) and
// replaces/creates the key before validation. Relative paths in the deck (voxel files)
// are resolved against the deck's directory. Throws DeckError.
Config parse_deck(const std::string& path, const std::vector<std::string>& overrides = {});

// Same, from text. `source_name` is used in diagnostics and for the default run name
// (its stem); `base_dir` resolves relative paths ("" = current directory).
Config parse_deck_string(std::string_view text, const std::string& source_name,
                         const std::string& base_dir,
                         const std::vector<std::string>& overrides = {});

// A deck error found after parsing, by checks that need the rank count or the device
// (drivers/RunCheck.hpp): one diagnostic at the location the parser recorded for `key`
// (Config::locations), in the parser's format. Throws DeckError.
[[noreturn]] void throw_deck_error(const Config& config, const std::string& key, const std::string& message);

}  // namespace boreas
