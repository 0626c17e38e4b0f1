// NCCL's tuning model as data: the constants NCCL's tuner uses to predict a collective's time
// (latency + bytes / bandwidth per algorithm and protocol), each group cited to the NCCL source it
// comes from, plus a re-statement of the formulas that combine them. One swappable table: the cost
// model takes a `const NcclTuning&`, so a newer NCCL (or a calibrated overlay) is a new table, not
// new code. See docs/nccl-model.md for the model in prose.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "topology/kinds.h"

namespace topoplan {

// ---- Collectives, as nccl-tests names them ---------------------------------------------------

enum class CollectiveOp : uint8_t { all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv };
inline constexpr int kCollectiveOps = 7;

std::string_view to_string(CollectiveOp op);
// Exact snake_case name; case-insensitive, '-' accepted for '_'. nullopt on anything else.
std::optional<CollectiveOp> collective_op_from(std::string_view s);
// As collective_op_from, with "unknown collective 'allreduce', did you mean 'all_reduce'?" on error.
Result<CollectiveOp> parse_collective_op(std::string_view s);
std::vector<std::string> collective_op_names();

// nccl-tests busbw = algbw * factor (doc/PERFORMANCE.md; sendrecv from src/sendrecv.cu):
// all_reduce 2(n-1)/n, all_gather / reduce_scatter / alltoall (n-1)/n, broadcast / reduce /
// sendrecv 1. Returns 0 for nranks < 1.
double nccl_busbw_factor(CollectiveOp op, int nranks);
// PERFORMANCE.md's separate line for all_reduce with in-network reduction: (n-1)/(n+1).
double nccl_busbw_factor_in_network(int nranks);

// ---- NCCL's algorithm / protocol / hardware indices ------------------------------------------

// Same order as NCCL_ALGO_* in src/include/device.h (v2.25.1): TREE 0 … PAT 6.
enum class NcclAlgo : uint8_t { tree, ring, collnet_direct, collnet_chain, nvls, nvls_tree, pat };
inline constexpr int kNcclAlgos = 7;
// Same order as NCCL_PROTO_*: LL 0, LL128 1, SIMPLE 2.
enum class NcclProto : uint8_t { ll, ll128, simple };
inline constexpr int kNcclProtos = 3;
// The link type a latency is charged at (NCCL_HW_NVLINK / NCCL_HW_PCI / NCCL_HW_NET in tuning.cc).
enum class NcclHw : uint8_t { nvlink, pci, net };
inline constexpr int kNcclHws = 3;
// NCCL's compCapIndex: SM70 / SM80 / SM90 / SM100 and later.
enum class GpuArch : uint8_t { volta, ampere, hopper, blackwell };
inline constexpr int kGpuArchs = 4;
// NCCL's index2 ("N1/N2/N4"): 1 node, 2 nodes, 3 or more nodes.
inline constexpr int kNodeScales = 3;
// The host CPU; NCCL reads it for the multi-node LL cap and the per-step network overhead.
enum class NcclCpu : uint8_t { intel_x86, amd_x86, arm, power, other };

std::string_view to_string(NcclAlgo a);   // "tree", "ring", "collnet_direct", … "pat"
std::string_view to_string(NcclProto p);  // "ll", "ll128", "simple"
std::string_view to_string(NcclHw h);     // "nvlink", "pci", "net"
std::string_view to_string(GpuArch a);    // "volta", "ampere", "hopper", "blackwell"
std::string_view nccl_name(NcclAlgo a);   // NCCL_ALGO spelling: "Tree", "Ring", … "NVLSTree", "PAT"
std::string_view nccl_name(NcclProto p);  // NCCL_PROTO spelling: "LL", "LL128", "Simple"
// Either spelling, case-insensitive, '_' optional ("NVLSTree", "nvls_tree").
std::optional<NcclAlgo> nccl_algo_from(std::string_view s);
std::optional<NcclProto> nccl_proto_from(std::string_view s);
std::vector<std::string> nccl_algo_names();
std::vector<std::string> nccl_proto_names();
std::vector<std::string> gpu_arch_names();  // "volta", "ampere", "hopper", "blackwell"

GpuArch gpu_arch_from_compute_capability(int sm);  // 90 -> hopper, 100 -> blackwell, < 80 -> volta
int nccl_node_scale(int n_nodes);                  // 1 -> 0, 2 -> 1, >= 3 -> 2

// NCCL_MAX_NVLS_ARITY (src/include/device.h, 2.25.1 and later): an NVLS graph has at most this
// many heads, and NVLS all_gather / reduce_scatter run on at most this many ranks.
inline constexpr int kNcclMaxNvlsArity = 32;

// ---- The table -------------------------------------------------------------------------------

template <typename T, int A, int B>
using Table2 = std::array<std::array<T, B>, A>;
template <typename T, int A, int B, int C>
using Table3 = std::array<Table2<T, B, C>, A>;

struct NcclTuning {
  std::string version;  // which NCCL the numbers were read from
  std::string source;   // repository and commit

