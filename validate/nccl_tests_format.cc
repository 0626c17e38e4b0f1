#include "validate/nccl_tests_format.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <type_traits>

#include "base/file_io.h"
#include "base/limits.h"
#include "base/words.h"

namespace topoplan {
namespace {

// Free text (a device's or program's name) with its control characters as spaces.
std::string printable(std::string_view s) {
  std::string out(trim(s));
  for (char& c : out)
    if (blank(c)) c = ' ';
  return out;
}

// A number as nccl-tests prints it: %f, %e (getFloatStr past the column's width) or %g.
std::optional<double> number(std::string_view s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<long long> whole(std::string_view s) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string shown(std::string_view s) {
  s = trim(s);
  return "'" + std::string(s.substr(0, 80)) + (s.size() > 80 ? "...'" : "'");
}

[[gnu::format(printf, 2, 3)]] void appendf(std::string& out, const char* format, ...) {
  va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  if (n > 0) {
    std::string s(static_cast<size_t>(n) + 1, '\0');
    std::vsnprintf(s.data(), s.size(), format, again);
    out.append(s.data(), static_cast<size_t>(n));
  }
  va_end(again);
}

// nccl-tests 2.19.6 getFloatStr (src/util.cu, commit 379ca38): the most decimals that fit the
// column, then %e cut to the width.
std::string float_str(double v, int width) {
  char s[64];
  const size_t n = static_cast<size_t>(width) + 1;
  if (std::snprintf(s, n, "%*.2f", width, v) <= width) return s;
  if (std::snprintf(s, n, "%*.1f", width, v) <= width) return s;
  if (std::snprintf(s, n, "%*.0f", width, v) <= width) return s;
  if (width >= 7)
    std::snprintf(s, n, "%*.1e", width, v);
  else
    std::snprintf(s, n, "%*.0e", width, v);
  return s;
}

// ---- programs and inference ------------------------------------------------------------------

// Each program by its name before "_perf" (NAME_SUFFIX, 2.15.1, may follow: all_reduce_perf_mpi);
// nullopt for those topoplan does not model.
struct Program {
  std::string_view name;
  std::optional<CollectiveOp> op;
};
constexpr Program kPrograms[] = {{"all_reduce", CollectiveOp::all_reduce},
                                 {"all_gather", CollectiveOp::all_gather},
                                 {"reduce_scatter", CollectiveOp::reduce_scatter},
                                 {"alltoall", CollectiveOp::alltoall},
                                 {"sendrecv", CollectiveOp::sendrecv},
                                 {"alltoallv", std::nullopt},
                                 {"broadcast", std::nullopt},
                                 {"reduce", std::nullopt},
                                 {"gather", std::nullopt},
                                 {"scatter", std::nullopt},
                                 {"hypercube", std::nullopt}};
constexpr std::string_view kModelled =
    "all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf and sendrecv_perf";

const Program* program_of(std::string_view program) {
  if (size_t slash = program.rfind('/'); slash != std::string_view::npos) program.remove_prefix(slash + 1);
  const size_t perf = program.find("_perf");
  if (perf == std::string_view::npos) return nullptr;
  for (const Program& p : kPrograms)
    if (p.name == program.substr(0, perf)) return &p;
  return nullptr;
}

// The one collective a file's name spells (all_reduce, allreduce, all-reduce ...), if exactly one.
std::optional<CollectiveOp> op_of_file_name(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  for (char& ch : name) ch = ch == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const std::pair<const char*, CollectiveOp> spellings[] = {{"all_reduce", CollectiveOp::all_reduce},
                                                            {"allreduce", CollectiveOp::all_reduce},
                                                            {"all_gather", CollectiveOp::all_gather},
                                                            {"allgather", CollectiveOp::all_gather},
                                                            {"reduce_scatter", CollectiveOp::reduce_scatter},
                                                            {"reducescatter", CollectiveOp::reduce_scatter},
                                                            {"alltoall", CollectiveOp::alltoall},
                                                            {"sendrecv", CollectiveOp::sendrecv}};
  std::optional<CollectiveOp> found;
  for (const auto& [spelling, op] : spellings)
    for (size_t at = name.find(spelling); at != std::string::npos; at = name.find(spelling, at + 1)) {
      const size_t end = at + std::string_view(spelling).size();
      if (op == CollectiveOp::alltoall && end < name.size() && name[end] == 'v') continue;  // alltoallv
      if (found && *found != op) return std::nullopt;
      found = op;
    }
  return found;
}

// The collectives a run's rows fit by their counts (src/*.cu getCollByteCount): size = count *
// word for all_reduce and sendrecv, count * word * ranks for the others (count is per rank). The
// redop column settles the rest but for sendrecv, which prints -o's op (sum) without reducing;
// all_gather and alltoall print none ("" before 2.13.4). nullopt when no row says (unknown types).
std::optional<std::vector<CollectiveOp>> ops_by_counts(const NcclTestsRun& run, int ranks) {
  std::optional<std::vector<CollectiveOp>> out;
  for (const NcclTestsRow& r : run.rows) {
    const std::optional<int> word = nccl_tests_type_bytes(r.type);
    if (!word || r.count == 0) continue;
    const double k = r.bytes / (static_cast<double>(r.count) * *word);
    const bool reduces = r.redop != "none" && !r.redop.empty();
    std::vector<CollectiveOp> fit;
    if (k == 1 && reduces) fit.push_back(CollectiveOp::all_reduce);
    if (k == 1) fit.push_back(CollectiveOp::sendrecv);
    if (k == std::floor(k) && (ranks > 0 ? k == ranks : k > 1)) {
      if (reduces)
        fit.push_back(CollectiveOp::reduce_scatter);
      else
        fit.insert(fit.end(), {CollectiveOp::all_gather, CollectiveOp::alltoall});
    }
    if (!out) out = fit;
    std::erase_if(*out, [&](CollectiveOp op) { return std::find(fit.begin(), fit.end(), op) == fit.end(); });
  }
  return out;
}

// busbw / algbw where the printed rates are precise (the fastest row, 1 GB/s or more), and the
// ranks behind it: the device lines', else what the counts say (0 when they say 1).
struct RateSample {
  double ratio = 0;
  int ranks = 0, line = 0;
};

std::optional<RateSample> rate_sample(const NcclTestsRun& run, int ranks) {
  const NcclTestsRow* best = nullptr;
  for (const NcclTestsRow& r : run.rows)
    if (r.algbw_GBps >= 1 && (!best || r.algbw_GBps > best->algbw_GBps)) best = &r;
  if (!best) return std::nullopt;
  const std::optional<int> word = nccl_tests_type_bytes(best->type);
  const double k = word && best->count ? best->bytes / (static_cast<double>(best->count) * *word) : 0;
  const int n = ranks > 0 ? ranks : k > 1 && k < limits::kMaxRanks ? static_cast<int>(k) : 0;
  return RateSample{best->busbw_GBps / best->algbw_GBps, n, best->line};
}

// Whether nccl-tests' bus factor for op (doc/PERFORMANCE.md) gives the sample's ratio; without a
// rank count all_reduce's 2(n-1)/n may be anything from 1 to 2.
bool rate_fits(CollectiveOp op, const RateSample& s) {
  const double tolerance = 0.03;  // two printed decimals on 1 GB/s and more, both rates
  if (s.ranks == 0 && op == CollectiveOp::all_reduce) return s.ratio > 1 - tolerance && s.ratio < 2 * (1 + tolerance);
  const double factor = nccl_busbw_factor(op, std::max(1, s.ranks));
  return std::abs(s.ratio - factor) <= tolerance * std::max(factor, 0.5);
}

// "all_gather or alltoall"; "all_gather from alltoall" with last = " from ".
std::string ops_named(const std::vector<CollectiveOp>& ops, const char* last = " or ") {
  std::string s;
  for (size_t i = 0; i < ops.size(); ++i)
    s += (i ? i + 1 == ops.size() ? last : ", " : "") + std::string(to_string(ops[i]));
  return s;
}

// What to do with a finished run: keep it with its op, leave it out with a note, or stop.
struct Verdict {
  bool keep = false;
  std::string note, error;
};

Verdict resolve(NcclTestsRun& run) {
  const std::string where = run.source + ":" + std::to_string(run.line);
  if (!run.program.empty()) {
    if (const Program* p = program_of(run.program)) {
      if (!p->op)
        return {false, where + ": " + run.program + " left out: topoplan models " + std::string(kModelled), ""};
      run.op = *p->op;
      return {true, "", ""};
    }
  }
  for (const NcclTestsRow& r : run.rows)
    if (r.root >= 0)
      return {false,
              where + ": left out: rows with a root (line " + std::to_string(r.line) +
                  ") are broadcast, reduce, gather or scatter; topoplan models " + std::string(kModelled),
              ""};
  const int ranks = nccl_tests_comm_ranks(run);
  std::optional<std::vector<CollectiveOp>> fits = ops_by_counts(run, ranks);
  const std::string counts =
      "redop and count against size" + (ranks ? " on " + std::to_string(ranks) + " ranks" : std::string());
  if (std::optional<CollectiveOp> named = op_of_file_name(run.source)) {
    if (fits && std::find(fits->begin(), fits->end(), *named) == fits->end())
      return {false, "",
              where + ": the file's name says " + std::string(to_string(*named)) + " but its rows do not fit one (" +
                  counts + ")"};
    run.op = *named;
    return {true, "", ""};
  }
  const std::string fix =
      "; name the file after the test (e.g. all_gather_perf.log) or keep nccl-tests' "
      "'# Collective test starting:' line (2.16.7 on)";
  if (!fits || fits->empty())
    return {false, "", where + ": cannot tell which collective the rows are (" + counts + "; no program line)" + fix};
  if (std::optional<RateSample> s = rate_sample(run, ranks)) {
    std::vector<CollectiveOp> by_rate = *fits;
    std::erase_if(by_rate, [&](CollectiveOp op) { return !rate_fits(op, *s); });
    if (by_rate.empty())
      return {false, "",
              where + ": the rows' counts fit " + ops_named(*fits) + " but busbw/algbw at line " +
                  std::to_string(s->line) + " is " + std::to_string(s->ratio) + ", which fits none" + fix};
    fits = by_rate;
  }
  if (fits->size() > 1) {
    const bool gathers = *fits == std::vector<CollectiveOp>{CollectiveOp::all_gather, CollectiveOp::alltoall};
    return {false, "",
            where + ": cannot tell " + ops_named(*fits, " from ") +
                (gathers ? ": both print redop none, count = size / word / ranks and busbw = algbw * (n-1)/n"
                         : ": the counts fit each and busbw/algbw does not decide (1 or 2 ranks, or no device lines)") +
                fix};
  }
  run.op = fits->front();
  return {true, "", ""};
}

// ---- the column header and rows --------------------------------------------------------------

enum class Col : uint8_t {
  size,
  count,
  type,
  redop,
  root,
  time,
  algbw,
  busbw,
  wrong,
  error,
  i_min,
  i_max,
  i_p99,
  i_cv,
  timestamp,
  other
};

struct Column {
  Col col = Col::other;
  int place = 0;  // 0 out-of-place, 1 in-place
  std::string name;
};

struct Table {
  std::vector<Column> cols;  // a trailing timestamp column spans two words ("2026-07-09 15:52:13")
  bool timestamp = false;
  int redop_at = -1;
  std::string names() const {
    std::string s;
    for (const Column& c : cols) s += (s.empty() ? "" : " ") + c.name;
    return s;
  }
};

constexpr std::string_view kHeaderExample =
    "'#       size         count      type   redop    root     time   algbw   busbw  #wrong ...'";

Result<Table> table_of(const Words& names, const std::string& where, bool& cputime) {
  static const std::map<std::string_view, Col> kCols = {
      {"size", Col::size},   {"count", Col::count},  {"type", Col::type},    {"redop", Col::redop},
      {"root", Col::root},   {"time", Col::time},    {"cputime", Col::time}, {"algbw", Col::algbw},
      {"busbw", Col::busbw}, {"#wrong", Col::wrong}, {"error", Col::error},  {"i_min", Col::i_min},
      {"i_max", Col::i_max}, {"i_p99", Col::i_p99},  {"i_cv%", Col::i_cv},   {"timestamp", Col::timestamp}};
  Table t;
  int times = 0;
  int seen[2][16] = {};
  for (size_t i = 0; i < names.size(); ++i) {
    auto it = kCols.find(names[i]);
    Column c{it == kCols.end() ? Col::other : it->second, 0, std::string(names[i])};
    if (c.col == Col::time) {
      cputime = names[i] == "cputime";
      ++times;
    }
    c.place = std::max(0, times - 1);
    if (c.col == Col::timestamp && i + 1 != names.size()) c.col = Col::other;
    if (c.place > 1 || (c.col != Col::other && seen[c.place][static_cast<int>(c.col)]++)) c.col = Col::other;
    if (c.col == Col::redop) t.redop_at = static_cast<int>(t.cols.size());
    t.timestamp = c.col == Col::timestamp;
    t.cols.push_back(std::move(c));
  }
  for (Col need : {Col::size, Col::count, Col::type, Col::time, Col::algbw, Col::busbw})
    if (!seen[0][static_cast<int>(need)])
      return Error{where + ": a column header without size, count, type, time, algbw and busbw (expected " +
                   std::string(kHeaderExample) + ")"};
  return t;
}

// A row of the table, or nullopt for a row of size 0 (-b 0 prints them for the smallest sizes).
Result<std::optional<NcclTestsRow>> row_of(Words w, const Table& t, const std::string& where) {
  // alltoall before 2.13.4, all_gather in 2.13.0 to 2.13.3 and hypercube print a blank redop: a
  // word short, with a number in its place.
  if (t.redop_at >= 0 && w.size() > static_cast<size_t>(t.redop_at) && number(w[static_cast<size_t>(t.redop_at)]))
    w.insert(w.begin() + t.redop_at, std::string_view());
  const size_t n = t.cols.size() - (t.timestamp ? 1 : 0);
  if (w.size() < n || (w.size() > n && !t.timestamp))
    return Error{where + ": expected " + std::to_string(n) + " columns (" + t.names() + "), got " +
                 std::to_string(w.size()) + (w.size() < n ? ": a truncated row?" : "")};
  NcclTestsRow r;
  long long size = 0;
  NcclTestsIterStats iter[2];
  bool has_iter = false;
  for (size_t i = 0; i < n; ++i) {
    const Column& c = t.cols[i];
    const std::string at = where + ": column " + std::to_string(i + 1) + " (" + c.name + "): ";
    const auto bad = [&](const std::string& expected) {
      return Error{at + "expected " + expected + ", got " + shown(w[i])};
    };
    std::optional<double> v;
    switch (c.col) {
      case Col::size:
      case Col::count:
      case Col::root: {
        const std::optional<long long> x = whole(w[i]);
        if (c.col == Col::size) {
          if (!x || *x < 0 || *x > limits::kMaxBytes) return bad("a size in bytes, a whole number from 0 to 1e18");
          size = *x;
        } else if (c.col == Col::count) {
          if (!x || *x < 0) return bad("a count of elements, a whole number from 0");
          r.count = static_cast<size_t>(*x);
        } else {
          if (!x || *x < -1 || *x > limits::kMaxRanks) return bad("a root rank, -1 or a whole number from 0");
          r.root = static_cast<int>(*x);
        }
        break;
      }
      case Col::type:
        r.type = w[i];
        break;
      case Col::redop:
        r.redop = w[i];
        break;
      case Col::time:
      case Col::i_min:
      case Col::i_max:
      case Col::i_p99:
      case Col::i_cv:
        v = number(w[i]);
        if (!v || *v < 0 || *v > limits::kMaxSeconds * 1e6) return bad("a number from 0");
        if (c.col == Col::time) (c.place ? r.in_place_time_us : r.time_us) = *v;
        has_iter = has_iter || c.col != Col::time;
        if (c.col == Col::i_min) iter[c.place].min_us = *v;
        if (c.col == Col::i_max) iter[c.place].max_us = *v;
        if (c.col == Col::i_p99) iter[c.place].p99_us = *v;
        if (c.col == Col::i_cv) iter[c.place].cv_pct = *v;
        break;
      case Col::algbw:
      case Col::busbw:
        v = number(w[i]);
        if (!v || *v < 0 || *v > limits::kMaxRateGBps) return bad("a rate in GB/s from 0");
        if (c.col == Col::algbw)
          (c.place ? r.in_place_algbw_GBps : r.algbw_GBps) = *v;
        else
          (c.place ? r.in_place_busbw_GBps : r.busbw_GBps) = *v;
        break;
      case Col::wrong:
      case Col::error: {
        if (w[i] == "N/A") break;  // -c 0
        v = number(w[i]);
        if (!v || *v < 0 || *v > 9e18)
          return bad(c.col == Col::wrong ? "a count of wrong elements or N/A" : "a number or N/A");
        // Before 2.13 the column held the largest difference, not a count: only 0 says "none wrong".
        if (c.col == Col::wrong || *v == 0) (c.place ? r.in_place_wrong : r.wrong) = std::llround(*v);
        break;
      }
      case Col::timestamp:
      case Col::other:
        break;
    }
  }
  if (has_iter) {
    r.iter = iter[0];
    r.in_place_iter = iter[1];
  }
  for (size_t i = n; i < w.size(); ++i) r.timestamp += (r.timestamp.empty() ? "" : " ") + std::string(w[i]);
  if (size == 0) return std::optional<NcclTestsRow>();
  r.bytes = static_cast<double>(size);
  return std::optional<NcclTestsRow>(std::move(r));
}

// ---- header lines ----------------------------------------------------------------------------

// "#  Rank  0 Group  0 Pid  12345 on node01 device  0 [0000:18:00] NVIDIA H100 80GB HBM3"; before
// 2.13.4 without Group, in 1.x without Pid.
std::optional<NcclTestsRank> rank_of(std::string_view body) {
  const Words w = words_of(body);
  NcclTestsRank r;
  size_t i = 0;
  auto integer = [&](const char* key, auto& out, long long most = limits::kMaxRanks) {
    if (i + 1 >= w.size() || w[i] != key) return false;
    const std::optional<long long> v = whole(w[i + 1]);
    if (!v || *v < 0 || *v > most) return false;
    out = static_cast<std::remove_reference_t<decltype(out)>>(*v);
    i += 2;
    return true;
  };
  if (!integer("Rank", r.rank)) return std::nullopt;
  if (i < w.size() && w[i] == "Group" && !integer("Group", r.group)) return std::nullopt;
  if (i < w.size() && w[i] == "Pid" && !integer("Pid", r.pid, 1LL << 31)) return std::nullopt;
  if (i + 1 >= w.size() || w[i] != "on") return std::nullopt;
  r.host = w[i + 1];
  i += 2;
  if (!integer("device", r.device) || i >= w.size() || !w[i].starts_with('[') || !w[i].ends_with(']') ||
      w[i].size() < 3)
    return std::nullopt;
  r.bus_id = w[i].substr(1, w[i].size() - 2);
  const size_t name_at = static_cast<size_t>(w[i].data() + w[i].size() - body.data());
  r.device_name = printable(body.substr(name_at));
  return r;
}

// "nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 1 iters: 20
// agg iters: 1 validation: 1 graph: 0 unalign: 0": keys end with ':' or are the first four words.
Result<void> params_of(std::string_view body, NcclTestsRun& run, const std::string& where) {
  const Words w = words_of(body);
  std::string key;
  for (size_t i = 0; i < w.size(); ++i) {
    key += (key.empty() ? "" : " ") + std::string(w[i]);
    const bool bare = key == "nThread" || key == "nGpus" || key == "minBytes" || key == "maxBytes";
    if (!bare && !key.ends_with(':')) continue;
    if (key.ends_with(':')) key.pop_back();
    if (i + 1 >= w.size()) return Error{where + ": '" + key + "' without a value"};
    std::string_view value = w[++i];
    std::string_view unit;
    if (size_t paren = value.find('('); key == "step" && paren != std::string_view::npos) {
      unit = value.substr(paren);
      value = value.substr(0, paren);
    }
    const std::optional<long long> v = whole(value);
    if (!v || *v < 0 || *v > limits::kMaxBytes)
      return Error{where + ": '" + key + "': expected a whole number from 0, got " + shown(w[i])};
    const int small = static_cast<int>(std::min<long long>(*v, 1 << 30));
    if (key == "nThread")
      run.threads = small;
    else if (key == "nGpus")
      run.gpus_per_proc = small;
    else if (key == "minBytes")
      run.min_bytes = static_cast<double>(*v);
    else if (key == "maxBytes")
      run.max_bytes = static_cast<double>(*v);
    else if (key == "warmup iters")
      run.warmup_iters = small;
    else if (key == "iters")
      run.iters = small;
    else if (key == "agg iters")
      run.agg_iters = small;
    else if (key == "validation")
      run.validation = small;
    else if (key == "graph")
      run.graph = small;
    else if (key == "unalign")
      run.unalign = small;
    else if (key == "step" && unit == "(bytes)") {
      run.step_factor = 1;
      run.step_bytes = static_cast<double>(*v);
    } else if (key == "step") {
      run.step_factor = small;
    }
    key.clear();
  }
  return {};
}

// ---- the log ---------------------------------------------------------------------------------

class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  Result<void> line(std::string_view text, int no);
  Result<NcclTestsLog> finish();

 private:
  struct Done {
    NcclTestsRun run;
    bool table = false;
  };
  std::string at(int line) const { return source_ + ":" + std::to_string(line); }
  // Opens a run at `line`, first closing the open one when `again` says this line starts another.
  void open(bool again, int line);
  void close();

  const std::string& source_;
  std::optional<NcclTestsRun> run_;
  std::optional<Table> table_;
  bool version_ = false, start_ = false, params_ = false, ended_ = false;  // the footer was read
  std::map<int, int> rank_lines_;
  std::vector<Done> done_;
  std::vector<std::string> notes_;
};

void Reader::open(bool again, int line) {
  if (run_ && again) close();
  if (run_) return;
  run_ = NcclTestsRun{};
  run_->source = source_;
  run_->line = line;
}

void Reader::close() {
  if (!run_) return;
  done_.push_back({std::move(*run_), table_.has_value()});
  run_.reset();
  table_.reset();
  version_ = start_ = params_ = ended_ = false;
  rank_lines_.clear();
}

Result<void> Reader::line(std::string_view text, int no) {
  text = trim(text);
  // srun --label prefixes each line with the task: "0: # nThread ...".
  if (size_t colon = text.find(": ");
      colon != std::string_view::npos && colon > 0 && whole(text.substr(0, colon)) && text[0] != '-')
    text = trim(text.substr(colon + 2));
  if (text.starts_with('#')) {
    const std::string_view body = trim(text.substr(1));
    const Words w = words_of(body);
    if (body.starts_with("nccl-tests version ")) {
      open(version_ || start_ || params_ || table_ || !rank_lines_.empty(), no);
      version_ = true;
      if (w.size() > 2) run_->version = w[2];
      for (size_t i = 3; i < w.size(); ++i) {
        const size_t eq = w[i].find('=');
        const std::optional<long long> code = eq == std::string_view::npos ? std::nullopt : whole(w[i].substr(eq + 1));
        if (!code || *code < 0 || *code > 1'000'000'000) continue;
        if (w[i].starts_with("nccl-headers=")) run_->nccl_headers = static_cast<int>(*code);
        if (w[i].starts_with("nccl-library=")) run_->nccl_library = static_cast<int>(*code);
      }
    } else if (body.starts_with("Collective test starting:")) {
      open(start_ || params_ || table_ || !rank_lines_.empty(), no);
      start_ = true;
      run_->program = printable(body.substr(body.find(':') + 1));
    } else if (w.size() > 1 && w[0] == "nThread") {
      open(params_ || table_ || !rank_lines_.empty(), no);
      params_ = true;
      if (Result<void> ok = params_of(body, *run_, at(no)); !ok) return ok;
    } else if (!w.empty() && w[0] == "Rank") {
      open(table_.has_value(), no);
      std::optional<NcclTestsRank> r = rank_of(body);
      if (!r) {
        // 2048 bytes of device lines per process, then "...": the rest of that process's lines are lost.
        if (text.ends_with("...")) {
          notes_.push_back(at(no) + ": a device line cut short by nccl-tests (more GPUs per process than it prints)");
          return {};
        }
        return Error{at(no) +
                     ": expected a device line like '#  Rank  0 Group  0 Pid  12345 on node01 device  0 "
                     "[0000:18:00] NVIDIA H100 80GB HBM3', got " +
                     shown(text)};
      }
      if (auto [it, fresh] = rank_lines_.emplace(r->rank, no); !fresh)
        return Error{at(no) + ": rank " + std::to_string(r->rank) + " is listed twice (also at line " +
                     std::to_string(it->second) + ")"};
      run_->ranks.push_back(std::move(*r));
    } else if (w.size() > 1 && w[0] == "size" && w[1] == "count") {
      open(table_.has_value(), no);
      Result<Table> t = table_of(w, at(no), run_->cputime);
      RETURN_IF_ERROR(t);
      table_ = std::move(*t);
      ended_ = false;
    } else if (run_ && table_ && body.starts_with("Out of bounds values")) {
      const Words v =
          words_of(body.substr(body.find(':') == std::string_view::npos ? body.size() : body.find(':') + 1));
      const std::optional<long long> n = v.empty() ? std::nullopt : whole(v[0]);
      if (!n || *n < 0) return Error{at(no) + ": expected '# Out of bounds values : N OK', got " + shown(text)};
      run_->out_of_bounds = static_cast<long>(*n);
      ended_ = true;
    } else if (run_ && table_ && body.starts_with("Avg bus bandwidth")) {
      const Words v =
          words_of(body.substr(body.find(':') == std::string_view::npos ? body.size() : body.find(':') + 1));
      std::optional<double> bw = v.empty() ? std::nullopt : number(v[0]);
      // A run without rows divides by zero: "-nan".
      if (!bw && !v.empty() && (v[0] == "nan" || v[0] == "-nan")) bw = 0;
      if (!bw || *bw < 0) return Error{at(no) + ": expected '# Avg bus bandwidth    : GB/s', got " + shown(text)};
      run_->avg_busbw_GBps = *bw;
      ended_ = true;
    } else if (run_ && body.starts_with("Collective test concluded:")) {
      if (run_->program.empty()) run_->program = printable(body.substr(body.find(':') + 1));
      close();
    } else if (run_ && body.starts_with("Per-Iteration Report:")) {
      const size_t skips = body.find("skips first ");
      const Words v = words_of(body.substr(skips == std::string_view::npos ? body.size() : skips + 12));
      const std::optional<long long> k = v.empty() ? std::nullopt : whole(v[0]);
      if (k && *k >= 0 && *k < 1'000'000'000) run_->per_iter_skip = static_cast<int>(*k);
    }
    return {};
  }
  // A row starts with its size; anything else here is noise (NCCL INFO, the launcher's output).
  const Words w = words_of(text);
  if (w.empty() || !whole(w[0])) return {};
  if (!run_ || !table_ || ended_) {
    if (w.size() > 1 && whole(w[1]))
      return Error{at(no) + ": a result row outside a table (expected the column header " +
                   std::string(kHeaderExample) + " before it)"};
    return {};
  }
  Result<std::optional<NcclTestsRow>> row = row_of(w, *table_, at(no));
  RETURN_IF_ERROR(row);
  if (*row) {
    (*row)->line = no;
    run_->rows.push_back(std::move(**row));
  }
  return {};
}

Result<NcclTestsLog> Reader::finish() {
  close();
  NcclTestsLog log;
  std::string no_rows, left_out;  // the first of each, for the error when nothing is left
  bool any_table = false;
  for (Done& d : done_) {
    const std::string where = at(d.run.line);
    any_table = any_table || d.table;
    if (!d.table) {
      notes_.push_back(where + ": a run without a results table (it stopped early?), left out");
    } else if (d.run.rows.empty()) {
      notes_.push_back(where + ": a table without rows of a size above 0, left out");
      if (no_rows.empty()) no_rows = where;
    } else if (Verdict v = resolve(d.run); !v.error.empty()) {
      return Error{v.error};
    } else if (v.keep) {
      log.runs.push_back(std::move(d.run));
    } else {
      notes_.push_back(v.note);
      if (left_out.empty()) left_out = v.note;
    }
  }
  if (!any_table)
    return Error{source_ + ": no nccl-tests table found (expected lines like " + std::string(kHeaderExample) +
                 " followed by rows, as all_reduce_perf prints them)"};
  if (log.runs.empty() && !left_out.empty()) return Error{left_out + "; nothing else in the file to use"};
  if (log.runs.empty())
    return Error{no_rows +
                 ": the table has no rows (expected rows like '     1048576        262144     float     sum      -1"
                 "    52.10   20.13   35.22       0 ...' after the column header)"};
  log.notes = std::move(notes_);
  return log;
}

}  // namespace

std::optional<int> nccl_tests_type_bytes(const std::string& type) {
  static const std::map<std::string, int, std::less<>> kBytes = {
      {"int8", 1},   {"uint8", 1}, {"char", 1},     {"f8e4m3", 1}, {"f8e5m2", 1},
      {"fp8", 1},    {"half", 2},  {"bfloat16", 2}, {"float", 4},  {"int32", 4},
      {"uint32", 4}, {"int", 4},   {"double", 8},   {"int64", 8},  {"uint64", 8}};
  auto it = kBytes.find(type);
  return it == kBytes.end() ? std::nullopt : std::optional<int>(it->second);
}

int nccl_tests_comm_ranks(const NcclTestsRun& run) {
  if (run.ranks.empty()) return 0;
  auto zero = std::find_if(run.ranks.begin(), run.ranks.end(), [](const NcclTestsRank& r) { return r.rank == 0; });
  const int group = (zero == run.ranks.end() ? run.ranks.front() : *zero).group;
  return static_cast<int>(
      std::count_if(run.ranks.begin(), run.ranks.end(), [&](const NcclTestsRank& r) { return r.group == group; }));
}

std::string nccl_tests_program(CollectiveOp op) { return std::string(to_string(op)) + "_perf"; }

Result<NcclTestsLog> nccl_tests_log_parse(const std::string& text, const std::string& source) {
  Reader reader(source);
  int no = 0;
  for (size_t begin = 0; begin < text.size();) {
    const size_t end = std::min(text.find('\n', begin), text.size());
    RETURN_IF_ERROR(reader.line(std::string_view(text).substr(begin, end - begin), ++no));
    begin = end + 1;
  }
  return reader.finish();
}

Result<NcclTestsLog> nccl_tests_log_read(const std::string& path) {
  Result<std::string> text = text_read_file(path);
  RETURN_IF_ERROR(text);
  return nccl_tests_log_parse(*text, path);
}

// Line for line what src/util.cu (2.19.6) prints: writeDeviceReport, writeResultHeader, the row
// writers, writeResultFooter, finalizeFooter and writeErrors (an empty line when NCCL has none).
std::string nccl_tests_format(const NcclTestsRun& run) {
  // The log's own name (all_reduce_perf_mpi) when it is the op's, so what is written reads back as it.
  const Program* named = program_of(run.program);
  const std::string program = named && named->op == run.op ? run.program : nccl_tests_program(run.op);
  const bool per_iter =
      std::any_of(run.rows.begin(), run.rows.end(), [](const NcclTestsRow& r) { return r.iter || r.in_place_iter; });
  const bool stamps =
      std::any_of(run.rows.begin(), run.rows.end(), [](const NcclTestsRow& r) { return !r.timestamp.empty(); });
  std::string out;
  if (!run.version.empty())
    appendf(out, "# nccl-tests version %s nccl-headers=%d nccl-library=%d\n", run.version.c_str(), run.nccl_headers,
            run.nccl_library);
  appendf(out, "# Collective test starting: %s\n", program.c_str());
  const bool factor = run.step_factor > 1;
  appendf(out,
          "# nThread %d nGpus %d minBytes %lld maxBytes %lld step: %lld(%s) warmup iters: %d iters: %d agg iters: %d "
          "validation: %d graph: %d unalign: %d\n",
          run.threads, run.gpus_per_proc, static_cast<long long>(run.min_bytes), static_cast<long long>(run.max_bytes),
          factor ? static_cast<long long>(run.step_factor) : static_cast<long long>(run.step_bytes),
          factor ? "factor" : "bytes", run.warmup_iters, run.iters, run.agg_iters, run.validation, run.graph,
          run.unalign);
  if (per_iter) {
    out += "# Per-Iteration Report: CUDA event timing; i_* uses max over process rows";
    if (run.per_iter_skip) appendf(out, "; summary skips first %d iterations", run.per_iter_skip);
    out += " \n";
  }
  out += "#\n# Using devices\n";
  for (const NcclTestsRank& r : run.ranks)
    appendf(out, "#  Rank %2d Group %2d Pid %6ld on %10s device %2d [%s] %s\n", r.rank, r.group, r.pid, r.host.c_str(),
            r.device, r.bus_id.c_str(), r.device_name.c_str());

  const char* time = run.cputime ? "cputime" : "time";
  const int pad = stamps ? 19 : 0;
  const char* label = stamps ? "timestamp" : "";
  const char* units = stamps ? "%Y-%m-%d %H:%M:%S" : "";
  out += "#\n";
  if (per_iter) {
    appendf(out,
            "# %10s  %12s  %8s  %6s  %6s              out-of-place (+ per-iteration)                                "
            "in-place (+ "
            "per-iteration)\n",
            "", "", "", "", "");
    appendf(out,
            "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  "
            "%7s %*s\n",
            "size", "count", "type", "redop", "root", time, "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99",
            "i_cv%", time, "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%", pad, label);
    appendf(out,
            "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  "
            "%7s %*s\n",
            "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)", "(us)",
            "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)", pad, units);
  } else {
    appendf(out, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n", "",
            "", "", "", "");
    appendf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "size", "count", "type",
            "redop", "root", time, "algbw", "busbw", "#wrong", time, "algbw", "busbw", "#wrong", pad, label);
    appendf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "(B)", "(elements)", "",
            "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", pad, units);
  }

