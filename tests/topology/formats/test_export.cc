#include <doctest/doctest.h>

#include "tests/support.h"
#include "topology/formats/export.h"
#include "topology/formats/json.h"
#include "topology/formats/kubernetes.h"

using namespace topoplan;

TEST_CASE("export: one row per format; the row's writer loads what the format needs") {
  for (const ExportFormat& f : export_formats()) {
    CAPTURE(f.name);
    CHECK(*f.help != '\0');
    Result<const ExportFormat*> named = export_format_named(f.name);
    REQUIRE(named);
    CHECK(*named == &f);
  }
  Result<std::string> json = (*export_format_named("json"))->write("dgx-h100:2", {});
  REQUIRE(json);
  CHECK(*json == save_cluster_json(test::load_cluster("dgx-h100:2")));
  Result<std::string> labels = (*export_format_named("k8s-labels"))->write("dgx-h100:2", {.labels = K8sLabels::tiers});
  REQUIRE(labels);
  CHECK(*labels == k8s_labels_write(test::load_cluster("dgx-h100:2"), K8sLabels::tiers));
  // nccl-xml reads one server; a Grace tray's topology NCCL reads itself.
  CHECK((*export_format_named("nccl-xml"))->write("dgx-h100", {}));
  CHECK((*export_format_named("nccl-xml"))->write("gb200-nvl72", {}).error().find("NCCL reads that topology itself") !=
        std::string::npos);
}

TEST_CASE("export: an unknown name lists the formats; options name the formats that read them") {
  Result<const ExportFormat*> f = export_format_named("slurm");
  REQUIRE(!f);
  CHECK(f.error() ==
        "unknown format 'slurm' (expected dot, nccl-xml, json, slurm-tree, slurm-block, slurm-yaml, k8s-labels or "
        "kueue-topology)");
  CHECK(export_format_named("jsno").error().starts_with("unknown format 'jsno', did you mean 'json'?"));
  CHECK(export_formats_taking(ExportTakes::dot_hosts) == std::vector<std::string>{"dot"});
  CHECK(export_formats_taking(ExportTakes::labels) == std::vector<std::string>{"k8s-labels", "kueue-topology"});
  CHECK(export_formats_help().starts_with("dot (Graphviz), nccl-xml (one server's NCCL_TOPO_FILE), json (lossless), "));
  CHECK(export_formats_help().ends_with(" or kueue-topology (Kueue's Topology object)"));
}
