#pragma once
// "Did you mean": the nearest of a list of valid words to a mistyped one, for unknown
// subcommands (runn) and options (--spike-only, --thread).
#include <string>
#include <vector>

namespace arbolito {

// Levenshtein distance (insertions, deletions, substitutions).
std::size_t edit_distance(const std::string& a, const std::string& b);

// The candidate nearest to `word`, or "" when none is near (more than a third of the
// word's length, at least 2, away).
std::string nearest_word(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace arbolito
