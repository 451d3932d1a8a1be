// Work shared by a few threads that each take the next item themselves, and
// the handoff between the stages of a pipeline of threads.
#pragma once

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
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

// One value at a time handed from one thread to the next stage of a
// pipeline. The producer waits for the slot to be empty before it starts
// the next value's work, so a fast stage runs at most one value ahead of a
// slow one (each value in flight holds memory). Closing wakes both sides:
// a stage that fails, or a consumer that stops, ends the pipeline.
template <typename T>
class Handoff {
 public:
  // Blocks until the slot is empty; false once closed.
  bool WaitEmpty() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return closed_ || !value_; });
    return !closed_;
  }
  // False (and `value` dropped) once closed.
  bool Put(T value) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return closed_ || !value_; });
    if (closed_) return false;
    value_.emplace(std::move(value));
    changed_.notify_all();
    return true;
  }
  // Blocks until a value is there; nullopt once closed with none left.
  std::optional<T> Take() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return closed_ || value_; });
    std::optional<T> out = std::move(value_);
    value_.reset();
    changed_.notify_all();
    return out;
  }
  void Close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<T> value_;
  bool closed_ = false;
};

}  // namespace errdex