  // Latencies in microseconds.
  Table2<double, kNcclAlgos, kNcclProtos> base_latency_us;          // baseLat[algo][proto]
  Table3<double, kNcclHws, kNcclAlgos, kNcclProtos> hw_latency_us;  // hwLat[hw][algo][proto]

  // Per-channel bandwidth caps in GB/s, [arch][node scale].
  // ll_max_bw: single node indexes by GPU arch; multi-node by CPU (row 0 Intel, row 1 AMD).
  Table2<double, kGpuArchs, kNodeScales> ll_max_bw_GBps;
  Table2<double, kGpuArchs, kNodeScales> per_channel_max_ring_ll128_bw_GBps;
  Table2<double, kGpuArchs, kNodeScales> per_channel_max_tree_ll128_bw_GBps;
  Table2<double, kGpuArchs, kNodeScales> per_channel_max_tree_bw_GBps;
  // What one NVLS tree channel (one head) carries at most, as busbw; NCCL's tuner has this row
  // only from 2.28, but it bounds the same kernel in every release. 0: no bound.
  Table2<double, kGpuArchs, kNodeScales> per_channel_max_nvls_tree_bw_GBps;

  // Bandwidth refinements applied to nChannels x graph bandwidth (dimensionless).
  double ring_ll_factor;     // LL moves 4 data bytes per 8-byte flag+data word
  double ring_ll128_factor;  // ~120/128 data per 128-byte line
  double tree_factor;        // tree all_reduce
  double tree_ll_factor;
  double tree_ll128_factor_one_node;
  double tree_ll128_factor_multi_node;
  double tree_simple_pattern_factor;  // tree search fell back from balanced tree to plain tree
  double pat_factor;
  double collnet_direct_sm90_factor;
  // busBw -> algBw (NCCL's "ratio"): ring uses nranks / nsteps; these for the others.
  double nvls_algbw_ratio;
  double tree_algbw_ratio;  // also CollNet

  // Wire format of the protocols (src/include/device.h): useful bytes per byte sent.
  double ll_data_fraction;     // ncclLLFifoLine: two 4-byte data + two 4-byte flags
  double ll128_data_fraction;  // 128-byte line, one 8-byte flag word
  int ll128_line_bytes;
  int ll_line_bytes;

  // Latency refinements.
  double ring_plateau_factor_pre_sm80;  // ring/Simple multi-node all_reduce past the plateau
  double ring_plateau_factor;
  double ring_plateau_min_bytes_per_channel_rank;
  double net_overhead_us_intel;  // per-step network post overhead, x86 Intel
  double net_overhead_us_amd;
  double net_overhead_us_other;
  double net_overhead_simple_multiplier;
  double pat_base_latency_us;
  double pat_log_inter_divisor;  // PAT: + log2(nNodes) * interLat / divisor
  double pat_per_rank_us;        // PAT: + nRanks * this
  double collnet_direct_arity_us;
  // Tree all_reduce bandwidth correction per protocol, by log2(bytes / 64): 64 B .. 256 MiB.
  std::array<std::array<double, 23>, kNcclProtos> tree_correction;

