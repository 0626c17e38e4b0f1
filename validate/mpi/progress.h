// Where every rank is: each rank tells rank 0 each stage it enters (a sequence number and its
// text), over a communicator of its own, so that when a step outlives the timeout rank 0 can say
// which ranks fell behind and where, while the others wait in a collective. Needs
// MPI_THREAD_MULTIPLE: rank 0's watchdog thread reads the reports while its main thread is blocked.
#pragma once

#include <mpi.h>

#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace topoplan {

class Progress {
 public:
  struct Where {
    long seq = -1;  // stages entered so far, the same sequence on every rank; -1: none reported
    std::string stage;
    std::string exited;  // why the rank said it exits, "" while it has not
  };

  // Collective over the world. `threaded`: MPI gave MPI_THREAD_MULTIPLE (else reports stay local).
  explicit Progress(bool threaded);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // This rank enters `stage` (main thread).
  void enter(const std::string& stage);
  // This rank is about to exit on its own: rank 0 learns it before the launcher stops the job.
  void exiting(const std::string& why);
  // Rank 0: every rank's last report (any thread).
  std::vector<Where> where();

  // The ranks that fell behind: those at the lowest sequence when some are further; empty when
  // every rank is at the same stage (a collective that never finished on any of them).
  static std::vector<int> behind(const std::vector<Where>& where);
  // After the launcher stopped the job: the ranks that said they exit, in rank order; else every
  // rank short of the furthest stage (one of them exited, or was the last to be stopped).
  static std::vector<int> stopped(const std::vector<Where>& where);

 private:
  // Rank 0, under m_: one report, waiting for it or not; whether there was one.
  bool receive(bool wait);
  void drain();
  bool threaded_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  long seq_ = 0;
  int finished_ = 0;  // rank 0: ranks whose last report came
  std::mutex m_;
  std::vector<Where> where_;
  struct Sent {
    std::string text;
    MPI_Request request;
  };
  std::deque<Sent> sent_;
};

}  // namespace topoplan
