// tests/cost/published_rows.json, our dev set of published nccl-tests results (issue 13), through
// the CLI: a table of every row, a summary per class and overall, and a check that each row's
// `expect` still holds, and where the source names the algorithm NCCL ran (`ran`), that the model
// picks it. A "known_miss" row that comes inside its tolerance fails too, so the file is
// re-marked when the model improves instead of hiding the gain.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/cost/accuracy_rows.h"
#include "tests/support.h"
#include "validate/median.h"

namespace topoplan {
namespace {

using nlohmann::json;

json load_published_rows() {
  const auto path = test::source_dir() / "tests/cost/published_rows.json";
  try {
    return json::parse(test::read_file(path));
  } catch (const json::parse_error& e) {
    FAIL(path.string() << " is not JSON: " << std::string(e.what()));
  }
  return {};
}

// What is wrong with the file, one line each naming the row and the field; empty when well-formed.
std::vector<std::string> published_rows_problems(const json& doc) {
  std::vector<std::string> out;
  if (!doc.is_object() || !doc.contains("about") || !doc.contains("classes") || !doc.contains("rows"))
    return {"the file needs an object with \"about\", \"classes\" and \"rows\""};
  if (!doc["classes"].is_object()) out.push_back("\"classes\" is not an object");
  if (!doc["rows"].is_array() || doc["rows"].empty()) return {"\"rows\" is not a non-empty array"};
  const std::set<std::string> text_fields{"id",     "class",  "cluster", "op",    "size",
                                          "metric", "expect", "nccl",    "quote", "source"};
  const std::set<std::string> number_fields{"value", "tolerance"},
      optional_text{"gpus", "algo", "note", "reason", "ran"};
  std::set<std::string> ids;
  for (size_t i = 0; i < doc["rows"].size(); ++i) {
    const json& row = doc["rows"][i];
    const std::string id = row.is_object() && row.contains("id") && row["id"].is_string()
                               ? row["id"].get<std::string>()
                               : "row " + std::to_string(i + 1);
    auto problem = [&](const std::string& what) { out.push_back(id + ": " + what); };
    if (!row.is_object()) {
      problem("not an object");
      continue;
    }
    for (const std::string& f : text_fields)
      if (!row.contains(f))
        problem("missing " + f);
      else if (!row[f].is_string() || row[f].get<std::string>().empty())
        problem(f + " is not a non-empty string");
    for (const std::string& f : number_fields)
      if (!row.contains(f))
        problem("missing " + f);
      else if (!row[f].is_number() || row[f].get<double>() <= 0)
        problem(f + " is not a positive number");
    for (const auto& [key, value] : row.items())
      if (!text_fields.contains(key) && !number_fields.contains(key) && !optional_text.contains(key))
        problem("unknown field " + key);
      else if (optional_text.contains(key) && !value.is_string())
        problem(key + " is not a string");
    if (!ids.insert(id).second) problem("id used twice");
    if (row.contains("tolerance") && row["tolerance"].is_number() && row["tolerance"].get<double>() >= 1)
      problem("tolerance is a fraction (0.10), not a percentage");
    if (row.contains("class") && row["class"].is_string() && doc["classes"].is_object() &&
        !doc["classes"].contains(row["class"].get<std::string>()))
      problem("class \"" + row["class"].get<std::string>() + "\" is not one of \"classes\"");
    if (row.contains("expect") && row["expect"].is_string()) {
      const std::string expect = row["expect"];
      const bool has_reason = row.contains("reason") && row["reason"].is_string() && !row["reason"].empty();
      if (expect != "within" && expect != "known_miss")
        problem("expect is \"" + expect + "\", not \"within\" or \"known_miss\"");
      else if (expect == "known_miss" && !has_reason)
        problem("known_miss without a reason");
      else if (expect == "within" && row.contains("reason"))
        problem("reason on a row expected within (mark it known_miss or drop the reason)");
    }
  }
  return out;
}

TEST_CASE("published rows: the dev set is well-formed") {
  const json doc = load_published_rows();
  const std::vector<std::string> problems = published_rows_problems(doc);
  for (const std::string& p : problems) FAIL_CHECK("published_rows.json: " << p);
  REQUIRE(problems.empty());

  // The checker itself names the row and the field.
  json broken = doc;
  broken["rows"][0].erase("tolerance");
  broken["rows"][1]["expect"] = "known_miss";
  broken["rows"][1].erase("reason");
  const auto found = published_rows_problems(broken);
  const std::string id0 = doc["rows"][0]["id"], id1 = doc["rows"][1]["id"];
  CHECK(std::find(found.begin(), found.end(), id0 + ": missing tolerance") != found.end());
  CHECK(std::find(found.begin(), found.end(), id1 + ": known_miss without a reason") != found.end());
}

// printf into a string, for the check messages.
std::string format(const char* fmt, double x) {
  char s[32];
  std::snprintf(s, sizeof s, fmt, x);
  return s;
}

TEST_CASE("published rows: every row within its tolerance unless marked a known miss") {
  const json doc = load_published_rows();
  const std::vector<std::string> problems = published_rows_problems(doc);
  REQUIRE_MESSAGE(problems.empty(),
                  "published_rows.json is malformed, first: " << (problems.empty() ? "" : problems.front()));

  struct Tally {
    std::vector<double> abs_errors, nccl_abs_errors;  // the second: NCCL's own estimate, where it has one
    int within = 0;
  };
  std::vector<std::string> class_order;  // as the rows first name them
  std::map<std::string, Tally> by_class;
  Tally all;
  std::vector<std::pair<const json*, test::RowOutcome>> outcomes;  // checked after the table, to keep it whole
  std::printf("%-5s %-17s %-14s %-10s %-6s %-17s %-9s %-6s %9s %9s %8s %5s %8s  %s\n", "id", "class", "cluster", "op",
              "size", "gpus", "algorithm", "proto", "predicted", "measured", "error", "tol", "NCCL err", "mark");
  for (const json& row : doc["rows"]) {
    const std::string cls = row["class"];
    const bool known_miss = row["expect"] == "known_miss";
    const test::RowOutcome r = test::run_row(row);
    const bool ok = r.within();
    const char* mark = ok ? (known_miss ? "NOW WITHIN" : "") : (known_miss ? "known miss" : "OUTSIDE");
    const std::string nccl = r.nccl_predicted > 0 ? format("%+.1f%%", r.nccl_error * 100) : "-";
    std::printf("%-5s %-17s %-14s %-10s %-6s %-17s %-9s %-6s %9.2f %9.2f %+7.1f%% %4.0f%% %8s%s%s\n",
                row["id"].get<std::string>().c_str(), cls.c_str(), row["cluster"].get<std::string>().c_str(),
                row["op"].get<std::string>().c_str(), row["size"].get<std::string>().c_str(),
                row.value("gpus", "all").c_str(), r.algorithm.c_str(), r.protocol.c_str(), r.predicted, r.measured,
                r.error * 100, r.tolerance * 100, nccl.c_str(), *mark ? "  " : "", mark);
    if (!by_class.contains(cls)) class_order.push_back(cls);
    for (Tally* t : {&by_class[cls], &all}) {
      t->abs_errors.push_back(std::abs(r.error));
      if (r.nccl_predicted > 0) t->nccl_abs_errors.push_back(std::abs(r.nccl_error));
      t->within += ok;
    }
    outcomes.emplace_back(&row, r);
  }

  auto nccl_median = [](const Tally& t) {
    return t.nccl_abs_errors.empty() ? std::string("-") : format("%.1f%%", median(t.nccl_abs_errors) * 100);
  };
  std::printf("\n%-17s %5s %13s %8s %18s\n", "class", "rows", "median |err|", "within", "NCCL's own model");
  for (const std::string& cls : class_order) {
    const Tally& t = by_class[cls];
    std::printf("%-17s %5zu %12.1f%% %4d/%-3zu %18s\n", cls.c_str(), t.abs_errors.size(), median(t.abs_errors) * 100,
                t.within, t.abs_errors.size(), nccl_median(t).c_str());
  }
  std::printf(
      "all %zu rows: median |error| %.1f %%, %d of %zu within tolerance (%.0f %%); NCCL's own estimate of the "
      "same pairs: median |error| %s\n",
      all.abs_errors.size(), median(all.abs_errors) * 100, all.within, all.abs_errors.size(),
      100.0 * all.within / all.abs_errors.size(), nccl_median(all).c_str());

  for (const auto& outcome : outcomes) {
    // Named copies, not structured bindings: doctest's messages capture them (clang 15).
    const json& row = *outcome.first;
    const test::RowOutcome r = outcome.second;
    const std::string id = row["id"], cls = row["class"];
    const std::string figures = "predicted " + format("%.2f", r.predicted) + ", measured " +
                                format("%.2f", r.measured) + " " + row["metric"].get<std::string>() + " (error " +
                                format("%+.1f %%", r.error * 100) + ", tolerance " +
                                format("%.0f %%", r.tolerance * 100) + ")";
    // Where the source says which algorithm NCCL ran, the model must pick the same.
    if (row.contains("ran"))
      CHECK_MESSAGE(r.algorithm == row["ran"].get<std::string>(),
                    id << ": the source ran " << row["ran"].get<std::string>() << ", the model picks " << r.algorithm);
    if (row["expect"] == "known_miss")
      CHECK_MESSAGE(!r.within(), id << " is now within tolerance: mark it within (" << figures << ")");
    else
      CHECK_MESSAGE(r.within(), id << " (" << cls << ") is outside its tolerance: " << figures);
  }
}

}  // namespace
}  // namespace topoplan
