#include "validate/mpi/progress.h"

#include <algorithm>
#include <cstdlib>

namespace topoplan {
namespace {

constexpr int kTag = 7;
const std::string kDone = "done";  // a report has a sequence number first
const std::string kExit = "exit ";

}  // namespace

Progress::Progress(bool threaded) : threaded_(threaded) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (threaded_) MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
  if (rank_ == 0) where_.resize(static_cast<size_t>(n));
}

Progress::~Progress() {
  if (!threaded_) return;
  // Collective: each rank's last report says it is done (MPI keeps one sender's messages in
  // order), and rank 0 takes every report before the communicator goes.
  std::lock_guard<std::mutex> lock(m_);
  int n = 0;
  MPI_Comm_size(comm_, &n);
  if (rank_ == 0) {
    while (finished_ < n - 1) receive(true);
  } else {
    sent_.push_back({kDone, MPI_REQUEST_NULL});
    MPI_Isend(sent_.back().text.data(), static_cast<int>(sent_.back().text.size()), MPI_CHAR, 0, kTag, comm_,
              &sent_.back().request);
    for (Sent& s : sent_) MPI_Wait(&s.request, MPI_STATUS_IGNORE);
  }
  MPI_Comm_free(&comm_);
}

void Progress::enter(const std::string& stage) {
  std::lock_guard<std::mutex> lock(m_);
  ++seq_;
  const std::string text = std::to_string(seq_) + " " + stage;
  if (rank_ == 0) {
    where_[0] = {seq_, stage};
    if (threaded_) drain();
    return;
  }
  if (!threaded_) return;
  // Finished sends first, so the queue holds only what is in flight.
  while (!sent_.empty()) {
    int done = 0;
    MPI_Test(&sent_.front().request, &done, MPI_STATUS_IGNORE);
    if (!done) break;
    sent_.pop_front();
  }
  sent_.push_back({text, MPI_REQUEST_NULL});
  Sent& s = sent_.back();
  MPI_Isend(s.text.data(), static_cast<int>(s.text.size()), MPI_CHAR, 0, kTag, comm_, &s.request);
}

void Progress::exiting(const std::string& why) {
  std::lock_guard<std::mutex> lock(m_);
  if (rank_ == 0) {
    where_[0].exited = why;
    return;
  }
  if (!threaded_) return;
  // Blocking: a small message leaves eagerly, so it is rank 0's before this process is gone.
  std::string text = kExit + why;
  MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, kTag, comm_);
}

bool Progress::receive(bool wait) {
  MPI_Status st;
  if (wait) {
    MPI_Probe(MPI_ANY_SOURCE, kTag, comm_, &st);
  } else {
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, kTag, comm_, &flag, &st);
    if (!flag) return false;
  }
  int length = 0;
  MPI_Get_count(&st, MPI_CHAR, &length);
  std::string text(static_cast<size_t>(length), '\0');
  MPI_Recv(text.data(), length, MPI_CHAR, st.MPI_SOURCE, kTag, comm_, MPI_STATUS_IGNORE);
  if (text == kDone) {
    ++finished_;
    return true;
  }
  if (text.starts_with(kExit)) {
    where_[static_cast<size_t>(st.MPI_SOURCE)].exited = text.substr(kExit.size());
    return true;
  }
  const size_t space = text.find(' ');
  Where w{std::strtol(text.c_str(), nullptr, 10), space == std::string::npos ? "" : text.substr(space + 1)};
  Where& at = where_[static_cast<size_t>(st.MPI_SOURCE)];
  if (w.seq > at.seq) {
    at.seq = w.seq;
    at.stage = std::move(w.stage);
  }
  return true;
}

void Progress::drain() {
  while (receive(false)) {}
}

std::vector<Progress::Where> Progress::where() {
  std::lock_guard<std::mutex> lock(m_);
  if (rank_ == 0 && threaded_) drain();
  return where_;
}

std::vector<int> Progress::behind(const std::vector<Where>& where) {
  if (where.empty()) return {};
  auto [lo, hi] =
      std::minmax_element(where.begin(), where.end(), [](const Where& a, const Where& b) { return a.seq < b.seq; });
  std::vector<int> out;
  if (lo->seq == hi->seq) return out;
  for (size_t r = 0; r < where.size(); ++r)
    if (where[r].seq == lo->seq) out.push_back(static_cast<int>(r));
  return out;
}

std::vector<int> Progress::stopped(const std::vector<Where>& where) {
  std::vector<int> out;
  for (size_t r = 0; r < where.size(); ++r)
    if (!where[r].exited.empty()) out.push_back(static_cast<int>(r));
  if (!out.empty() || where.empty()) return out;
  const long furthest =
      std::max_element(where.begin(), where.end(), [](const Where& a, const Where& b) { return a.seq < b.seq; })->seq;
  for (size_t r = 0; r < where.size(); ++r)
    if (where[r].seq < furthest) out.push_back(static_cast<int>(r));
  return out;
}

}  // namespace topoplan
