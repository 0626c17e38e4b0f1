#include "cost/nccl_tuning.h"

#include <algorithm>
#include <cctype>

#include "base/enum_names.h"
#include "base/suggest.h"

// Every number below was read from NVIDIA/nccl at tag v2.25.1-1, commit
// 80f6bda4378b99d99e82b4d76a633791cc45fef0 (makefiles/version.mk: 2.25.1), unless it says
// otherwise. Files are named relative to the NCCL repository root. The formulas are restated in
// our own structure; see docs/nccl-model.md.

namespace topoplan {
namespace {

constexpr std::array<std::string_view, kCollectiveOps> kOpNames = {
    "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "sendrecv"};
constexpr std::array<std::string_view, kNcclAlgos> kAlgoNames = {
    "tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"};
// ncclAlgoStr / ncclProtoStr spellings (what NCCL_ALGO / NCCL_PROTO accept).
constexpr std::array<std::string_view, kNcclAlgos> kAlgoNcclNames = {
    "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"};
constexpr std::array<std::string_view, kNcclProtos> kProtoNames = {"ll", "ll128", "simple"};
constexpr std::array<std::string_view, kNcclProtos> kProtoNcclNames = {"LL", "LL128", "Simple"};
constexpr std::array<std::string_view, kNcclHws> kHwNames = {"nvlink", "pci", "net"};
constexpr std::array<std::string_view, kGpuArchs> kArchNames = {"volta", "ampere", "hopper", "blackwell"};

// Lower case, and drop '_' and '-' when `squash` (so "NVLSTree" == "nvls_tree").
std::string fold(std::string_view s, bool squash) {
  std::string out;
  for (char ch : s) {
    if (ch == '-') ch = '_';
    if (squash && ch == '_') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return out;
}

template <typename Enum, size_t N>
std::optional<Enum> lookup_folded(const std::array<std::string_view, N>& names, std::string_view s, bool squash) {
  std::string f = fold(s, squash);
  for (size_t i = 0; i < N; ++i)
    if (fold(names[i], squash) == f) return static_cast<Enum>(i);
  return std::nullopt;
}

size_t idx(NcclAlgo a) { return static_cast<size_t>(a); }
size_t idx(NcclProto p) { return static_cast<size_t>(p); }
size_t idx(NcclHw h) { return static_cast<size_t>(h); }

NcclTuning make_v2_25_1() {
  NcclTuning t{};
  t.version = "NCCL 2.25.1";
  t.source = "NVIDIA/nccl v2.25.1-1 (80f6bda4378b99d99e82b4d76a633791cc45fef0)";

  using A = NcclAlgo;
  using H = NcclHw;
  auto set3 = [](std::array<double, kNcclProtos>& row, double ll, double ll128, double simple) {
    row = {ll, ll128, simple};
  };

  // src/graph/tuning.cc baseLat[][]: Tree {6.8, 14.0, 8.4}, Ring {6.6, 14.0, 8.4}; CollNet,
  // NVLS, NVLS tree 0. PAT has no row (NCCL_NUM_ALGORITHMS grew to 7 but the initializer lists
  // 6), so it is 0; PAT's latency is a formula of its own (pat_* below).
  for (auto& row : t.base_latency_us) row = {0, 0, 0};
  set3(t.base_latency_us[idx(A::tree)], 6.8, 14.0, 8.4);
  set3(t.base_latency_us[idx(A::ring)], 6.6, 14.0, 8.4);

  // src/graph/tuning.cc hwLat[NVLINK|PCI|NET][algo][LL, LL128, Simple]; CollNet and NVLS only
  // have Simple entries; PAT rows absent (0).
  for (auto& hw : t.hw_latency_us)
    for (auto& row : hw) row = {0, 0, 0};
  auto& nvl = t.hw_latency_us[idx(H::nvlink)];
  set3(nvl[idx(A::tree)], 0.6, 1.25, 4.0);
  set3(nvl[idx(A::ring)], 0.6, 1.9, 3.4);
  set3(nvl[idx(A::collnet_direct)], 0, 0, 3.7);
  set3(nvl[idx(A::collnet_chain)], 0, 0, 2.8);
  set3(nvl[idx(A::nvls)], 0, 0, 25);
  set3(nvl[idx(A::nvls_tree)], 0, 0, 25);
  auto& pci = t.hw_latency_us[idx(H::pci)];
  set3(pci[idx(A::tree)], 1.0, 1.9, 4.0);
  set3(pci[idx(A::ring)], 1.0, 2.5, 5.7);
  set3(pci[idx(A::collnet_direct)], 0, 0, 3.7);
  set3(pci[idx(A::collnet_chain)], 0, 0, 2.8);
  auto& net = t.hw_latency_us[idx(H::net)];
  set3(net[idx(A::tree)], 5.0, 8.5, 14);
  set3(net[idx(A::ring)], 2.7, 4.0, 14.0);
  set3(net[idx(A::collnet_direct)], 0, 0, 31);
  set3(net[idx(A::collnet_chain)], 0, 0, 30);
  set3(net[idx(A::nvls)], 0, 0, 18);
  set3(net[idx(A::nvls_tree)], 0, 0, 14);

  // src/graph/tuning.cc llMaxBws / perChMaxRingLL128Bws / perChMaxTreeLL128Bws /
  // perChMaxTreeBws, rows Volta, Ampere, Hopper, Blackwell; columns 1, 2, >= 3 nodes (N1/N2/N4).
  // Blackwell rows are written as 2x the Hopper ones in 2.25.1. For ll_max_bw on multiple nodes
  // NCCL picks the row by CPU: 0 Intel, 1 AMD (the comment in the source: "Intel-N2/AMD-N2").
  t.ll_max_bw_GBps = {{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}}};
  t.per_channel_max_ring_ll128_bw_GBps = {
      {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {73.4, 73.4, 73.4}}};
  t.per_channel_max_tree_ll128_bw_GBps = {
      {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {73.4, 73.4, 58.0}}};
  t.per_channel_max_tree_bw_GBps = {{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {77.4, 82.8, 72.0}}};
  // NVIDIA/nccl v2.28.9-1 (dbc86fd06e8b0c4517b95d8958a09ccacf9520c9) src/graph/tuning.cc
  // perChMaxNVLSTreeBws, L193-198: Hopper {0, 57.7, 45.5}, Blackwell {0, 96.0, 43.8}; NVLS tree
  // never runs on one node, and Volta / Ampere have no NVLS. 2.25.1 has no such row.
  t.per_channel_max_nvls_tree_bw_GBps = {{{0, 0, 0}, {0, 0, 0}, {0, 57.7, 45.5}, {0, 96.0, 43.8}}};

  // src/graph/tuning.cc ncclTopoTuneModel "model refinements": ring LL x0.5 (capped by
  // llMaxBw), ring LL128 x0.92 (the source notes 120/128), tree all_reduce x0.92, tree LL /3.8,
  // tree LL128 x7/9 on one node else x120/128, plain-tree pattern x0.85, PAT x0.75,
  // CollNet Direct on SM90+ x0.85.
  t.ring_ll_factor = 0.5;
  t.ring_ll128_factor = 0.92;
  t.tree_factor = 0.92;
  t.tree_ll_factor = 1.0 / 3.8;
  t.tree_ll128_factor_one_node = 7.0 / 9.0;
  t.tree_ll128_factor_multi_node = 120.0 / 128.0;
  t.tree_simple_pattern_factor = 0.85;
  t.pat_factor = 0.75;
  t.collnet_direct_sm90_factor = 0.85;
  // Same function, "Convert bus BW to algorithm BW": ring nRanks/nsteps, NVLS and NVLS tree 5/6,
  // everything else 1/2; not applied to non-ring all_gather / reduce_scatter.
  t.nvls_algbw_ratio = 5.0 / 6.0;
  t.tree_algbw_ratio = 0.5;

  // src/include/device.h: union ncclLLFifoLine is {data1, flag1, data2, flag2} of 4 bytes each
  // (half the bytes are data); NCCL_LL128_LINESIZE 128 with NCCL_LL128_DATAELEMS = 15 of 16
  // 8-byte elements carrying data.
  t.ll_data_fraction = 0.5;
  t.ll128_data_fraction = 120.0 / 128.0;
  t.ll128_line_bytes = 128;
  t.ll_line_bytes = 16;

  // src/graph/tuning.cc ncclTopoGetAlgoTime: ring/Simple multi-node all_reduce latency x1.9
  // before SM80, x1.4 from SM80, once bytes / (nChannels * nRanks) >= 64.
  t.ring_plateau_factor_pre_sm80 = 1.9;
  t.ring_plateau_factor = 1.4;
  t.ring_plateau_min_bytes_per_channel_rank = 64;
  // src/graph/tuning.cc getNetOverhead: 1 us Intel x86, 2 us AMD x86, 1 us otherwise; x3 for
  // Simple; a floor on the per-step intra latency of multi-node rings.
  t.net_overhead_us_intel = 1.0;
  t.net_overhead_us_amd = 2.0;
  t.net_overhead_us_other = 1.0;
  t.net_overhead_simple_multiplier = 3.0;
  // src/graph/tuning.cc PAT latency: 8 us + log2(nNodes) * interLat / 3.5 + nRanks * 2.8 us.
  t.pat_base_latency_us = 8.0;
  t.pat_log_inter_divisor = 3.5;
  t.pat_per_rank_us = 2.8;
  // src/graph/tuning.cc CollNet Direct: 0.4 us "arity serialization" per extra local rank.
  t.collnet_direct_arity_us = 0.4;
  // src/graph/tuning.cc treeCorrectionFactor[proto][23]: 64 B .. 256 MiB in powers of two.
  t.tree_correction = {{
      {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
      {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
      {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
  }};

  // src/include/device.h MAXCHANNELS 64; src/init.cc ringGraph->maxChannels = MAXCHANNELS/2
  // (src/graph/connect.cc ncclTopoPostset then doubles comm->nChannels, capped at MAXCHANNELS).
  t.max_channels = 64;
  t.ring_graph_max_channels = 32;
  // src/transport/nvls.cc NVLS_NCHANNELS_SM90 16, NVLS_NCHANNELS_SM100 32; ncclNvlsInit turns
  // NVLS off when the node has <= 2 GPUs. src/include/device.h NCCL_MAX_NVLS_ARITY 32 (enqueue.cc
  // limits NVLS all_gather/reduce_scatter to that many ranks), NCCL_MAX_DIRECT_ARITY+1 = 8
  // local ranks for CollNet Direct, NCCL_STEPS 8.
  t.nvls_channels_sm90 = 16;
  t.nvls_channels_sm100 = 32;
  t.nvls_min_local_gpus = 3;
  // src/include/collectives.h ALLREDUCE_CHUNKSTEPS NCCL_STEPS/2 (the same for all_gather and
  // reduce_scatter): a ring step's chunk fills 4 buffer slots; BROADCAST_SLICESTEPS /
  // REDUCE_SLICESTEPS 1: a chain forwards one buffer step (512 KiB for Simple) at a time.
  t.ring_chunk_steps = 4;
  t.chain_slice_steps = 1;
  t.nvls_max_arity = kNcclMaxNvlsArity;
  t.collnet_direct_max_local_ranks = 8;
  t.ncclsteps = 8;
  // src/include/comm.h NCCL_{LL,LL128,SIMPLE}_THREAD_THRESHOLD 8 / 8 / 64 (tuning.cc multiplies
  // the ring LL one by nRanks); src/include/device.h NCCL_LL_MAX_NTHREADS 512,
  // NCCL_LL128_MAX_NTHREADS 640, NCCL_SIMPLE_MAX_NTHREADS 512; ncclProtoGrainSize LL 16,
  // LL128 32*8/16*15*8 = 1920, Simple 512.
  t.thread_threshold = {8, 8, 64};
  t.max_threads = {512, 640, 512};
  t.grain_bytes = {16, 1920, 512};
  // src/init.cc DEFAULT_LL_BUFFSIZE 8 lines * 512 threads * 8 steps * 16 B, DEFAULT_LL128_BUFFSIZE
  // 120 * 640 * 8 * 8 B, DEFAULT_BUFFSIZE 4 MiB (Simple).
  t.buffer_bytes = {8LL * 512 * 8 * 16, 120LL * 640 * 8 * 8, 1LL << 22};
  // src/init.cc NCCL_P2P_NET_CHUNKSIZE 128 KiB; src/graph/paths.cc ncclTopoGetNchannels: 2
  // channels per remote peer (more only to drive several NICs, fewer on very large comms).
  t.p2p_net_chunk_bytes = 128 * 1024;
  t.p2p_net_channels_per_peer = 2;
  // src/transport/nvls.cc NCCL_NVLS_CHUNKSIZE 128 KiB (L149); src/enqueue.cc
  // NCCL_NVLSTREE_MAX_CHUNKSIZE: 64 KiB from 4 nodes (L1751, L1833).
  t.nvls_chunk_bytes = 128 * 1024;
  t.nvls_tree_chunk_bytes_4_nodes = 64 * 1024;

  // src/graph/search.cc speedArrayIntra/Inter, sm90SpeedArrayIntra/Inter, sm100SpeedArrayIntra/
  // Inter: the per-channel bandwidths the search tries, highest first.
  t.search_speeds_intra_GBps = {
      std::vector<double>{40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0},
      std::vector<double>{60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0},
      std::vector<double>{90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0}};
  t.search_speeds_inter_GBps = {std::vector<double>{48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0,
                                                    5.0, 4.0, 3.0, 2.4, 1.2, 0.24, 0.12},
                                std::vector<double>{48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0,
                                                    6.0, 3.0, 2.4, 1.2, 0.24, 0.12},
                                std::vector<double>{48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0,
                                                    6.0, 3.0, 2.4, 1.2, 0.24, 0.12}};

  // src/graph/topo.h: per NVLink (one link, one direction) SM60 18, SM70 20, SM80 20, SM86 12,
  // SM90 20.6, SM100 40; PCI_BW 12 (Gen3 x16), NET_BW 12 (100 Gbit), LOC_BW 5000. The socket
  // figures (QPI_BW ... ARM_BW) set the graph's CPU links: topology/cpu_models.cc.
  t.nvlink_bw_sm60 = 18.0;
  t.nvlink_bw_sm70 = 20.0;
  t.nvlink_bw_sm80 = 20.0;
  t.nvlink_bw_sm86 = 12.0;
  t.nvlink_bw_sm90 = 20.6;
  t.nvlink_bw_sm100 = 40.0;
  t.pci_bw = 12.0;
  t.net_bw = 12.0;
  t.loc_bw = 5000.0;
  return t;
}

bool is_ag_rs(CollectiveOp op) { return op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter; }

// NCCL runs NVLS tree on the NVLS graph and PAT on the tree graph (src/init.cc graphs[]).
const NcclGraph& graph_for(const NcclComm& c, NcclAlgo a) {
  if (a == NcclAlgo::nvls_tree) return c.graphs[idx(NcclAlgo::nvls)];
  if (a == NcclAlgo::pat) return c.graphs[idx(NcclAlgo::tree)];
  return c.graphs[idx(a)];
}

// Which (collective, algo, proto) NCCL computes at all, and which it disables (tuning.cc
// ncclTopoTuneModel skips and algoEnable; enqueue.cc updateCollCostTable).
bool combination_allowed(const NcclComm& c, CollectiveOp op, NcclAlgo a, NcclProto p) {
  using A = NcclAlgo;
  if (op == CollectiveOp::alltoall || op == CollectiveOp::sendrecv) return false;
  if (c.n_ranks <= 1 || c.n_nodes < 1) return false;
  if ((op == CollectiveOp::broadcast || op == CollectiveOp::reduce) && a != A::ring) return false;
  if (is_ag_rs(op) && a != A::ring && a != A::pat && a != A::nvls && a != A::collnet_direct) return false;
  if (op == CollectiveOp::all_reduce && a == A::pat) return false;
  if ((a == A::nvls || a == A::nvls_tree || a == A::pat || a == A::collnet_direct || a == A::collnet_chain) &&
      p != NcclProto::simple)
    return false;
  // PAT only with one GPU per node (ncclPatEnable).
  if (a == A::pat && c.n_nodes != c.n_ranks) return false;
  if (a == A::nvls_tree && c.n_nodes == 1) return false;
  if ((a == A::collnet_direct || a == A::collnet_chain) && !c.collnet_support) return false;
  if (a == A::nvls && c.n_nodes > 1 && !c.collnet_support) return false;
  if (a == A::collnet_direct && !c.has_nvswitch) return false;
  int local_ranks = (c.n_ranks + c.n_nodes - 1) / c.n_nodes;
  if (a == A::collnet_direct && local_ranks > 8) return false;
  // CollNet all_gather / reduce_scatter also need plugin entry points and one NIC head per local
  // GPU, which this model does not know: leave them out.
  if (a == A::collnet_direct && is_ag_rs(op)) return false;
  if ((a == A::nvls || a == A::nvls_tree) && !c.nvls_support) return false;
  if (a == A::nvls && is_ag_rs(op) && (c.n_nodes > 1 || c.n_ranks > 32)) return false;
  if (p == NcclProto::ll128 && !c.ll128_enabled) return false;
  return true;
}

}  // namespace

double nccl_net_overhead_us(const NcclTuning& t, NcclCpu cpu) {
  if (cpu == NcclCpu::intel_x86) return t.net_overhead_us_intel;
  if (cpu == NcclCpu::amd_x86) return t.net_overhead_us_amd;
  return t.net_overhead_us_other;
}

// ---- names -----------------------------------------------------------------------------------

std::string_view to_string(CollectiveOp op) { return kOpNames[static_cast<size_t>(op)]; }
std::optional<CollectiveOp> collective_op_from(std::string_view s) {
  return lookup_folded<CollectiveOp>(kOpNames, s, /*squash=*/false);
}
Result<CollectiveOp> parse_collective_op(std::string_view s) {
  if (auto op = collective_op_from(s)) return *op;
  return Error{"unknown collective '" + std::string(s) + "'" + did_you_mean(fold(s, false), collective_op_names())};
}
std::vector<std::string> collective_op_names() { return enum_names(kOpNames); }

std::string_view to_string(NcclAlgo a) { return kAlgoNames[idx(a)]; }
std::string_view to_string(NcclProto p) { return kProtoNames[idx(p)]; }
std::string_view to_string(NcclHw h) { return kHwNames[idx(h)]; }
std::string_view to_string(GpuArch a) { return kArchNames[static_cast<size_t>(a)]; }
std::string_view nccl_name(NcclAlgo a) { return kAlgoNcclNames[idx(a)]; }
std::string_view nccl_name(NcclProto p) { return kProtoNcclNames[idx(p)]; }
std::optional<NcclAlgo> nccl_algo_from(std::string_view s) {
  return lookup_folded<NcclAlgo>(kAlgoNames, s, /*squash=*/true);
}
std::optional<NcclProto> nccl_proto_from(std::string_view s) {
  return lookup_folded<NcclProto>(kProtoNames, s, /*squash=*/true);
}
std::vector<std::string> nccl_algo_names() { return enum_names(kAlgoNames); }
std::vector<std::string> nccl_proto_names() { return enum_names(kProtoNames); }
std::vector<std::string> gpu_arch_names() { return enum_names(kArchNames); }

GpuArch gpu_arch_from_compute_capability(int sm) {
  return sm >= 100 ? GpuArch::blackwell : sm >= 90 ? GpuArch::hopper : sm >= 80 ? GpuArch::ampere : GpuArch::volta;
}
int nccl_node_scale(int n_nodes) { return n_nodes <= 2 ? std::max(n_nodes, 1) - 1 : 2; }

// ---- busbw -----------------------------------------------------------------------------------

double nccl_busbw_factor(CollectiveOp op, int nranks) {
  if (nranks < 1) return 0.0;
  double n = nranks;
  switch (op) {
    case CollectiveOp::all_reduce:
      return 2.0 * (n - 1) / n;
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::alltoall:
      return (n - 1) / n;
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce:
    case CollectiveOp::sendrecv:
      return 1.0;
  }
  return 0.0;
}

double nccl_busbw_factor_in_network(int nranks) {
  if (nranks < 1) return 0.0;
  return (nranks - 1.0) / (nranks + 1.0);
}

// ---- table -----------------------------------------------------------------------------------

double NcclTuning::nvlink_bw_GBps(int cc) const {
  return cc >= 100  ? nvlink_bw_sm100
         : cc >= 90 ? nvlink_bw_sm90
         : cc == 86 ? nvlink_bw_sm86
         : cc >= 80 ? nvlink_bw_sm80
         : cc >= 70 ? nvlink_bw_sm70
         : cc >= 60 ? nvlink_bw_sm60
                    : nvlink_bw_sm80;
}

const NcclTuning& nccl_tuning_default() {
  static const NcclTuning t = make_v2_25_1();
  return t;
}

// ---- formulas --------------------------------------------------------------------------------

int nccl_ring_steps(CollectiveOp op, int nranks) {
  if (op == CollectiveOp::all_reduce) return 2 * (nranks - 1);
  if (is_ag_rs(op)) return nranks - 1;
  return nranks;
}

int nccl_ring_inter_steps(CollectiveOp op, int n_nodes) {
  if (n_nodes <= 1) return 0;
  return op == CollectiveOp::all_reduce ? 2 * (n_nodes - 1) : n_nodes - 1;
}

int nccl_log2i(long long n) {
  if (n <= 0) return -1;
  int l = 0;
  while (n >>= 1) ++l;
  return l;
}

bool nccl_ll128_default_enabled(int cc, PathClass intra, PathClass inter) {
  // src/graph/tuning.cc (2.25.1): inter up to PXB, or up to PXN from SM90; intra up to NVB; and
  // one of the compute capabilities NCCL validated LL128 on.
  bool inter_ok = inter <= PathClass::PXB || (cc >= 90 && inter <= PathClass::PXN);
  bool arch_ok = cc == 70 || cc == 80 || cc == 90 || cc == 100 || cc == 120;
  return inter_ok && intra <= PathClass::NVB && arch_ok;
}

NcclEstimate nccl_estimate(const NcclTuning& t, const NcclComm& c, CollectiveOp op, NcclAlgo a, NcclProto p) {
  using A = NcclAlgo;
  NcclEstimate e;
  if (!combination_allowed(c, op, a, p)) return e;
  const NcclGraph& g = graph_for(c, a);
  const int n_ranks = c.n_ranks, n_nodes = c.n_nodes;
  const double ppn = static_cast<double>(n_ranks) / n_nodes;
  const int local = n_ranks / n_nodes;  // NCCL's integer nRanks/nNodes
  const int arch = static_cast<int>(gpu_arch_from_compute_capability(c.compute_capability));
  const int scale = nccl_node_scale(n_nodes);
  // LL cap: by GPU on one node, by CPU (Intel row 0, AMD row 1) across nodes.
  const int ll_row = n_nodes == 1 ? arch : (c.cpu == NcclCpu::amd_x86 ? 1 : 0);
  const double ll_max_bw = t.ll_max_bw_GBps[ll_row][scale];
  const double nch = g.n_channels;
  const bool collnet = a == A::collnet_direct || a == A::collnet_chain;
  const int nsteps = nccl_ring_steps(op, n_ranks);

  // Bandwidth: per-channel graph bandwidth x channels, then the refinements.
  double bw = (n_nodes <= 2 || collnet) ? g.bw_intra_GBps : g.bw_inter_GBps;
  if (a == A::nvls) bw = std::min(g.bw_intra_GBps, g.bw_inter_GBps);
  if (a == A::nvls_tree) bw = std::min(g.bw_intra_GBps, n_nodes <= 2 ? g.bw_inter_GBps : g.bw_inter_GBps / 2);
  double bus = nch * bw;
  if (a == A::ring && p == NcclProto::ll) bus = std::min(ll_max_bw, bus * t.ring_ll_factor);
  if (a == A::ring && p == NcclProto::ll128)
    bus = std::min(bus * t.ring_ll128_factor, nch * t.per_channel_max_ring_ll128_bw_GBps[arch][scale]);
  if (a == A::tree && op == CollectiveOp::all_reduce)
    bus = std::min(bus * t.tree_factor, nch * t.per_channel_max_tree_bw_GBps[arch][scale]);
  if (a == A::tree && p == NcclProto::ll) bus = std::min(bus * t.tree_ll_factor, ll_max_bw);
  if (a == A::tree && p == NcclProto::ll128)
    bus = std::min(bus * (n_nodes == 1 ? t.tree_ll128_factor_one_node : t.tree_ll128_factor_multi_node),
                   nch * t.per_channel_max_tree_ll128_bw_GBps[arch][scale]);
  if (a == A::tree && g.simple_tree_pattern) bus *= t.tree_simple_pattern_factor;
  if (a == A::pat) bus *= t.pat_factor;
  if (a == A::collnet_direct && nch > 0) {
    // All GPUs need a local NIC for full speed: discount by the GPU:NIC ratio, half-way.
    double factor = ppn / nch;
    factor -= (factor - 1) / 2;
    if (factor > 0) bus /= factor;
    if (c.compute_capability >= 90) bus *= t.collnet_direct_sm90_factor;
  }
  if (!(a != A::ring && is_ag_rs(op))) {
    double ratio = a == A::ring                          ? static_cast<double>(n_ranks) / nsteps
                   : (a == A::nvls || a == A::nvls_tree) ? t.nvls_algbw_ratio
                                                         : t.tree_algbw_ratio;
    bus *= ratio;
  }
  if (!(bus > 0)) return e;

  // Latency: base + per-step hardware latency, by algorithm.
  const size_t pi = idx(p);
  auto hw_lat = [&](NcclHw h, NcclAlgo alg) {
    // NCCL lets Power systems' PCI tree/Simple latency equal the ring one, to favour trees.
    if (c.cpu == NcclCpu::power && h == NcclHw::pci && alg == A::tree && p == NcclProto::simple)
      return t.hw_latency_us[idx(h)][idx(A::ring)][pi];
    return t.hw_latency_us[idx(h)][idx(alg)][pi];
  };
  const NcclHw intra_hw = g.intra_nvlink ? NcclHw::nvlink : NcclHw::pci;
  const NcclHw hw = n_nodes == 1 ? intra_hw : NcclHw::net;
  double lat = t.base_latency_us[idx(a)][pi];
  double intra_lat = hw_lat(intra_hw, a);
  // With one rank per node the network latency is fully exposed: NCCL charges the tree's.
  double inter_lat = (ppn == 1 ? hw_lat(NcclHw::net, A::tree) : hw_lat(NcclHw::net, a)) + g.latency_inter_us;
  if (p == NcclProto::simple) inter_lat += g.latency_inter_us;  // the flush
  switch (a) {
    case A::ring:
      if (op == CollectiveOp::broadcast || op == CollectiveOp::reduce) {
        double l = hw_lat(hw, A::ring);
        if (g.same_channels) {
          lat += l;
        } else {
          if (p == NcclProto::simple) l = hw_lat(hw, A::tree);
          lat += nsteps * l;
        }
      } else {
        double overhead = 0;
        if (n_nodes > 1) {
          overhead = nccl_net_overhead_us(t, c.cpu);
          if (p == NcclProto::simple) overhead *= t.net_overhead_simple_multiplier;
        }
        intra_lat = std::max(intra_lat, overhead);
        int inter_steps = nccl_ring_inter_steps(op, n_nodes);
        lat += (nsteps - inter_steps) * intra_lat + inter_steps * inter_lat;
      }
      break;
    case A::tree:
      if (op == CollectiveOp::all_reduce) lat += 2 * ((local - 1) * intra_lat + nccl_log2i(n_nodes) * inter_lat);
      break;
    case A::collnet_direct:
      lat += 2 * (std::min(1, local - 1) * intra_lat + (local - 1) * t.collnet_direct_arity_us) + inter_lat;
      break;
    case A::collnet_chain:
      lat += 2 * (local - 1) * intra_lat + inter_lat;
      break;
    case A::nvls:
      lat = intra_lat;
      if (n_nodes > 1) lat += inter_lat;
      break;
    case A::nvls_tree:
      lat += intra_lat + 2 * nccl_log2i(n_nodes) * inter_lat;
      break;
    case A::pat:
      lat = t.pat_base_latency_us + nccl_log2i(n_nodes) * (inter_lat / t.pat_log_inter_divisor) +
            n_ranks * t.pat_per_rank_us;
      break;
  }
  e.available = true;
  e.latency_us = lat;
  e.bandwidth_GBps = bus;
  return e;
}

double nccl_tree_correction(const NcclTuning& t, CollectiveOp op, NcclAlgo a, NcclProto p, double bytes) {
  int log_size = nccl_log2i(static_cast<long long>(bytes) >> 6);
  if (a == NcclAlgo::tree && op == CollectiveOp::all_reduce && log_size >= 0 &&
      log_size < static_cast<int>(t.tree_correction[0].size()))
    return t.tree_correction[idx(p)][static_cast<size_t>(log_size)];
  return 1.0;
}

double nccl_latency_us(const NcclTuning& t, const NcclComm& c, CollectiveOp op, NcclAlgo a, NcclProto p, double bytes) {
  NcclEstimate e = nccl_estimate(t, c, op, a, p);
  if (!e.available) return -1.0;
  double lat = e.latency_us;
  if (a == NcclAlgo::ring && p == NcclProto::simple && c.n_nodes > 1 && op == CollectiveOp::all_reduce) {
    double per = bytes / (static_cast<double>(std::max(c.n_channels, 1)) * c.n_ranks);
    if (per >= t.ring_plateau_min_bytes_per_channel_rank)
      lat *= c.compute_capability < 80 ? t.ring_plateau_factor_pre_sm80 : t.ring_plateau_factor;
  }
  return lat;
}

double nccl_time_us(const NcclTuning& t, const NcclComm& c, CollectiveOp op, NcclAlgo a, NcclProto p, double bytes) {
  NcclEstimate e = nccl_estimate(t, c, op, a, p);
  if (!e.available) return -1.0;
  double bw = e.bandwidth_GBps * nccl_tree_correction(t, op, a, p, bytes);
  // GB/s is 1e3 bytes per microsecond.
  return nccl_latency_us(t, c, op, a, p, bytes) + bytes / (1000.0 * bw);
}

int nccl_channels(const NcclTuning& t, const NcclComm& c, NcclAlgo a, NcclProto p, double bytes) {
  // NVLS runs on its own thread blocks, all of them whatever the size (enqueue.cc L1686-1688).
  if (a == NcclAlgo::nvls || a == NcclAlgo::nvls_tree)
    return c.compute_capability >= 100 ? t.nvls_channels_sm100 : t.nvls_channels_sm90;
  // src/graph/tuning.cc (2.25.1 L196-209, L488-494): ring Simple has 256 threads when the ring
  // graph's total bandwidth is at most PCI_BW, else the protocol's maximum; the ring LL threshold
  // is multiplied by nRanks. src/enqueue.cc topoGetAlgoInfo (L1672-1690) then drops channels.
  const NcclGraph& ring = c.graphs[idx(NcclAlgo::ring)];
  double threads = t.max_threads[idx(p)];
  if (a == NcclAlgo::ring && p == NcclProto::simple && ring.bw_intra_GBps * ring.n_channels <= t.pci_bw) threads = 256;
  const double threshold = t.thread_threshold[idx(p)] * (a == NcclAlgo::ring && p == NcclProto::ll ? c.n_ranks : 1);
  int nc = std::max(c.n_channels, 1);
  while (bytes < nc * threads * threshold && nc >= 2) --nc;
  return nc;
}

int nccl_nvls_ops(const NcclTuning& t, const NcclComm& c) {
  return nccl_channels(t, c, NcclAlgo::nvls, NcclProto::simple, 0) *
         std::max(c.graphs[idx(NcclAlgo::nvls)].n_channels, 1);
}

long long nccl_nvls_chunk_bytes(const NcclTuning& t, const NcclComm& c, NcclAlgo a, double bytes) {
  // src/enqueue.cc calcCollChunking (2.25.1 L1815-1838); a Simple step is 512 KiB, above both caps.
  const double ops = nccl_nvls_ops(t, c);
  long long chunk = t.nvls_chunk_bytes;
  auto drop = [&](double times, long long above, long long to) {
    if (bytes < times * ops * static_cast<double>(chunk) && chunk > above) chunk = to;
  };
  if (a == NcclAlgo::nvls) {
    drop(64, 65536, 65536);
    drop(8, 32768, 32768);
    drop(2, 16384, 16384);
  } else {
    if (c.n_nodes >= 4) chunk = std::min(chunk, t.nvls_tree_chunk_bytes_4_nodes);
    drop(32, 262144, 262144);
    drop(16, 131072, 131072);
    drop(4, 65536, 65536);
    drop(1, 32768, 32768);
  }
  return chunk;
}

NcclChoice nccl_choose(const NcclTuning& t, const NcclComm& c, CollectiveOp op, double bytes,
                       std::optional<NcclAlgo> algo, std::optional<NcclProto> proto) {
  NcclChoice best;
  for (int a = 0; a < kNcclAlgos; ++a) {
    if (algo && static_cast<int>(*algo) != a) continue;
    for (int p = 0; p < kNcclProtos; ++p) {
      if (proto && static_cast<int>(*proto) != p) continue;
      double time = nccl_time_us(t, c, op, static_cast<NcclAlgo>(a), static_cast<NcclProto>(p), bytes);
      if (time >= 0 && (!best.ok || time < best.time_us)) {
        best.ok = true;
        best.algo = static_cast<NcclAlgo>(a);
        best.proto = static_cast<NcclProto>(p);
        best.time_us = time;
      }
    }
  }
  return best;
}

}  // namespace topoplan
