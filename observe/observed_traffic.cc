#include "observe/observed_traffic.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "base/json_fields.h"
#include "base/limits.h"
#include "base/units.h"
#include "base/words.h"

namespace topoplan {

std::optional<CollectiveOp> observed_op(const std::string& nccl_op) {
  if (nccl_op == "AllReduce") return CollectiveOp::all_reduce;
  if (nccl_op == "AllGather") return CollectiveOp::all_gather;
  if (nccl_op == "ReduceScatter") return CollectiveOp::reduce_scatter;
  if (nccl_op == "Broadcast") return CollectiveOp::broadcast;
  if (nccl_op == "Reduce") return CollectiveOp::reduce;
  if (nccl_op == "AlltoAll") return CollectiveOp::alltoall;
  if (nccl_op == "Send") return CollectiveOp::sendrecv;
  return std::nullopt;
}

std::string observed_calls_text(const std::vector<ObservedCall>& calls) {
  std::string s;
  for (const ObservedCall& c : calls)
    s += (s.empty() ? "" : ", ") + c.op + " " + format_bytes(c.bytes) + " x " + format_number(c.calls, 2);
  return s.empty() ? "none" : s;
}

double ObservedComm::bytes_per_step() const {
  double b = 0;
  for (const ObservedCall& c : per_step)
    if (c.op != "Recv") b += c.bytes * c.calls;
  return b;
}

namespace {

// Calls grouped by op and size, in order of first appearance, counted once each.
std::vector<ObservedCall> tally(const std::vector<NcclLogCall>& calls, size_t begin, size_t end) {
  std::vector<ObservedCall> out;
  std::map<std::pair<std::string, double>, size_t> at;
  for (size_t k = begin; k < end; ++k) {
    auto [it, fresh] = at.try_emplace({calls[k].op, calls[k].bytes}, out.size());
    if (fresh) out.push_back({calls[k].op, calls[k].bytes, 0});
    out[it->second].calls += 1;
  }
  return out;
}

}  // namespace

Result<ObservedTraffic> observed_traffic(const NcclLog& log, std::optional<double> steps) {
  ObservedTraffic out;
  out.version = log.version;
  out.warnings = log.warnings;
  // The step: given, or the communicator whose pattern repeats the fewest times.
  const NcclLogComm* fewest = nullptr;
  StepPattern fewest_pattern;
  std::vector<StepPattern> patterns;
  for (const NcclLogComm& c : log.comms) {
    patterns.push_back(nccl_log_pattern(c.calls));
    const StepPattern& p = patterns.back();
    if (p.period > 0 && (!fewest || p.repeats < fewest_pattern.repeats)) {
      fewest = &c;
      fewest_pattern = p;
    }
  }
  if (steps) {
    out.steps = *steps;
    out.steps_from = "--steps";
  } else if (fewest) {
    // A log that ends inside a step counts the whole steps it holds.
    out.steps = std::max(1.0, std::floor(fewest_pattern.repeats));
    out.steps_from = "communicator " + fewest->comm_id + " (" + counted(fewest->nranks, "rank") +
                     "): " + format_number(fewest_pattern.repeats, 2) + " repeats of " +
                     std::to_string(fewest_pattern.period) + " calls";
  } else {
    out.steps = 1;
    out.steps_from = "no communicator's calls repeat: the log is taken as one step (--steps N to say how many)";
    out.warnings.push_back(out.steps_from);
  }
  for (size_t i = 0; i < log.comms.size(); ++i) {
    const NcclLogComm& c = log.comms[i];
    ObservedComm oc;
    oc.comm_id = c.comm_id;
    oc.nranks = c.nranks;
    oc.members = c.members;
    oc.pattern = patterns[i];
    // Setup calls stay apart only when a pattern follows them; without one every call counts.
    const size_t n = c.calls.size();
    const size_t setup = oc.pattern.period > 0 ? static_cast<size_t>(oc.pattern.setup_calls) : 0;
    const size_t trailing = oc.pattern.period > 0 ? static_cast<size_t>(oc.pattern.trailing_calls) : 0;
    oc.setup = tally(c.calls, 0, setup);
    oc.per_step = tally(c.calls, setup, n - std::min(n - setup, trailing));
    for (ObservedCall& call : oc.per_step) call.calls /= out.steps;
    out.comms.push_back(std::move(oc));
  }
  return out;
}

namespace {

nlohmann::json calls_json(const std::vector<ObservedCall>& calls) {
  nlohmann::json out = nlohmann::json::array();
  for (const ObservedCall& c : calls) out.push_back({{"op", c.op}, {"bytes", c.bytes}, {"calls", c.calls}});
  return out;
}

Result<std::vector<ObservedCall>> calls_from(const nlohmann::json* list, const std::string& at) {
  std::vector<ObservedCall> out;
  if (!list) return out;
  for (size_t k = 0; k < list->size(); ++k) {
    std::string error;
    Fields f((*list)[k], json_indexed(at, k), {"op", "bytes", "calls"}, &error);
    ObservedCall c;
    c.op = f.name("op");
    c.bytes = f.number("bytes", kRequired, 0, true, limits::kMaxBytes);
    c.calls = f.number("calls", kRequired, 0, true, 1e12);
    if (!f.ok()) return Error{error};
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

nlohmann::json observed_traffic_to_json(const ObservedTraffic& t) {
  nlohmann::json j = {{"format", "topoplan-traffic"},
                      {"nccl_version", t.version},
                      {"steps", t.steps},
                      {"steps_from", t.steps_from},
                      {"warnings", t.warnings}};
  j["comms"] = nlohmann::json::array();
  for (const ObservedComm& c : t.comms) {
    nlohmann::json members = nlohmann::json::array();
    for (const NcclLogRank& m : c.members)
      members.push_back(
          {{"rank", m.rank}, {"host", m.host}, {"cuda_ordinal", m.cuda_ordinal}, {"pci_busid", m.pci_busid}});
    j["comms"].push_back({{"comm_id", c.comm_id},
                          {"nranks", c.nranks},
                          {"members", members},
                          {"per_step", calls_json(c.per_step)},
                          {"setup", calls_json(c.setup)},
                          {"bytes_per_step", c.bytes_per_step()},
                          {"pattern",
                           {{"period", c.pattern.period},
                            {"setup_calls", c.pattern.setup_calls},
                            {"trailing_calls", c.pattern.trailing_calls},
                            {"repeats", c.pattern.repeats}}}});
  }
  return j;
}

Result<ObservedTraffic> observed_traffic_from_json(const nlohmann::json& doc, const std::string& where) {
  std::string error;
  Fields f(doc, "", {"format", "nccl_version", "steps", "steps_from", "warnings", "comms"}, &error);
  ObservedTraffic t;
  t.version = f.text("nccl_version", "");
  t.steps = f.number("steps", kRequired, 0, false, 1e9);
  t.steps_from = f.text("steps_from", "");
  const nlohmann::json* comms = f.list("comms", true);
  if (!f.ok()) return error_in(where, error);
  for (size_t i = 0; i < comms->size(); ++i) {
    const std::string at = json_indexed("comms", i);
    Fields c((*comms)[i], at, {"comm_id", "nranks", "members", "per_step", "setup", "bytes_per_step", "pattern"},
             &error);
    ObservedComm oc;
    oc.comm_id = c.text("comm_id", "");
    oc.nranks = c.integer("nranks", kRequired, 1, static_cast<int>(limits::kMaxGpus));
    const nlohmann::json* members = c.list("members", true);
    const nlohmann::json* per_step = c.list("per_step", true);
    const nlohmann::json* setup = c.list("setup", false);
    const nlohmann::json* pattern = c.get("pattern", false);
    if (!c.ok()) return error_in(where, error);
    if (pattern) {
      Fields pf(*pattern, at + ".pattern", {"period", "setup_calls", "trailing_calls", "repeats"}, &error);
      oc.pattern.period = pf.integer("period", 0, 0);
      oc.pattern.setup_calls = pf.integer("setup_calls", 0, 0);
      oc.pattern.trailing_calls = pf.integer("trailing_calls", 0, 0);
      oc.pattern.repeats = pf.number("repeats", 0.0, 0, true, 1e12);
      if (!pf.ok()) return error_in(where, error);
    }
    for (size_t k = 0; k < members->size(); ++k) {
      Fields m((*members)[k], json_indexed(at + ".members", k), {"rank", "host", "cuda_ordinal", "pci_busid"}, &error);
      NcclLogRank r;
      r.rank = m.integer("rank", kRequired, 0, oc.nranks - 1);
      r.host = m.name("host");
      r.cuda_ordinal = m.integer("cuda_ordinal", kRequired, 0, 1 << 16);
      r.pci_busid = m.text("pci_busid", "");
      if (!m.ok()) return error_in(where, error);
      for (const NcclLogRank& other : oc.members)
        if (other.rank == r.rank)
          return error_in(where,
                          json_indexed(at + ".members", k) + ".rank: rank " + std::to_string(r.rank) + " listed twice");
      oc.members.push_back(std::move(r));
    }
    Result<std::vector<ObservedCall>> ps = calls_from(per_step, at + ".per_step");
    if (!ps) return error_in(where, ps.error());
    Result<std::vector<ObservedCall>> su = calls_from(setup, at + ".setup");
    if (!su) return error_in(where, su.error());
    oc.per_step = std::move(*ps);
    oc.setup = std::move(*su);
    t.comms.push_back(std::move(oc));
  }
  return t;
}

Result<ObservedTraffic> observed_traffic_load(const std::string& path) {
  Result<std::string> text = text_read_file(path);
  RETURN_IF_ERROR(text);
  Result<nlohmann::json> doc =
      json_parse_document(*text, path, "topoplan-traffic", "the traffic NCCL's log shows", "topoplan traffic --json");
  RETURN_IF_ERROR(doc);
  return observed_traffic_from_json(*doc, path);
}

}  // namespace topoplan
