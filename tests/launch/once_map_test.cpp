// OnceMap, the module cache's map: a value is made once however many threads ask for it, makes
// of different keys run at the same time (no lock held while one runs), and a make that throws
// leaves the key to be made again.
#include "common/once_map.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace jitgemm {
namespace {

using namespace std::chrono_literals;

TEST(OnceMap, ManyThreadsAskingForOneKeyMakeItOnce) {
  OnceMap<std::string, int> map;
  std::atomic<int> makes{0};
  constexpr int kThreads = 8;
  std::vector<const int*> got(kThreads, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      got[t] = &map.get("kernel", [&] {
        ++makes;
        std::this_thread::sleep_for(20ms);  // a compile: the others arrive while it runs
        return 42;
      });
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(makes.load(), 1);
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_NE(got[t], nullptr);
    EXPECT_EQ(got[t], got[0]) << "thread " << t;  // the same value, not copies
    EXPECT_EQ(*got[t], 42);
  }
  EXPECT_EQ(map.size(), 1u);
}

TEST(OnceMap, MakesOfDifferentKeysRunAtTheSameTime) {
  // Each make waits (up to 10 s) for the other to have started: with a lock held during a
  // make, the second would never start and both would time out.
  OnceMap<int, bool> map;
  std::promise<void> a_started, b_started;
  std::shared_future<void> a_seen = a_started.get_future().share(), b_seen = b_started.get_future().share();
  auto make_a = [&] {
    a_started.set_value();
    return b_seen.wait_for(10s) == std::future_status::ready;
  };
  auto make_b = [&] {
    b_started.set_value();
    return a_seen.wait_for(10s) == std::future_status::ready;
  };
  bool a = false, b = false;
  std::thread ta([&] { a = map.get(1, make_a); });
  std::thread tb([&] { b = map.get(2, make_b); });
  ta.join();
  tb.join();
  EXPECT_TRUE(a) << "key 1's make never saw key 2's start";
  EXPECT_TRUE(b) << "key 2's make never saw key 1's start";
  EXPECT_EQ(map.size(), 2u);
}

TEST(OnceMap, AFailedMakeLeavesTheKeyToBeMadeAgain) {
  OnceMap<std::string, int> map;
  EXPECT_THROW(map.get("k", []() -> int { throw std::runtime_error("compile error"); }), std::runtime_error);
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.get("k", [] { return 7; }), 7);
  EXPECT_EQ(map.get("k", []() -> int { throw std::logic_error("made twice"); }), 7);  // kept: not made again
  EXPECT_EQ(map.size(), 1u);
}

TEST(OnceMap, AWaiterOfAFailedMakeMakesTheValueItself) {
  OnceMap<std::string, int> map;
  std::promise<void> started, fail_now;
  std::shared_future<void> fail_signal = fail_now.get_future().share();
  std::string first_error;
  std::thread first([&] {
    try {
      map.get("k", [&]() -> int {
        started.set_value();
        fail_signal.wait_for(10s);
        throw std::runtime_error("compile error");
      });
    } catch (const std::runtime_error& e) {
      first_error = e.what();
    }
  });
  started.get_future().wait();  // the first make is running
  int second = 0;
  std::thread waiter([&] { second = map.get("k", [] { return 5; }); });
  std::this_thread::sleep_for(50ms);  // the waiter is (most likely) waiting for the first make
  fail_now.set_value();
  first.join();
  waiter.join();
  EXPECT_EQ(first_error, "compile error");  // only its own caller sees the exception
  EXPECT_EQ(second, 5);
  EXPECT_EQ(map.size(), 1u);
}

}  // namespace
}  // namespace jitgemm