  auto body = [&](double time_us, double algbw, double busbw, const std::optional<long>& wrong,
                  const std::optional<NcclTestsIterStats>& it) {
    appendf(out, "  %7s  %6s  %6s", float_str(time_us, 7).c_str(), float_str(algbw, 6).c_str(),
            float_str(busbw, 6).c_str());
    if (wrong)
      appendf(out, "  %6g", static_cast<double>(*wrong));
    else
      out += "    N/A";
    if (per_iter) {
      const NcclTestsIterStats s = it.value_or(NcclTestsIterStats{});
      appendf(out, "  %7s  %7s  %7s  %7s", float_str(s.min_us, 7).c_str(), float_str(s.max_us, 7).c_str(),
              float_str(s.p99_us, 7).c_str(), float_str(s.cv_pct, 7).c_str());
    }
  };
  for (const NcclTestsRow& r : run.rows) {
    appendf(out, "%12lld  %12zu  %8s  %6s  %6i", static_cast<long long>(r.bytes), r.count, r.type.c_str(),
            r.redop.c_str(), r.root);
    body(r.time_us, r.algbw_GBps, r.busbw_GBps, r.wrong, r.iter);
    body(r.in_place_time_us, r.in_place_algbw_GBps, r.in_place_busbw_GBps, r.in_place_wrong, r.in_place_iter);
    if (stamps) appendf(out, "  %19s", r.timestamp.c_str());  // writeTimestamp's %21s, and a space past 19
    out += "\n";
  }
  appendf(out, "# %-20s : %ld %s\n", "Out of bounds values", run.out_of_bounds, run.out_of_bounds ? "FAILED" : "OK");
  appendf(out, "# %-20s : %g %s\n", "Avg bus bandwidth", run.avg_busbw_GBps, "");
  appendf(out, "#\n# Collective test concluded: %s\n#\n\n", program.c_str());
  return out;
}

}  // namespace topoplan
