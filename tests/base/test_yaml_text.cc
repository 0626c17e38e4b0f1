#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include "base/yaml_text.h"

namespace topoplan {

TEST_CASE("yaml_text: strings stay strings, scripts read back byte for byte, keys keep their order") {
  const std::vector<std::string> strings = {
      "8", "true", "0755", "null", "", " lead", "trail ", "a: b", "- x", "#x", "quote \" and \\ back", "tab\there",
      "case \"$X\" in\nh001) N=0 ;;\nesac\nexec run \"$@\"\n", "two\nlines", "ends\n\n", "\nstarts", " indented\nscript\n", "ünï"};
  nlohmann::ordered_json doc = {{"zeta", 1}, {"alpha", true}, {"mid", 2.5}, {"none", nullptr}, {"list", strings}};
  const std::string text = yaml_text(doc);
  CHECK(text.rfind("zeta: 1\nalpha: true\nmid: 2.5\n", 0) == 0);
  const YAML::Node back = YAML::Load(text);
  REQUIRE(back["list"].size() == strings.size());
  for (size_t i = 0; i < strings.size(); ++i) {
    CAPTURE(strings[i]);
    CHECK(back["list"][i].as<std::string>() == strings[i]);
    // Quoted or literal: a YAML reader never takes them for a number, boolean or null.
    CHECK(back["list"][i].Tag() != "?");
  }
  CHECK(back["zeta"].as<int>() == 1);
  CHECK(back["alpha"].as<bool>());
  CHECK(back["none"].IsNull());
  CHECK(yaml_text(nlohmann::ordered_json::object()) == "{}\n");
}

}  // namespace topoplan
