// JSON values written as block-style YAML, for the manifests Kubernetes users read and edit. Every
// one-line string is double-quoted, so "8", "true" or "0755" stay strings (an env value Kubernetes
// must see as a string), and a script (lines that end in a line break) is a literal block; numbers and booleans
// stay plain. Keys keep their order.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace topoplan {

std::string yaml_text(const nlohmann::ordered_json& value);

}  // namespace topoplan
