// The text forms of a layout file, one file each (docs/layout-formats.md): a host list, Open MPI's
// rankfile, the per-rank env file and the torchrun commands that `plan --emit` writes. Each says
// which GPU every rank it names runs on; planner/layout.cc tells the forms apart and checks the
// whole (every rank once, every GPU at most once). Internal to planner/.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "topology/cluster.h"

namespace topoplan {

// What a text form placed: by rank, the GPU (kNoVertex where no line named the rank) and the line
// that placed it, for errors and for explain.
struct LayoutLines {
  std::vector<VertexId> gpus;
  std::vector<int> lines;
  // Places `rank` (growing the lists); an error text when another line already placed it.
  std::string place(int rank, VertexId gpu, int line);
};

// A word of a line and where it starts, so that errors can name the column.
struct LayoutWord {
  std::string_view text;
  size_t column;  // 1-based
};
std::vector<LayoutWord> layout_words(std::string_view line);

// Calls `each(line number, the line without its '#' comment, its words)` for every line with
// words; stops at the first error text `each` returns.
std::string lines_each(const std::string& text,
                       const std::function<std::string(int, std::string_view, const std::vector<LayoutWord>&)>& each);

// "no host 'h0001', did you mean 'h001'?"
std::string layout_no_host(const Cluster& c, const std::string& name);

// A whole number from the text, or -1 (not a number, a sign, or beyond INT_MAX).
int layout_number(std::string_view s);

// The most ranks a file may place: the job's, or, when the file decides, the cluster's GPUs.
struct RankCap {
  int ranks = 0;
  bool of_job = true;
  // "the job has 128 ranks (0-127)" or "the cluster has 256 GPUs".
  std::string text() const;
};

// Each parser; errors are "where:line: what".
using LayoutTextParse = Result<LayoutLines> (*)(const std::string& text, const std::string& where, const Cluster& c,
                                                const RankCap& cap);
Result<LayoutLines> host_list_parse(const std::string& text, const std::string& where, const Cluster& c,
                                    const RankCap& cap);
Result<LayoutLines> ompi_rankfile_parse(const std::string& text, const std::string& where, const Cluster& c,
                                        const RankCap& cap);
Result<LayoutLines> ranks_env_parse(const std::string& text, const std::string& where, const Cluster& c,
                                    const RankCap& cap);
Result<LayoutLines> torchrun_parse(const std::string& text, const std::string& where, const Cluster& c,
                                   const RankCap& cap);

// Whether a line's words are each form's: "rank 0=h001 slot=0:0-13", "0 h001 CUDA_VISIBLE_DEVICES=3",
// "h001: CUDA_VISIBLE_DEVICES=0,1 torchrun ...".
bool ompi_rankfile_detect(const std::vector<LayoutWord>& first);
bool ranks_env_detect(const std::vector<LayoutWord>& first);
bool torchrun_detect(const std::vector<LayoutWord>& first);

}  // namespace topoplan
