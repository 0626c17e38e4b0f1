#include "base/yaml_text.h"

#include <yaml-cpp/yaml.h>

namespace topoplan {
namespace {

void put(YAML::Emitter& y, const nlohmann::ordered_json& v) {
  switch (v.type()) {
    case nlohmann::ordered_json::value_t::object:
      y << YAML::BeginMap;
      for (const auto& [key, item] : v.items()) {
        y << YAML::Key << key << YAML::Value;
        put(y, item);
      }
      y << YAML::EndMap;
      break;
    case nlohmann::ordered_json::value_t::array:
      y << YAML::BeginSeq;
      for (const auto& item : v) put(y, item);
      y << YAML::EndSeq;
      break;
    case nlohmann::ordered_json::value_t::string: {
      // A script reads as itself in a literal block; yaml-cpp writes it with "clip" chomping (one
      // final line break kept) and no indentation indicator, so only text that ends in exactly one
      // line break and does not begin with a space or a line break reads back the same.
      const std::string& s = v.get_ref<const std::string&>();
      const bool literal = s.size() >= 2 && s.back() == '\n' && s[s.size() - 2] != '\n' && s.front() != ' ' &&
                           s.front() != '\n';
      y << (literal ? YAML::Literal : YAML::DoubleQuoted) << s;
      break;
    }
    case nlohmann::ordered_json::value_t::null:
      y << YAML::Null;
      break;
    default:  // numbers and booleans: JSON's spelling is YAML's
      y << v.dump();
  }
}

}  // namespace

std::string yaml_text(const nlohmann::ordered_json& value) {
  YAML::Emitter y;
  y.SetIndent(2);
  y.SetSeqFormat(YAML::Block);
  put(y, value);
  return std::string(y.c_str()) + "\n";
}

}  // namespace topoplan
