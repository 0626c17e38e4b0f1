#include <doctest/doctest.h>

#include "base/suggest.h"

using namespace topoplan;

TEST_CASE("suggest: closest name within a third of its length") {
  std::vector<std::string> presets = {"dgx-a100", "dgx-h100", "hgx-h200"};
  CHECK(suggest_closest("dgx-h10", presets) == "dgx-h100");
  CHECK(suggest_closest("dgxh100", presets) == "dgx-h100");
  CHECK(suggest_closest("completely-different", presets).empty());
  CHECK(did_you_mean("hgx-h20", presets) == ", did you mean 'hgx-h200'?");
  CHECK(did_you_mean("zzz", presets).empty());
}

TEST_CASE("suggest: one edit is enough for short names when it points at one candidate only") {
  std::vector<std::string> axes = {"tp", "cp", "ep", "dp", "pp"};
  CHECK(suggest_closest("dq", axes) == "dp");
  CHECK(suggest_closest("ex", axes) == "ep");
  CHECK(suggest_closest("pt", axes).empty());  // a swap from tp, a letter from pp: ambiguous
  CHECK(suggest_closest("xp", axes).empty());  // one edit from every axis: no guess
  CHECK(suggest_closest("zz", axes).empty());
}

TEST_CASE("suggest: a list of names and the error for a name not in it") {
  CHECK(names_list({}).empty());
  CHECK(names_list({"json"}, " or ") == "json");
  CHECK(names_list({"json", "dot"}, " or ") == "json or dot");
  CHECK(names_list({"json", "dot", "slurm-tree"}) == "json, dot, slurm-tree");
  CHECK(names_list({"json", "dot", "slurm-tree"}, " or ") == "json, dot or slurm-tree");
  CHECK(unknown_name("preset", "dgx-h10", {"dgx-a100", "dgx-h100"}, "presets") ==
        "unknown preset 'dgx-h10', did you mean 'dgx-h100'? (presets: dgx-a100, dgx-h100)");
  CHECK(unknown_name("format", "svg", {"json", "dot"}, "formats") == "unknown format 'svg' (formats: json, dot)");
}
