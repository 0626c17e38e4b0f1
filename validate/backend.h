// What a validation backend supplies: communicators split from the world, buffers, and the
// collectives on float32 elements. The harness (validate/harness.h) holds the logic shared by every
// backend: which groups, what values, how timed, how checked. MPI runs on host buffers anywhere;
// NCCL on one GPU per rank.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "cost/nccl_tuning.h"

namespace topoplan {

class ValidateComm {
 public:
  virtual ~ValidateComm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
};

// Element buffers where the backend's collectives read and write (host or device memory), copied
// to and from the host for filling and checking.
class ValidateBuffer {
 public:
  virtual ~ValidateBuffer() = default;
  virtual void upload(const std::vector<float>& host) = 0;
  virtual std::vector<float> download() const = 0;
  virtual size_t count() const = 0;
};

class ValidateBackend {
 public:
  virtual ~ValidateBackend() = default;
  virtual std::string name() const = 0;
  virtual int world_rank() const = 0;
  virtual int world_size() const = 0;
  virtual std::string host_name() const = 0;
  // The ranks with the same color, ordered by key; nullptr where color < 0.
  virtual std::unique_ptr<ValidateComm> split(int color, int key) = 0;
  virtual std::unique_ptr<ValidateBuffer> buffer(size_t count) = 0;
  // One collective: `count` elements per rank as nccl-tests counts them (all_gather and
  // reduce_scatter: the per-rank share; alltoall: per peer). sendrecv sends to `peer_to` and
  // receives from `peer_from` (-1: none). In place, as nccl-tests runs it, `send` is unused and
  // the input is in `recv`: all of it, except all_gather's, at this rank's slot (position x
  // count); reduce_scatter leaves its output at that slot. May return before it completes on
  // the device: sync().
  virtual void run(const ValidateComm& comm, CollectiveOp op, const ValidateBuffer& send, ValidateBuffer& recv,
                   size_t count, int peer_to, int peer_from, bool in_place) = 0;
  // Waits for every collective issued so far.
  virtual void sync() {}
  // Over the world, element by element, every rank gets the result.
  virtual void world_max(std::vector<double>& values) = 0;
  virtual void comm_max(const ValidateComm& comm, std::vector<double>& values) = 0;
  virtual void world_barrier() = 0;
  // Every rank's string, in rank order, on every rank.
  virtual std::vector<std::string> world_gather(const std::string& mine) = 0;
  // What nccl-tests prints for the rank's device: its PCI bus id ("0000:18:00") and name.
  virtual std::string device_bus_id() const { return "0000:00:00"; }
  virtual std::string device_name() const { return "host memory (no GPU)"; }
  virtual double now_s() const = 0;
};

}  // namespace topoplan
