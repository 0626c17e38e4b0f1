#include <doctest/doctest.h>

#include <fstream>

#include "observe/port_map.h"
#include "tests/support.h"

using namespace topoplan;

namespace {

EdgeId edge(const Cluster& c, const std::string& a, const std::string& b) {
  for (EdgeId e : c.out_edges(*c.find(a)))
    if (c.target(e) == *c.find(b)) return e;
  FAIL("no link " << a << " -> " << b);
  return 0;
}

std::string error_of(const Cluster& c, const std::string& key, const PortMapping* m = nullptr) {
  Result<PortLink> p = port_find(c, key, m);
  REQUIRE_FALSE(p.ok());
  return p.error();
}

}  // namespace

TEST_CASE("port_map: a counter key names a port as the cluster does") {
  const Cluster c = test::load_cluster("dgx-h100:2");
  const EdgeId up = edge(c, "h001/nic0", "leaf0");
  for (const char* key : {"h001/nic0 -> leaf0", "h001/nic0", "h001 nic0", "h001 nic0 1", "h001/nic0:1"}) {
    INFO(key);
    Result<PortLink> p = port_find(c, key, nullptr);
    REQUIRE_MESSAGE(p.ok(), p.error());
    CHECK(p->tx == up);
    CHECK(p->name == "h001/nic0:1 (h001/nic0 -> leaf0)");
  }
  // The switch's end of the same link: its transmit side is the NIC's receive side.
  Result<PortLink> down = port_find(c, "leaf0 -> h001/nic0", nullptr);
  REQUIRE(down.ok());
  CHECK(down->tx == Cluster::reverse(up));
  // Ports count network links only, from 1, in the order the cluster built them.
  Result<PortLink> first = port_find(c, "leaf0:1", nullptr);
  REQUIRE(first.ok());
  CHECK(c.source(first->tx) == *c.find("leaf0"));
  CHECK(c.link(first->tx).kind == LinkKind::NET);
}

TEST_CASE("port_map: keys that name no port, or several, say why") {
  const Cluster c = test::load_cluster("dgx-h100:2");
  CHECK(error_of(c, "leaf0").find("network ports; name one, e.g. leaf0:1") != std::string::npos);
  CHECK(error_of(c, "leaf0:999").find("network ports, not 999") != std::string::npos);
  CHECK(error_of(c, "leaf0:x") == "'leaf0:x': expected device:PORT with PORT from 1");
  CHECK(error_of(c, "h001/gpu0") == "'h001/gpu0': h001/gpu0 has no network port");
  CHECK(error_of(c, "h009/nic0 -> leaf0") == "'h009/nic0 -> leaf0': no device 'h009/nic0' in the cluster");
  CHECK(error_of(c, "h001/nic0 -> leaf1") == "'h001/nic0 -> leaf1': no network link joins h001/nic0 to leaf1");
  CHECK(error_of(c, "h001 mlx5_0 1").find("no device 'h001/mlx5_0' in the cluster; map the counter") !=
        std::string::npos);
  CHECK(error_of(c, "lid 12 port 1").find("map it to one with --port-map") != std::string::npos);
}

TEST_CASE("port_map: parallel links need a port number") {
  // Two hosts, each a GPU and a NIC, their switches joined by two links.
  Cluster c;
  Device d;
  for (int h = 0; h < 2; ++h) {
    const std::string host = h == 0 ? "a" : "b";
    c.add_host({host, -1, -1, "", {}, {}});
    d = Device{host + "/gpu0", DeviceKind::gpu, h, -1, -1, -1, 0, 0, "H100-SXM"};
    const VertexId gpu = *c.add_device(d);
    d = Device{host + "/nic0", DeviceKind::nic, h, -1, -1, 0, 0, 0, ""};
    const VertexId nic = *c.add_device(d);
    REQUIRE(c.add_link(gpu, nic, LinkKind::PCI, 50, 1));
    d = Device{"sw" + std::to_string(h), DeviceKind::switch_, -1, -1, -1, -1, 1, -1, ""};
    const VertexId sw = *c.add_device(d);
    REQUIRE(c.add_link(nic, sw, LinkKind::NET, 50, 1));
  }
  REQUIRE(c.add_link(*c.find("sw0"), *c.find("sw1"), LinkKind::NET, 50, 1));
  REQUIRE(c.add_link(*c.find("sw0"), *c.find("sw1"), LinkKind::NET, 50, 1));
  REQUIRE(c.finalize());
  CHECK(error_of(c, "sw0 -> sw1") == "'sw0 -> sw1': 2 parallel links join sw0 to sw1; name the port, e.g. sw0:2");
  Result<PortLink> second = port_find(c, "sw0:3", nullptr);
  REQUIRE(second.ok());
  CHECK(second->name == "sw0:3 (sw0 -> sw1)");
}

TEST_CASE("port_map: a preset's leaf-to-spine bundle is one link per port, at the port's rate") {
  // dgx-h100:2: 8 rail leaves of 32 uplinks over 4 spines, bundles of 8 ports of 400 Gbit/s. A
  // leaf's ports are its 2 host links, then its uplinks, so leaf0:3 is the first toward spine0.
  const Cluster c = test::load_cluster("dgx-h100:2");
  CHECK(error_of(c, "leaf0 -> spine0") ==
        "'leaf0 -> spine0': 8 parallel links join leaf0 to spine0; name the port, e.g. leaf0:3");
  Result<PortLink> p = port_find(c, "leaf0:4", nullptr);
  REQUIRE(p.ok());
  CHECK(p->name == "leaf0:4 (leaf0 -> spine0)");
  CHECK(c.link(p->tx).bw_GBps == 50);  // the line rate a counter is checked against
}

TEST_CASE("port_map: a mapping file, and its errors with file and line") {
  const Cluster c = test::load_cluster("dgx-h100:2");
  const auto dir = test::temp_dir("port_map");
  const std::string good = (dir / "good.csv").string();
  std::ofstream(good) << "counter,port\n# the HCAs\nh001 mlx5_0 1,h001/nic0\nlid 12 port 1, leaf0 -> h001/nic0\n";
  Result<PortMapping> m = port_mapping_load(good, c);
  REQUIRE_MESSAGE(m.ok(), m.error());
  Result<PortLink> hca = port_find(c, "h001 mlx5_0 1", &*m);
  REQUIRE(hca.ok());
  CHECK(hca->tx == edge(c, "h001/nic0", "leaf0"));
  Result<PortLink> lid = port_find(c, "lid 12 port 1", &*m);
  REQUIRE(lid.ok());
  CHECK(lid->tx == edge(c, "leaf0", "h001/nic0"));
  auto bad = [&](const std::string& text) {
    const std::string path = (dir / "bad.csv").string();
    std::ofstream(path) << text;
    Result<PortMapping> r = port_mapping_load(path, c);
    REQUIRE_FALSE(r.ok());
    return r.error();
  };
  CHECK(bad("counter,port\nlid 3 port 1\n").starts_with(dir.string() + "/bad.csv:2: expected 'counter,port'"));
  CHECK(bad("lid 3 port 1,leaf77:1\n") == dir.string() + "/bad.csv:1: 'leaf77:1': no device 'leaf77' in the cluster");
  CHECK(bad("a,h001/nic0\na,h002/nic0\n") == dir.string() + "/bad.csv:2: counter 'a' is mapped twice");
  CHECK(bad(",h001/nic0\n") == dir.string() + "/bad.csv:1: a counter key and a port are both needed");
  Result<PortMapping> missing = port_mapping_load((dir / "none.csv").string(), c);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().find("cannot read the port mapping") != std::string::npos);
}
