// Handoff: the slot between two stages of the revision pipeline (errdex
// index --revs): values arrive in order, a producer runs at most one value
// ahead of its consumer, and closing from either side ends both.
#include "core/threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace errdex {
namespace {

TEST(Handoff, ValuesArriveInOrderAndTheProducerStaysOneAhead) {
  Handoff<int> slot;
  std::atomic<int> started{0};  // values the producer began to make
  std::atomic<int> taken{0};
  std::atomic<int> most_ahead{0};
  std::thread producer([&] {
    for (int i = 0; i < 200; ++i) {
      if (!slot.WaitEmpty()) return;
      int ahead = ++started - taken;
      if (ahead > most_ahead) most_ahead = ahead;
      if (!slot.Put(i)) return;
    }
    slot.Close();
  });
  std::vector<int> got;
  while (std::optional<int> v = slot.Take()) {
    got.push_back(*v);
    ++taken;
    if (got.size() % 7 == 0) std::this_thread::yield();
  }
  producer.join();
  ASSERT_EQ(got.size(), 200u);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(got[static_cast<size_t>(i)], i);
  // The value being made and the one waiting in the slot: never a third.
  EXPECT_LE(most_ahead, 2);
}

TEST(Handoff, ClosingWakesAProducerWaitingForRoom) {
  Handoff<int> slot;
  ASSERT_TRUE(slot.Put(1));
  std::atomic<bool> woke{false};
  std::thread producer([&] {
    EXPECT_FALSE(slot.WaitEmpty());  // the consumer stopped: no room ever comes
    EXPECT_FALSE(slot.Put(2));
    woke = true;
  });
  slot.Close();
  producer.join();
  EXPECT_TRUE(woke);
  // What was put before the close is still taken, then nothing.
  EXPECT_EQ(slot.Take(), std::optional<int>(1));
  EXPECT_EQ(slot.Take(), std::nullopt);
}

TEST(Handoff, ClosingWakesAConsumerWaitingForAValue) {
  Handoff<int> slot;
  std::optional<int> got = 5;
  std::thread consumer([&] { got = slot.Take(); });
  slot.Close();
  consumer.join();
  EXPECT_EQ(got, std::nullopt);
}

}  // namespace
}  // namespace errdex
