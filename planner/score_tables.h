// The tables of a score, cell by cell: what `score` prints (TextTable) and what the HTML report
// lays out as tables are the same strings.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/score.h"

namespace topoplan {

using Rows = std::vector<std::vector<std::string>>;

// Exposed communication by kind: kind, alone, contended, exposed (a header row first).
Rows kind_rows(const JobScore& s);
// The collectives per step: kind, phase, op, size, calls, algorithm/protocol, alone, contended
// with how many groups, exposed and what it moves (no header: the text runs them as a sentence).
Rows item_rows(const JobScore& s);
// Links from e's source to its target, e included: the ports of a bundle (topology/fabric.cc).
size_t bundle_ports(const Cluster& c, EdgeId e);
// The `n` hottest links, a bundle of parallel ports as one ("leaf0 -> spine0 (8 ports)"): link,
// class, tier, bytes/step, peak, in which phase, step average (a header row first).
Rows link_rows(const Cluster& c, const JobScore& s, size_t n);

// What one GPU of each pipeline stage holds at its peak: stage, weights, gradients, optimizer
// states, activations, micro-batches in flight, total, share of the GPU's memory (a header row
// first). Consecutive stages whose cells are the same share a row ("1-14"). Empty when the score
// has no memory estimate.
Rows memory_rows(const JobScore& s);

// The same tables as one JSON object for the report: {"kinds", "items", "links", "memory", "findings"},
// each a list of rows of strings (findings: severity, message, cost per step, fix).
nlohmann::json score_tables_json(const Cluster& c, const JobScore& s, size_t hottest);

}  // namespace topoplan
