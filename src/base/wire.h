// Bytes between host processes (cluster/host_link.h, stats/record.h): numbers in the host's order
// and length-prefixed strings. Both ends run the same build, so no byte-order or version fields.
#pragma once

#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "base/error.h"
#include "base/types.h"

namespace hpm::wire {

class Writer {
 public:
  template <class T>
  requires std::is_trivially_copyable_v<T>
  void put(const T& v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out_.append(b, sizeof(T));
  }
  void bytes(std::string_view s) {
    put(u64{s.size()});
    out_.append(s);
  }
  // Bytes without a length: the reader must know how many (Reader::raw).
  void raw(std::string_view s) { out_.append(s); }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <class T>
  requires std::is_trivially_copyable_v<T> T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, in_.data(), sizeof(T));
    in_.remove_prefix(sizeof(T));
    return v;
  }
  std::string_view bytes() { return raw(get<u64>()); }
  std::string_view raw(u64 n) {
    need(n);
    const std::string_view s = in_.substr(0, n);
    in_.remove_prefix(n);
    return s;
  }
  bool done() const { return in_.empty(); }

 private:
  void need(u64 n) const {
    if (in_.size() < n) fail(ExitCode::kInternal, "bytes between processes: a message cut short");
  }
  std::string_view in_;
};

}  // namespace hpm::wire
