#include "topology/formats/node_type_json.h"

#include "base/json_fields.h"
#include "base/units.h"

namespace topoplan {
namespace {

// A rate field in GB/s, 0 when absent.
double rate_field(Fields& f, const char* key) {
  if (!f.has(key)) return 0;
  const std::string text = f.text(key, kRequired);
  if (!f.ok()) return 0;
  Result<double> GBps = parse_rate_GBps(text);
  if (!GBps) f.fail(f.at(key), GBps.error());
  return GBps ? *GBps : 0;
}

}  // namespace

Result<NodeType> node_type_from_json(const nlohmann::json& doc, const std::string& where) {
  std::string error;
  Fields f(doc, "", {"format",     "version",       "name",          "gpu_model",  "gpus",
                     "nics",       "nic_rate",      "nvlink_rate",   "pcie_rate",  "gpus_per_pcie_switch",
                     "nic_switch", "cpus",          "cpu_link_rate", "c2c_rate",   "hosts_per_domain",
                     "cpu_model",  "cores_per_cpu", "nvlink_bonds",  "gpu_busids", "nic_busids",
                     "nic_names"},
           &error);
  if (f.has("format") && f.text("format", kRequired) != "topoplan-node-type")
    f.fail("format", "expected \"topoplan-node-type\", got " + json_shown(doc.at("format")));
  if (f.has("version") && f.integer("version", kRequired, 0) != 1)
    f.fail("version", "expected 1, got " + json_shown(doc.at("version")));
  NodeType t;
  t.name = f.name("name");
  t.gpu_model = f.name("gpu_model");
  t.gpus = f.integer("gpus", kRequired, 1, kMaxGpusPerHost);
  t.nics = f.integer("nics", 0, 0, kMaxGpusPerHost);
  t.nic_gbit_s = rate_field(f, "nic_rate") * 8;
  t.nvlink_GBps = rate_field(f, "nvlink_rate");
  t.pcie_GBps = rate_field(f, "pcie_rate");
  t.gpus_per_pcie_switch = f.integer("gpus_per_pcie_switch", 1, 1, kMaxGpusPerHost);
  t.cpus = f.integer("cpus", 1, 1, kMaxCpusPerHost);
  t.cpu_link_GBps = rate_field(f, "cpu_link_rate");
  t.c2c_GBps = rate_field(f, "c2c_rate");
  t.hosts_per_domain = f.integer("hosts_per_domain", 1, 1, kMaxGpusPerHost);
  t.cpu_model = f.text("cpu_model", "");
  t.cores_per_cpu = f.integer("cores_per_cpu", 0, 0, 1 << 20);
  if (const nlohmann::json* list = f.list("nic_switch", false))
    for (size_t i = 0; i < list->size() && f.ok(); ++i) {
      const nlohmann::json& v = (*list)[i];
      if (!v.is_number_integer())
        f.fail(json_indexed(f.at("nic_switch"), i), "expected a switch index, got " + json_shown(v));
      else
        t.nic_switch.push_back(v.get<int>());
    }
  if (const nlohmann::json* rows = f.list("nvlink_bonds", false))
    for (size_t a = 0; a < rows->size() && f.ok(); ++a) {
      const nlohmann::json& row = (*rows)[a];
      const std::string at = json_indexed(f.at("nvlink_bonds"), a);
      if (!row.is_array()) {
        f.fail(at, "expected a list of NVLink counts, one per GPU, got " + json_shown(row));
        break;
      }
      t.nvlink_bonds.emplace_back();
      for (size_t b = 0; b < row.size() && f.ok(); ++b)
        if (!row[b].is_number_integer() || row[b].get<int64_t>() < 0 || row[b].get<int64_t>() > kMaxNvlinksPerGpu)
          f.fail(json_indexed(at, b),
                 "expected 0 to " + std::to_string(kMaxNvlinksPerGpu) + " NVLinks, got " + json_shown(row[b]));
        else
          t.nvlink_bonds.back().push_back(row[b].get<int>());
    }
  for (auto [key, list] : {std::pair{"gpu_busids", &t.gpu_busids}, std::pair{"nic_busids", &t.nic_busids},
                           std::pair{"nic_names", &t.nic_names}})
    if (const nlohmann::json* names = f.list(key, false))
      for (size_t i = 0; i < names->size() && f.ok(); ++i) {
        const nlohmann::json& v = (*names)[i];
        if (!v.is_string() || v.get<std::string>().empty())
          f.fail(json_indexed(f.at(key), i), "expected a name, got " + json_shown(v));
        else
          list->push_back(v.get<std::string>());
      }
  if (!error.empty()) return error_in(where, error);
  if (Result<void> ok = node_type_check(t); !ok) return error_in(where, ok.error());
  return t;
}

nlohmann::ordered_json node_type_to_json(const NodeType& t) {
  auto GBps = [](double x) { return format_exact(x) + "GB/s"; };
  nlohmann::ordered_json j = {{"format", "topoplan-node-type"}, {"version", 1},   {"name", t.name},
                              {"gpu_model", t.gpu_model},       {"gpus", t.gpus}, {"nics", t.nics}};
  if (t.nics > 0) j["nic_rate"] = format_exact(t.nic_gbit_s) + "Gbps";
  if (t.nvlink_GBps > 0) j["nvlink_rate"] = GBps(t.nvlink_GBps);
  if (t.pcie_GBps > 0) j["pcie_rate"] = GBps(t.pcie_GBps);
  j["gpus_per_pcie_switch"] = t.gpus_per_pcie_switch;
  if (!t.nic_switch.empty()) j["nic_switch"] = t.nic_switch;
  j["cpus"] = t.cpus;
  if (t.cpu_link_GBps > 0) j["cpu_link_rate"] = GBps(t.cpu_link_GBps);
  if (t.c2c_GBps > 0) j["c2c_rate"] = GBps(t.c2c_GBps);
  j["hosts_per_domain"] = t.hosts_per_domain;
  if (!t.cpu_model.empty()) j["cpu_model"] = t.cpu_model;
  if (t.cores_per_cpu > 0) j["cores_per_cpu"] = t.cores_per_cpu;
  if (!t.nvlink_bonds.empty()) j["nvlink_bonds"] = t.nvlink_bonds;
  if (!t.gpu_busids.empty()) j["gpu_busids"] = t.gpu_busids;
  if (!t.nic_busids.empty()) j["nic_busids"] = t.nic_busids;
  if (!t.nic_names.empty()) j["nic_names"] = t.nic_names;
  return j;
}

}  // namespace topoplan
