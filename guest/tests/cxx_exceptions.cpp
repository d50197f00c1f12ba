// C++ exceptions: throws across many frames (unwinding through DWARF CFI with destructors
// running in order), rethrow with `throw;`, std::exception hierarchy and catch order, nested
// exceptions, exceptions from constructors (partially built objects destroyed), noexcept
// violations avoided, exceptions crossing a C-style function pointer call, std::exception_ptr,
// and the standard library's own throws (at, stoi, bad_alloc, bad_cast).
// With the argument "uncaught" it ends with an uncaught exception: std::terminate prints the
// type and what() on stderr and aborts (SIGABRT).
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

namespace {

std::string trace;

struct Guard {
  explicit Guard(int id) : id_(id) { trace += "+" + std::to_string(id_); }
  ~Guard() { trace += "-" + std::to_string(id_); }
  int id_;
};

struct AppError : std::runtime_error {
  AppError(const std::string& what, int code) : std::runtime_error(what), code_(code) {}
  int code_;
};

[[gnu::noinline]] int deep(int depth, int throw_at) {
  Guard g(depth);
  if (depth == throw_at) throw AppError("thrown at depth " + std::to_string(depth), depth);
  return deep(depth + 1, throw_at) + 1;
}

[[gnu::noinline]] void rethrower() {
  try {
    deep(0, 3);
  } catch (const AppError& e) {
    trace += "[caught " + std::to_string(e.code_) + ", rethrowing]";
    throw;
  }
}

struct Part {
  explicit Part(bool fail) {
    if (fail) throw std::invalid_argument("part failed");
    trace += "part+";
  }
  ~Part() { trace += "part-"; }
};

struct Whole {
  Whole() : a(false), b(false), c(true) {}  // c's constructor throws: b and a are destroyed
  Part a, b, c;
};

extern "C" {
typedef void (*Callback)(int);
}
[[gnu::noinline]] void call_through(Callback cb, int v) {
  cb(v);
}
void throwing_callback(int v) {
  if (v > 2) throw std::out_of_range("callback " + std::to_string(v));
}

const char* classify(int which) {
  try {
    switch (which) {
      case 0: throw std::logic_error("logic");
      case 1: throw std::domain_error("domain");
      case 2: throw std::overflow_error("overflow");
      case 3: throw std::bad_alloc();
      case 4: throw 42;
      case 5: throw std::string("a string");
      case 6: throw 3.5;
      default: return "nothing thrown";
    }
  } catch (const std::domain_error&) {
    return "domain_error (before logic_error)";
  } catch (const std::logic_error&) {
    return "logic_error";
  } catch (const std::runtime_error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return typeid(e) == typeid(std::bad_alloc) ? "bad_alloc via std::exception" : "exception";
  } catch (int v) {
    return v == 42 ? "int 42" : "int";
  } catch (const std::string& s) {
    return s == "a string" ? "std::string" : "string?";
  } catch (...) {
    return "catch-all";
  }
}

struct Base {
  virtual ~Base() = default;
};
struct Derived : Base {};
struct Other : Base {};

}  // namespace

int main(int argc, char** argv) {
  for (int throw_at = 0; throw_at <= 6; throw_at += 3) {
    trace.clear();
    try {
      deep(0, throw_at);
    } catch (const std::exception& e) {
      std::printf("caught: %s | trace %s\n", e.what(), trace.c_str());
    }
  }
  trace.clear();
  try {
    rethrower();
  } catch (const std::runtime_error& e) {
    std::printf("rethrown: %s | trace %s\n", e.what(), trace.c_str());
  }
  trace.clear();
  try {
    Whole w;
  } catch (const std::invalid_argument& e) {
    std::printf("constructor: %s | trace %s\n", e.what(), trace.c_str());
  }
  for (int v = 1; v <= 4; ++v) {
    try {
      call_through(throwing_callback, v);
      std::printf("callback %d ok\n", v);
    } catch (const std::out_of_range& e) {
      std::printf("through callback: %s\n", e.what());
    }
  }
  for (int i = 0; i <= 7; ++i) std::printf("classify %d: %s\n", i, classify(i));

  // Nested exceptions and exception_ptr.
  try {
    try {
      throw std::runtime_error("inner");
    } catch (...) {
      std::throw_with_nested(std::logic_error("outer"));
    }
  } catch (const std::logic_error& e) {
    std::printf("nested outer: %s\n", e.what());
    try {
      std::rethrow_if_nested(e);
    } catch (const std::runtime_error& inner) {
      std::printf("nested inner: %s\n", inner.what());
    }
  }
  std::exception_ptr saved;
  try {
    throw AppError("saved for later", 7);
  } catch (...) {
    saved = std::current_exception();
  }
  try {
    std::rethrow_exception(saved);
  } catch (const AppError& e) {
    std::printf("exception_ptr: %s code %d\n", e.what(), e.code_);
  }

  // The standard library's own exceptions.
  std::vector<int> v(3);
  try {
    v.at(5) = 1;
  } catch (const std::out_of_range&) {
    std::printf("vector::at threw out_of_range\n");
  }
  try {
    (void)std::stoi("not a number");
  } catch (const std::invalid_argument&) {
    std::printf("stoi threw invalid_argument\n");
  }
  try {
    (void)std::stoi("99999999999999999999");
  } catch (const std::out_of_range&) {
    std::printf("stoi threw out_of_range\n");
  }
  try {
    std::size_t huge = static_cast<std::size_t>(1) << 62;
    auto p = std::make_unique<char[]>(huge);
    std::printf("allocated 2^62 bytes?! %d\n", p != nullptr);
  } catch (const std::bad_alloc& e) {
    std::printf("new threw bad_alloc: %s\n", e.what());
  }
  Derived d;
  Base& b = d;
  try {
    (void)dynamic_cast<Other&>(b);
  } catch (const std::bad_cast& e) {
    std::printf("dynamic_cast threw bad_cast\n");
  }

  if (argc > 1 && std::strcmp(argv[1], "uncaught") == 0) {
    std::fflush(stdout);
    throw AppError("nobody catches this", 99);
  }
  return 0;
}
