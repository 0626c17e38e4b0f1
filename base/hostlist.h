// Slurm's hostlist syntax, parsed and printed here and nowhere else: "h[0001-0016,0033]",
// "rack[1-2]-n[01-04]" (bracket groups expand as a product, leftmost slowest), entries separated by
// commas outside brackets. Ranges keep the zero padding of their first number, as Slurm does.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace topoplan {

// More names than any cluster topoplan accepts; a hostlist expanding beyond it is an error, not
// an allocation of gigabytes.
inline constexpr size_t kHostlistMaxNames = 1'000'000;
// A host name is a DNS name: at most 255 characters. And all the names together at most 16 MiB:
// a million names of 16 characters, or 250,000 fully qualified ones of 64; expanding that much
// takes a fraction of a second, where a million long names would take seconds and gigabytes.
inline constexpr size_t kHostlistMaxNameLength = 255;
inline constexpr size_t kHostlistMaxChars = size_t{16} << 20;

// "h[01-03],x" -> h01 h02 h03 x, in the order written (repeats kept: the caller decides).
// Errors say where in the text and what was expected.
Result<std::vector<std::string>> hostlist_expand(std::string_view text);

// The shortest common form: names sharing a prefix, a suffix-free numeric tail and its width are
// folded into ranges, in the order given ("h001,h002,h003,h007" -> "h[001-003,007]").
std::string hostlist_compress(const std::vector<std::string>& names);

}  // namespace topoplan
