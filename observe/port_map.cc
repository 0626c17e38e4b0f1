#include "observe/port_map.h"

#include <fstream>

#include "base/limits.h"
#include "base/words.h"

namespace topoplan {
namespace {

std::string port_name(const Cluster& c, VertexId v, size_t index, EdgeId e) {
  return c.device(v).name + ":" + std::to_string(index + 1) + " (" + c.edge_name(e) + ")";
}

// "a -> b": the one link between them.
Result<PortLink> by_link_name(const Cluster& c, const std::string& key, size_t arrow) {
  const std::string a(trim(std::string_view(key).substr(0, arrow))), b(trim(std::string_view(key).substr(arrow + 2)));
  const std::optional<VertexId> va = c.find(a), vb = c.find(b);
  if (!va || !vb) return Error{"'" + key + "': no device '" + (va ? b : a) + "' in the cluster"};
  const std::vector<EdgeId> ports = network_ports(c, *va);
  std::vector<size_t> to_b;
  for (size_t i = 0; i < ports.size(); ++i)
    if (c.target(ports[i]) == *vb) to_b.push_back(i);
  if (to_b.empty()) return Error{"'" + key + "': no network link joins " + a + " to " + b};
  if (to_b.size() > 1)
    return Error{"'" + key + "': " + std::to_string(to_b.size()) + " parallel links join " + a + " to " + b +
                 "; name the port, e.g. " + a + ":" + std::to_string(to_b[0] + 1)};
  return PortLink{ports[to_b[0]], port_name(c, *va, to_b[0], ports[to_b[0]])};
}

// A device with one network port (a NIC), or "device:N".
Result<PortLink> by_device(const Cluster& c, const std::string& device, int port, const std::string& key) {
  const std::optional<VertexId> v = c.find(device);
  if (!v) return Error{"'" + key + "': no device '" + device + "' in the cluster"};
  const std::vector<EdgeId> ports = network_ports(c, *v);
  if (ports.empty()) return Error{"'" + key + "': " + device + " has no network port"};
  if (port == 0 && ports.size() > 1)
    return Error{"'" + key + "': " + device + " has " + std::to_string(ports.size()) +
                 " network ports; name one, e.g. " + device + ":1"};
  if (port > static_cast<int>(ports.size()))
    return Error{"'" + key + "': " + device + " has " + std::to_string(ports.size()) + " network ports, not " +
                 std::to_string(port)};
  const size_t i = port == 0 ? 0 : static_cast<size_t>(port - 1);
  return PortLink{ports[i], port_name(c, *v, i, ports[i])};
}

// A port number from 1, 0 when the text is not one.
int port_number(std::string_view s) {
  if (s.empty() || s.size() > 6) return 0;
  int n = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return 0;
    n = n * 10 + (ch - '0');
  }
  return n;
}

}  // namespace

std::vector<EdgeId> network_ports(const Cluster& c, VertexId device) {
  std::vector<EdgeId> out;
  for (EdgeId e : c.out_edges(device))
    if (c.link(e).kind == LinkKind::NET || c.link(e).kind == LinkKind::DCI) out.push_back(e);
  return out;
}

Result<PortMapping> port_mapping_load(const std::string& path, const Cluster& c) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Error{path + ": cannot read the port mapping"};
  PortMapping out;
  std::string line;
  int n = 0;
  size_t read = 0;
  while (std::getline(f, line)) {
    ++n;
    read += line.size() + 1;
    if (read > limits::kMaxFileBytes) return Error{path + ": larger than the input file limit"};
    const std::string at = path + ":" + std::to_string(n);
    const std::string t(trim(line));
    if (t.empty() || t[0] == '#') continue;
    const size_t comma = t.rfind(',');
    if (comma == std::string::npos)
      return Error{
          at +
          ": expected 'counter,port' (a counter key, a comma, a port such as leaf3:5 or 'h001/nic0 -> leaf0'), got '" +
          t + "'"};
    const std::string key(trim(std::string_view(t).substr(0, comma))),
        port(trim(std::string_view(t).substr(comma + 1)));
    if (n == 1 && key == "counter" && port == "port") continue;
    if (key.empty() || port.empty()) return Error{at + ": a counter key and a port are both needed"};
    if (Result<PortLink> p = port_find(c, port, nullptr); !p) return Error{at + ": " + p.error()};
    if (!out.emplace(key, port).second) return Error{at + ": counter '" + key + "' is mapped twice"};
  }
  return out;
}

Result<PortLink> port_find(const Cluster& c, const std::string& key, const PortMapping* mapping) {
  if (mapping)
    if (auto it = mapping->find(key); it != mapping->end()) return port_find(c, it->second, nullptr);
  if (const size_t arrow = key.find("->"); arrow != std::string::npos) return by_link_name(c, key, arrow);
  // "device:N"
  if (const size_t colon = key.rfind(':'); colon != std::string::npos && key.find(' ') == std::string::npos) {
    const int port = port_number(std::string_view(key).substr(colon + 1));
    if (port == 0) return Error{"'" + key + "': expected device:PORT with PORT from 1"};
    return by_device(c, key.substr(0, colon), port, key);
  }
  // "device", "host device", "host device N"
  const Words words = words_of(key);
  if (words.size() == 1) return by_device(c, std::string(words[0]), 0, key);
  if (words.size() == 2 || words.size() == 3) {
    const int port = words.size() == 3 ? port_number(words[2]) : 0;
    const std::string device = std::string(words[0]) + "/" + std::string(words[1]);
    if (c.find(device)) return by_device(c, device, port, key);
    return Error{"'" + key + "': no device '" + device + "' in the cluster; map the counter to a port with --port-map"};
  }
  return Error{"'" + key + "': names no port of the cluster; map it to one with --port-map (docs/observe.md)"};
}

}  // namespace topoplan