  // Channels and threads.
  int max_channels;             // MAXCHANNELS
  int ring_graph_max_channels;  // the ring search stops here; postset then duplicates (x2)
  int nvls_channels_sm90;       // NVLS thread blocks (CTAs), not the graph's channels (heads)
  int nvls_channels_sm100;
  int nvls_min_local_gpus;  // NVLS is off at or below 2 GPUs in the node
  int ring_chunk_steps;     // Simple ring: buffer slots a rank's chunk takes per step (ALLREDUCE_CHUNKSTEPS)
  int chain_slice_steps;    // Simple broadcast / reduce: buffer slots per slice, the unit a hop forwards
  int nvls_max_arity;       // heads of an NVLS graph; NVLS all_gather / reduce_scatter ranks
  int collnet_direct_max_local_ranks;
  int ncclsteps;                                    // NCCL_STEPS: slots per connection buffer
  std::array<int, kNcclProtos> thread_threshold;    // bytes per thread before adding channels
  std::array<int, kNcclProtos> max_threads;         // per channel (block)
  std::array<int, kNcclProtos> grain_bytes;         // ncclProtoGrainSize
  std::array<long long, kNcclProtos> buffer_bytes;  // per connection, DEFAULT_*BUFFSIZE
  // Point-to-point over the network: the step a connection sends (its window is NCCL_STEPS of
  // them) and the channels each remote peer gets.
  long long p2p_net_chunk_bytes;
  int p2p_net_channels_per_peer;
  // NVLS chunking (enqueue.cc calcCollChunking): the largest chunk, the NVLS tree's from 4 nodes
  // on, and for NVLS ops = channels x heads the size thresholds (in ops x chunk) under which the
  // chunk drops to 64, 32, 16 KiB; NVLS tree's drop to 256, 128, 64, 32 KiB.
  long long nvls_chunk_bytes;
  long long nvls_tree_chunk_bytes_4_nodes;

  // Topology search: per-channel bandwidths tried, best first (GB/s), [pre-SM90, SM90, SM100].
  std::array<std::vector<double>, 3> search_speeds_intra_GBps;
  std::array<std::vector<double>, 3> search_speeds_inter_GBps;

  // Per-link bandwidth NCCL assumes when building its topology (src/graph/topo.h), GB/s.
  double nvlink_bw_sm60, nvlink_bw_sm70, nvlink_bw_sm80, nvlink_bw_sm86, nvlink_bw_sm90, nvlink_bw_sm100;
  double pci_bw;  // PCIe Gen3 x16
  double net_bw;  // 100 Gbit
  double loc_bw;

