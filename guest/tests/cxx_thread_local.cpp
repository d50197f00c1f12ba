// thread_local objects with constructors and destructors. Each thread constructs its own
// instances on first use (lazily: a thread that never uses the namespace-scope ones never
// constructs them; GCC constructs a translation unit's namespace-scope thread_locals together,
// in declaration order, at the first use of any), destroys them at thread exit in the reverse
// order of construction, and sees its own values; a function-local thread_local is constructed
// once per thread, at the first call; destructors of thread_local objects run before the
// thread's join completes. Each thread logs its events in
// its own entry, printed in thread order, so the output does not depend on the schedule.
#include <cstdio>
#include <mutex>
#include <string>
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

constexpr int kThreads = 5;
std::mutex log_mutex;
std::vector<std::string> logs(kThreads + 1);  // entry kThreads: the main thread
thread_local int my_index = kThreads;

void note(const std::string& event) {
  std::lock_guard lock(log_mutex);
  logs[my_index] += event + ";";
}

struct Tracked {
  explicit Tracked(std::string name) : name_(std::move(name)) { note("construct " + name_); }
  ~Tracked() { note("destroy " + name_ + " value=" + std::to_string(value)); }
  Tracked(const Tracked&) = delete;
  Tracked& operator=(const Tracked&) = delete;
  std::string name_;
  int value = 0;
};

thread_local Tracked first("first");
thread_local Tracked second("second");

int counter_in_function() {
  thread_local Tracked local("local");
  return ++local.value;
}

void worker(int index) {
  my_index = index;
  note("start");
  // Odd threads use the namespace-scope objects (`second` first), even threads only the
  // function-local one.
  if (index % 2) {
    second.value = index * 10;
    first.value = index;
  }
  for (int i = 0; i <= index; ++i) counter_in_function();
  note("end");
}

}  // namespace

int main() {
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) threads.emplace_back(worker, i);
  for (auto& t : threads) t.join();
  // Every thread's destructors have run by now (join waits for the thread's exit).
  for (int i = 0; i < kThreads; ++i) std::printf("thread %d: %s\n", i, logs[i].c_str());
  first.value = 99;
  std::printf("main: first.value %d, second constructed in main: %s\n", first.value,
              logs[kThreads].find("construct second") != std::string::npos ? "yes" : "no");
  for (int i = 0; i < kThreads; ++i) {
    const std::string& log = logs[i];
    const std::string odd =
        "start;construct first;construct second;construct local;end;"
        "destroy local value=" +
        std::to_string(i + 1) + ";destroy second value=" + std::to_string(i * 10) +
        ";destroy first value=" + std::to_string(i) + ";";
    const std::string even =
        "start;construct local;end;destroy local value=" + std::to_string(i + 1) + ";";
    CHECK(log == (i % 2 ? odd : even));
  }
  return 0;
}
