// The C++ thread library: std::thread with std::mutex and std::lock_guard/unique_lock,
// std::condition_variable (a bounded queue with notify_one and notify_all, wait_for timing
// out), std::async with launch::async and launch::deferred, std::promise/std::future
// (values and exceptions across threads), std::shared_mutex, std::atomic counters,
// std::jthread with stop tokens, std::latch, std::barrier and std::counting_semaphore
// (C++20, built on atomic waits, i.e. futexes), std::call_once and std::recursive_mutex.
#include <atomic>
#include <barrier>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <future>
#include <latch>
#include <mutex>
#include <numeric>
#include <semaphore>
#include <shared_mutex>
#include <stdexcept>
#include <stop_token>
#include <thread>
#include <vector>

#define CHECK(cond)                                                                        \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fflush(stdout);                                                                 \
      std::fprintf(stderr, "CHECK failed at %s:%d: %s\n", __FILE_NAME__, __LINE__, #cond); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

namespace {

class BoundedQueue {
 public:
  explicit BoundedQueue(std::size_t capacity) : capacity_(capacity) {}
  void push(int v) {
    std::unique_lock lock(mutex_);
    not_full_.wait(lock, [&] { return items_.size() < capacity_; });
    items_.push_back(v);
    not_empty_.notify_one();
  }
  // Returns false when closed and drained.
  bool pop(int& v) {
    std::unique_lock lock(mutex_);
    not_empty_.wait(lock, [&] { return !items_.empty() || closed_; });
    if (items_.empty()) return false;
    v = items_.front();
    items_.pop_front();
    not_full_.notify_one();
    return true;
  }
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    not_empty_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable not_full_, not_empty_;
  std::deque<int> items_;
  std::size_t capacity_;
  bool closed_ = false;
};

long parallel_sum(const std::vector<int>& v, std::size_t parts) {
  std::vector<std::future<long>> futures;
  const std::size_t chunk = v.size() / parts;
  for (std::size_t p = 0; p < parts; ++p) {
    const auto first = v.begin() + static_cast<long>(p * chunk);
    const auto last = p + 1 == parts ? v.end() : first + static_cast<long>(chunk);
    futures.push_back(
        std::async(std::launch::async, [first, last] { return std::accumulate(first, last, 0L); }));
  }
  long total = 0;
  for (auto& f : futures) total += f.get();
  return total;
}

}  // namespace

int main() {
  // Threads and a mutex.
  {
    std::mutex m;
    long counter = 0;
    std::vector<std::thread> threads;
    for (int i = 0; i < 6; ++i) {
      threads.emplace_back([&] {
        for (int k = 0; k < 2000; ++k) {
          std::lock_guard lock(m);
          ++counter;
        }
      });
    }
    for (auto& t : threads) t.join();
    std::printf("std::thread + std::mutex: counter %ld\n", counter);
    CHECK(counter == 12000);
  }
  // A bounded queue with condition variables.
  {
    BoundedQueue q(4);
    std::atomic<long> consumed{0};
    std::atomic<int> items{0};
    std::vector<std::thread> consumers;
    for (int i = 0; i < 3; ++i) {
      consumers.emplace_back([&] {
        int v;
        while (q.pop(v)) {
          consumed += v;
          ++items;
        }
      });
    }
    std::vector<std::thread> producers;
    for (int p = 0; p < 2; ++p) {
      producers.emplace_back([&q, p] {
        for (int i = 1; i <= 500; ++i) q.push(p * 1000 + i);
      });
    }
    for (auto& t : producers) t.join();
    q.close();
    for (auto& t : consumers) t.join();
    std::printf("condition_variable queue: %d items, sum %ld\n", items.load(), consumed.load());
    CHECK(items == 1000 && consumed == 2 * (500L * 501 / 2) + 500L * 1000);
  }
  // wait_for times out.
  {
    std::mutex m;
    std::condition_variable cv;
    std::unique_lock lock(m);
    const auto start = std::chrono::steady_clock::now();
    const bool satisfied = cv.wait_for(lock, std::chrono::milliseconds(6), [] { return false; });
    const auto waited = std::chrono::steady_clock::now() - start;
    std::printf("wait_for with a false predicate: %s, waited at least 6 ms: %d\n",
                satisfied ? "true" : "timeout", waited >= std::chrono::milliseconds(6));
    CHECK(!satisfied && waited >= std::chrono::milliseconds(6));
  }
  // std::async and futures.
  {
    std::vector<int> v(10000);
    std::iota(v.begin(), v.end(), 1);
    const long sum = parallel_sum(v, 4);
    const auto main_id = std::this_thread::get_id();
    auto deferred = std::async(std::launch::deferred, [] { return std::this_thread::get_id(); });
    auto async = std::async(std::launch::async, [] { return std::this_thread::get_id(); });
    const bool deferred_here = deferred.get() == main_id;
    const bool async_elsewhere = async.get() != main_id;
    std::printf(
        "std::async: sum %ld, deferred runs in the caller: %d, async in another thread: %d\n", sum,
        deferred_here, async_elsewhere);
    CHECK(sum == 50005000 && deferred_here && async_elsewhere);
    std::promise<int> promise;
    std::future<int> future = promise.get_future();
    std::thread setter([&promise] { promise.set_value(17); });
    const int value = future.get();
    setter.join();
    std::promise<int> failing;
    std::future<int> failed = failing.get_future();
    std::thread thrower([&failing] {
      try {
        throw std::runtime_error("from another thread");
      } catch (...) {
        failing.set_exception(std::current_exception());
      }
    });
    std::string message;
    try {
      failed.get();
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    thrower.join();
    std::printf("promise: value %d, exception \"%s\"\n", value, message.c_str());
    CHECK(value == 17 && message == "from another thread");
  }
  // shared_mutex: readers together, writers alone.
  {
    std::shared_mutex sm;
    long a = 0, b = 0;
    std::atomic<int> broken{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 6; ++i) {
      threads.emplace_back([&, i] {
        for (int k = 0; k < 300; ++k) {
          if (i < 2) {
            std::unique_lock lock(sm);
            ++a;
            ++b;
          } else {
            std::shared_lock lock(sm);
            if (a != b) ++broken;
          }
        }
      });
    }
    for (auto& t : threads) t.join();
    std::printf("shared_mutex: a=%ld b=%ld, broken invariant seen %d times\n", a, b, broken.load());
    CHECK(a == 600 && b == 600 && broken == 0);
  }
  // jthread and stop tokens.
  {
    std::atomic<long> loops{0};
    std::atomic<bool> running{false};
    std::jthread worker([&](std::stop_token stop) {
      running = true;
      while (!stop.stop_requested()) {
        ++loops;
        std::this_thread::yield();
      }
    });
    while (!running) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    worker.request_stop();
    worker.join();
    std::printf("jthread stopped on request: %d\n", loops.load() > 0);
    CHECK(loops > 0);
  }
  // latch, barrier, counting_semaphore.
  {
    constexpr int kThreads = 5;
    std::latch started(kThreads);
    std::atomic<int> phase_sum{0};
    int completions = 0;
    std::barrier barrier(kThreads, [&completions]() noexcept { ++completions; });
    std::counting_semaphore<2> slots(2);
    std::atomic<int> inside{0}, max_inside{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] {
        started.count_down();
        started.wait();
        for (int phase = 0; phase < 3; ++phase) {
          phase_sum += phase * 10 + i;
          barrier.arrive_and_wait();
        }
        slots.acquire();
        const int now = ++inside;
        int seen = max_inside.load();
        while (now > seen && !max_inside.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        --inside;
        slots.release();
      });
    }
    for (auto& t : threads) t.join();
    std::printf(
        "latch + barrier: %d completions, phase sum %d; semaphore kept at most 2 inside: %d\n",
        completions, phase_sum.load(), max_inside.load() <= 2);
    // Sum over 5 threads and 3 phases of phase * 10 + thread: 5 * 30 + 3 * 10.
    CHECK(completions == 3 && phase_sum == 180 && max_inside >= 1 && max_inside <= 2);
  }
  // call_once and recursive_mutex.
  {
    std::once_flag once;
    std::atomic<int> calls{0};
    std::recursive_mutex rm;
    int depth_reached = 0;
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) {
      threads.emplace_back([&] {
        std::call_once(once, [&] { ++calls; });
        std::lock_guard outer(rm);
        std::lock_guard inner(rm);
        ++depth_reached;
      });
    }
    for (auto& t : threads) t.join();
    std::printf("call_once ran %d time(s); recursive_mutex nested locks in %d threads\n",
                calls.load(), depth_reached);
    CHECK(calls == 1 && depth_reached == 4);
  }
  return 0;
}
