// NCCL's rings and chains on GPUs bonded point to point: an NVLink mesh without NVSwitches (DGX-1's
// hybrid cube mesh, HGX A100 4-GPU boards), where which GPU follows which decides the links used.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace topoplan {

// NVLinks from local GPU i to local GPU j (symmetric, zero diagonal).
using Bonds = std::vector<std::vector<int>>;

// The most rings through every GPU that fit when each ring takes one NVLink of every pair it
// passes, each direction apart: NCCL's ring search packing channels at one link's speed (search.cc
// ncclTopoSearchRec; on DGX-1 it finds 0 3 2 1 5 6 7 4 twice, its reverse twice, and the NV1 cycle
// 0 1 3 7 5 4 6 2 and its reverse once each: 6 rings on 6 links per GPU). Each ring starts at GPU
// 0; empty where no NVLink cycle reaches every GPU (NCCL then leaves NVLink for PCIe).
std::vector<std::vector<size_t>> mesh_rings(const Bonds& bonds);

// For each (entry, exit) pair, a chain over bonded pairs from the entry through every GPU to the
// exit: how a ring channel crosses a node. Chains are placed in turn, each on the links the ones
// before it left most free, as NCCL's search takes each channel's bandwidth from the links it
// uses. Empty when some pair has no such chain.
std::vector<std::vector<size_t>> mesh_chains(const Bonds& bonds, const std::vector<std::pair<size_t, size_t>>& ends);

}  // namespace topoplan