  double nvlink_bw_GBps(int compute_capability) const;  // ncclTopoNVLinkBw
};

// The numbers of NCCL v2.25.1-1 (see nccl_tuning.cc for the citations).
const NcclTuning& nccl_tuning_default();

// ---- The formulas (NCCL's ncclTopoTuneModel / ncclTopoGetAlgoTime, restated) -----------------

// Steps of a ring: all_reduce 2(n-1), all_gather / reduce_scatter n-1, others n.
int nccl_ring_steps(CollectiveOp op, int nranks);
// The ring steps that cross a node boundary: all_reduce 2(nNodes-1), ag/rs nNodes-1, 0 on one node.
int nccl_ring_inter_steps(CollectiveOp op, int n_nodes);
// floor(log2(n)); -1 for n <= 0, so sizes under 64 B get no tree correction.
int nccl_log2i(long long n);

// What NCCL's search found for one algorithm's graph (struct ncclTopoGraph).
struct NcclGraph {
  int n_channels = 0;           // graph->nChannels (after the search's own duplication)
  double bw_intra_GBps = 0;     // graph->bwIntra, per channel
  double bw_inter_GBps = 0;     // graph->bwInter, per channel
  bool intra_nvlink = true;     // typeIntra is NVLink: NVLINK latencies, else PCI
  double latency_inter_us = 0;  // graph->latencyInter (the NIC's latency)
  bool same_channels = true;
  bool simple_tree_pattern = false;  // pattern TREE instead of BALANCED_TREE
};

// The communicator as NCCL's tuner sees it.
struct NcclComm {
  int n_ranks = 1;
  int n_nodes = 1;
  int compute_capability = 90;  // minimum over the ranks
  NcclCpu cpu = NcclCpu::intel_x86;
  int n_channels = 0;  // comm->nChannels (after postset duplication); used for the ring plateau
  // Per algorithm. The nvls_tree and pat entries are not read: NCCL runs NVLS tree on the NVLS
  // graph and PAT on the tree graph (init.cc's graphs[] array).
  std::array<NcclGraph, kNcclAlgos> graphs{};
  bool nvls_support = false;     // multicast-capable NVSwitch, > 2 GPUs in the node
  bool collnet_support = false;  // a CollNet (SHARP) plugin is loaded
  bool has_nvswitch = false;
  bool ll128_enabled = true;  // see nccl_ll128_default_enabled
};

// NCCL's default LL128 rule: same arch everywhere, intra path up to NVB, inter path up to PXB
// (up to PXN on SM90+), and an arch it validated (70, 80, 90, 100, 120).
bool nccl_ll128_default_enabled(int compute_capability, PathClass intra, PathClass inter);

struct NcclEstimate {
  bool available = false;
  double latency_us = 0;      // comm->latencies[coll][algo][proto]
  double bandwidth_GBps = 0;  // comm->bandwidths: algorithm bandwidth (bytes / time)
};

// Latency and algorithm bandwidth NCCL computes at init for one (collective, algo, proto);
// unavailable where NCCL skips or disables the combination. alltoall and sendrecv are point-to-
// point in NCCL and never go through this table: always unavailable.
NcclEstimate nccl_estimate(const NcclTuning& t, const NcclComm& c, CollectiveOp op, NcclAlgo a, NcclProto p);
// ncclTopoGetAlgoTime: latency (with the ring plateau) + bytes / bandwidth (with the tree
// correction), in microseconds; -1 when unavailable. `bytes` is the nccl-tests "size" (the full
// buffer for all_gather / reduce_scatter).
double nccl_time_us(const NcclTuning& t, const NcclComm& c, CollectiveOp op, NcclAlgo a, NcclProto p, double bytes);
// getNetOverhead: the host's cost to post one network operation (Intel 1 us, AMD 2 us, else 1).
double nccl_net_overhead_us(const NcclTuning& t, NcclCpu cpu);
// The size-dependent factor NCCL multiplies tree all_reduce bandwidth by (1 elsewhere).
double nccl_tree_correction(const NcclTuning& t, CollectiveOp op, NcclAlgo a, NcclProto p, double bytes);
// The latency part alone: nccl_estimate's latency with the ring plateau applied; -1 when unavailable.
double nccl_latency_us(const NcclTuning& t, const NcclComm& c, CollectiveOp op, NcclAlgo a, NcclProto p, double bytes);

struct NcclChoice {
  bool ok = false;
  NcclAlgo algo = NcclAlgo::ring;
  NcclProto proto = NcclProto::simple;
  double time_us = -1;
};
// The channels a call of `bytes` runs on: NVLS and NVLS tree always on all their thread blocks;
// rings and trees drop channels while each thread would get fewer than its threshold of bytes.
int nccl_channels(const NcclTuning& t, const NcclComm& c, NcclAlgo a, NcclProto p, double bytes);

// The chunk one NVLS (or NVLS tree) channel and head moves at a time for a call of `bytes`, and
// the number of those (channels x heads) working at once.
long long nccl_nvls_chunk_bytes(const NcclTuning& t, const NcclComm& c, NcclAlgo a, double bytes);
int nccl_nvls_ops(const NcclTuning& t, const NcclComm& c);

// The tuner's pick: the available (algo, proto) of least time, first in index order on ties;
// among one algorithm or protocol when given (NCCL_ALGO / NCCL_PROTO).
NcclChoice nccl_choose(const NcclTuning& t, const NcclComm& c, CollectiveOp op, double bytes,
                       std::optional<NcclAlgo> algo = std::nullopt, std::optional<NcclProto> proto = std::nullopt);

}  // namespace topoplan
