#include "topology/gpu_models.h"

#include <doctest/doctest.h>

using namespace topoplan;

TEST_CASE("gpu models: compute capability by the model's prefix") {
  CHECK(gpu_compute_capability("H100-SXM5") == 90);
  CHECK(gpu_compute_capability("H200-SXM5") == 90);
  CHECK(gpu_compute_capability("GH200") == 90);
  CHECK(gpu_compute_capability("GB200") == 100);
  CHECK(gpu_compute_capability("B200") == 100);
  CHECK(gpu_compute_capability("A100-SXM4") == 80);
  CHECK(gpu_compute_capability("V100-PCIe") == 70);
  CHECK(gpu_compute_capability("L40S") == 89);
  CHECK(gpu_compute_capability("L4") == 89);
  // Unknown, empty, another case, a prefix too short: 0.
  CHECK(gpu_compute_capability("MI300X") == 0);
  CHECK(gpu_compute_capability("") == 0);
  CHECK(gpu_compute_capability("h100") == 0);
  CHECK(gpu_compute_capability("H") == 0);
  CHECK(gpu_compute_capability("G") == 0);
  // Every model the PCI table names has a compute capability.
  for (unsigned id : {0x1db1u, 0x20b0u, 0x2330u, 0x2335u, 0x2342u, 0x2901u, 0x26b9u, 0x27b8u})
    CHECK(gpu_compute_capability(gpu_model_of_pci_device(id)) > 0);
}
