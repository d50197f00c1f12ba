// Virtual calls and templates: a class hierarchy with virtual and pure virtual functions,
// multiple and virtual inheritance (this-pointer adjusting thunks), calls through base pointers
// and member function pointers, dynamic_cast and typeid, CRTP, variadic templates, fold
// expressions, constexpr evaluation, template specialisation and SFINAE/concepts, std::function
// and lambdas with captures.
#include <concepts>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

namespace {

struct Shape {
  virtual ~Shape() = default;
  virtual double area() const = 0;
  virtual std::string name() const { return "shape"; }
  std::string describe() const { return name() + " area " + std::to_string(area()); }
};

struct Rect : Shape {
  Rect(double w, double h) : w_(w), h_(h) {}
  double area() const override { return w_ * h_; }
  std::string name() const override { return "rect"; }
  double w_, h_;
};

struct Square final : Rect {
  explicit Square(double s) : Rect(s, s) {}
  std::string name() const override { return "square"; }
};

struct Circle : Shape {
  explicit Circle(double r) : r_(r) {}
  double area() const override { return 3.25 * r_ * r_; }  // a fixed "pi" keeps it exact
  double r_;
};

// Multiple and virtual inheritance: calls through the second base adjust `this`.
struct Named {
  virtual ~Named() = default;
  virtual const char* label() const { return "named"; }
  int tag = 1;
};
struct Counted {
  virtual ~Counted() = default;
  virtual int count() const { return 0; }
  int hits = 2;
};
struct Both : Named, Counted {
  const char* label() const override { return "both"; }
  int count() const override { return tag + hits + 100; }
};
struct VBase {
  virtual ~VBase() = default;
  int v = 7;
  virtual int get() const { return v; }
};
struct Left : virtual VBase {
  int get() const override { return v * 2; }
};
struct Right : virtual VBase {};
struct Diamond : Left, Right {};

template <typename Derived>
struct Counter {
  int total() const { return static_cast<const Derived*>(this)->step() * 10; }
};
struct Stepper : Counter<Stepper> {
  int step() const { return 4; }
};

template <typename... Ts>
auto sum_all(Ts... xs) {
  return (xs + ... + 0);
}

template <typename T>
struct TypeName {
  static const char* get() { return "other"; }
};
template <>
struct TypeName<int> {
  static const char* get() { return "int"; }
};
template <>
struct TypeName<double> {
  static const char* get() { return "double"; }
};

template <std::integral T>
const char* kind(T) {
  return "integral";
}
template <std::floating_point T>
const char* kind(T) {
  return "floating";
}

constexpr unsigned long fib(unsigned n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
static_assert(fib(20) == 6765);

template <typename T, std::size_t N>
constexpr std::size_t array_size(const T (&)[N]) {
  return N;
}

}  // namespace

int main() {
  std::vector<std::unique_ptr<Shape>> shapes;
  shapes.push_back(std::make_unique<Rect>(2.0, 3.5));
  shapes.push_back(std::make_unique<Square>(1.5));
  shapes.push_back(std::make_unique<Circle>(2.0));
  double total = 0;
  for (const auto& s : shapes) {
    std::printf("%s | dynamic_cast<Rect*> %s | typeid %s\n", s->describe().c_str(),
                dynamic_cast<Rect*>(s.get()) ? "yes" : "no",
                typeid(*s) == typeid(Square) ? "Square" : "not Square");
    total += s->area();
  }
  std::printf("total area %.4f\n", total);

  Both both;
  Counted* c = &both;
  Named* n = &both;
  std::printf("through bases: %s %d; cross cast %s\n", n->label(), c->count(),
              dynamic_cast<Named*>(c) != nullptr ? dynamic_cast<Named*>(c)->label() : "null");
  Diamond dia;
  VBase* vb = &dia;
  std::printf("virtual base: %d %d\n", vb->get(), static_cast<Right&>(dia).get());

  int (Counted::*pm)() const = &Counted::count;
  std::printf("member function pointer: %d\n", (both.*pm)());
  std::printf("crtp: %d\n", Stepper{}.total());
  std::printf("fold: %d %.2f\n", sum_all(1, 2, 3, 4), sum_all(0.5, 1.25));
  std::printf("specialisation: %s %s %s\n", TypeName<int>::get(), TypeName<double>::get(),
              TypeName<char>::get());
  std::printf("concepts: %s %s\n", kind(3u), kind(2.0f));
  constexpr unsigned long f30 = fib(30);
  std::printf("constexpr fib(30)=%lu runtime fib(25)=%lu\n", f30, fib(25));
  int arr[17] = {};
  std::printf("array_size=%zu\n", array_size(arr));

  int captured = 5;
  std::function<int(int)> add = [captured](int x) { return x + captured; };
  std::function<int(int)> twice = [&add](int x) { return add(add(x)); };
  std::vector<std::function<int(int)>> chain = {add, twice, [](int x) { return x * x; }};
  int x = 1;
  for (auto& fn : chain) x = fn(x);
  std::printf("std::function chain: %d\n", x);
  auto generic = [](auto a, auto b) { return a * b; };
  std::printf("generic lambda: %d %.3f\n", generic(6, 7), generic(1.5, 2.5));
  return 0;
}
