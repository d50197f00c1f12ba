// C++ static initialisation and termination: namespace-scope objects with constructors run
// before main in definition order, function-local statics are built on first use (once),
// atexit handlers and static destructors run after main in reverse order of registration /
// completion of construction (interleaved as the standard requires), __attribute__((constructor
// /destructor)) functions with priorities, and std::at_quick_exit is not involved. Every step
// prints a line, so the order is the output.
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

struct Noisy {
  explicit Noisy(const char* name) : name_(name) { std::printf("construct %s\n", name_.c_str()); }
  ~Noisy() { std::printf("destroy %s\n", name_.c_str()); }
  std::string name_;
};

__attribute__((constructor(101))) void early_ctor() {
  std::printf("constructor(101)\n");
}
__attribute__((constructor(200))) void late_ctor() {
  std::printf("constructor(200)\n");
}
__attribute__((destructor(101))) void early_dtor() {
  std::printf("destructor(101)\n");
}
__attribute__((destructor(200))) void late_dtor() {
  std::printf("destructor(200)\n");
}

Noisy first("global first");
Noisy second("global second");

Noisy& lazy() {
  static Noisy instance("function-local static");
  return instance;
}

void handler_one() {
  std::printf("atexit handler one\n");
}
void handler_two() {
  std::printf("atexit handler two\n");
}

int counted() {
  static int calls = 0;
  return ++calls;
}

}  // namespace

Noisy third("global third");

int main() {
  std::printf("main begins\n");
  std::atexit(handler_one);
  lazy();
  lazy();
  std::atexit(handler_two);
  static Noisy in_main("static in main");
  int last = 0;
  for (int i = 0; i < 5; ++i) last = counted();
  std::printf("counted() called %d times; main returns\n", last);
  return 0;
}
