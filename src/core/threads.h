// Work shared by a few threads that each take the next item themselves.
#pragma once

#include <thread>
#include <vector>

namespace errdex {

// Runs `work()` on `jobs` threads, the caller's among them, and returns
// when every one has: `work` pulls its own items (an atomic counter), so
// uneven items do not leave a thread idle while another has a queue.
template <typename Work>
void OnThreads(int jobs, Work work) {
  std::vector<std::thread> threads;
  for (int j = 1; j < jobs; ++j) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
}

}  // namespace errdex
