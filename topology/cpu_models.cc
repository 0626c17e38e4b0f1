#include "topology/cpu_models.h"

#include "base/name_table.h"
#include "base/suggest.h"

namespace topoplan {
namespace {

// NCCL's socket figures, GB/s per direction: NVIDIA/nccl v2.30.7-1 src/graph/topo.h:26-34
// (AMD_BW 16, BDW_QPI_BW 6, SKL_QPI_BW 10, SRP_QPI_BW 22, ERP_QPI_BW 40, P9_BW 32, ARM_BW 6;
// SRP and ERP since v2.26.2-1, before which every Intel from Skylake on got 10). topo.cc:60-84
// (ncclTopoGetInterCpuBw) picks one by arch (POWER, ARM), then by x86 vendor, then for Intel by
// generation, which topo.cc:744-751 reads from CPUID: family 6, model >= 0xCF Emerald Rapids,
// >= 0x8F Sapphire Rapids, >= 0x55 Skylake, else Broadwell. topo.cc:270-282
// (ncclTopoConnectCpus) links every pair of a host's NUMA nodes at that figure.
constexpr const char* kNccl = "NCCL v2.30.7-1";
constexpr double kBdw_GBps = 6, kSkl_GBps = 10, kSrp_GBps = 22, kErp_GBps = 40, kAmd_GBps = 16, kP9_GBps = 32,
                 kArm_GBps = 6;

// CPUID models from Linux arch/x86/include/asm/intel-family.h: BROADWELL_X 0x4F, SKYLAKE_X 0x55
// (Cascade Lake too), ICELAKE_X 0x6A, SAPPHIRERAPIDS_X 0x8F, EMERALDRAPIDS_X 0xCF.
std::vector<CpuModel> make_models() {
  return {
      // A Xeon of unknown generation (an import that read only the vendor): Skylake's figure,
      // the oldest Xeon generation in servers with NVSwitch GPUs.
      {"Xeon", "Intel, generation unknown", "SKL_QPI_BW", kSkl_GBps},
      {"Xeon-E5-2698v4", "Intel Broadwell", "BDW_QPI_BW", kBdw_GBps},  // DGX-1
      {"Xeon-8168", "Intel Skylake", "SKL_QPI_BW", kSkl_GBps},         // DGX-2
      {"Xeon-8280", "Intel Cascade Lake", "SKL_QPI_BW", kSkl_GBps},
      {"Xeon-8380", "Intel Ice Lake", "SKL_QPI_BW", kSkl_GBps},
      {"Xeon-8480C", "Intel Sapphire Rapids", "SRP_QPI_BW", kSrp_GBps},  // DGX H100, H200
      {"Xeon-8468", "Intel Sapphire Rapids", "SRP_QPI_BW", kSrp_GBps},
      {"Xeon-6448Y", "Intel Sapphire Rapids", "SRP_QPI_BW", kSrp_GBps},
      {"Xeon-8570", "Intel Emerald Rapids", "ERP_QPI_BW", kErp_GBps},  // DGX B200
      {"Xeon-8580", "Intel Emerald Rapids", "ERP_QPI_BW", kErp_GBps},
      // NCCL gives every AMD x86 CPU one figure.
      {"EPYC", "AMD", "AMD_BW", kAmd_GBps},
      {"EPYC-7742", "AMD Rome", "AMD_BW", kAmd_GBps},  // DGX A100
      {"EPYC-7763", "AMD Milan", "AMD_BW", kAmd_GBps},
      {"EPYC-9654", "AMD Genoa", "AMD_BW", kAmd_GBps},
      {"Grace", "NVIDIA Grace (Arm)", "ARM_BW", kArm_GBps},
      {"POWER9", "IBM POWER9", "P9_BW", kP9_GBps},
  };
}

}  // namespace

const std::vector<CpuModel>& cpu_models() {
  static const std::vector<CpuModel> models = make_models();
  return models;
}

Result<const CpuModel*> cpu_model_named(const std::string& name) {
  if (const CpuModel* m = table_find(cpu_models(), name)) return m;
  const std::vector<std::string> names = table_names(cpu_models());
  return Error{"unknown CPU model '" + name + "'" + did_you_mean(name, names) + " (known: " + names_list(names) +
               "; for another CPU leave cpu_model out and give cpu_link_rate)"};
}

std::string cpu_model_source(const CpuModel& model) {
  return std::string(kNccl) + " " + model.nccl_class + " for " + model.family;
}

}  // namespace topoplan
