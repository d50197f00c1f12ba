#include "stats/record.h"

#include <bit>

#include "base/error.h"
#include "base/wire.h"

namespace hpm::stats {
namespace {

// A visit: one tag byte, then its fields (base/wire.h: recordings travel between processes of
// one build).
enum class Tag : char {
  kCounter = 'c',
  kReal = 'r',
  kText = 't',
  kBeginGroup = 'g',
  kEndGroup = 'G',
  kBeginList = 'l',
  kEndList = 'L'
};

// A recorded measure: its kind and unit as written (one build writes and reads them).
Measure measure(wire::Reader& r) {
  const Kind kind = r.get<Kind>();
  return Measure{.kind = kind, .unit = r.get<Unit>()};
}

}  // namespace

void Recorder::counter(std::string_view name, u64 value, Measure m, std::string_view doc) {
  w_.put(Tag::kCounter);
  w_.bytes(name);
  w_.put(value);
  w_.put(m.kind);
  w_.put(m.unit);
  w_.bytes(doc);
}

void Recorder::real(std::string_view name, double value, Measure m, std::string_view doc) {
  w_.put(Tag::kReal);
  w_.bytes(name);
  w_.put(std::bit_cast<u64>(value));
  w_.put(m.kind);
  w_.put(m.unit);
  w_.bytes(doc);
}

void Recorder::text(std::string_view name, std::string_view value, std::string_view doc) {
  w_.put(Tag::kText);
  w_.bytes(name);
  w_.bytes(value);
  w_.bytes(doc);
}

void Recorder::beginGroup(std::string_view name) {
  w_.put(Tag::kBeginGroup);
  w_.bytes(name);
}

void Recorder::endGroup() {
  w_.put(Tag::kEndGroup);
}

void Recorder::beginList(std::string_view name) {
  w_.put(Tag::kBeginList);
  w_.bytes(name);
}

void Recorder::endList() {
  w_.put(Tag::kEndList);
}

void replay(std::string_view bytes, Visitor& v) {
  wire::Reader r(bytes);
  while (!r.done()) {
    const Tag tag = r.get<Tag>();
    switch (tag) {
      case Tag::kCounter: {
        const std::string_view name = r.bytes();
        const u64 value = r.get<u64>();
        const Measure m = measure(r);
        v.counter(name, value, m, r.bytes());
        break;
      }
      case Tag::kReal: {
        const std::string_view name = r.bytes();
        const double value = std::bit_cast<double>(r.get<u64>());
        const Measure m = measure(r);
        v.real(name, value, m, r.bytes());
        break;
      }
      case Tag::kText: {
        const std::string_view name = r.bytes();
        const std::string_view value = r.bytes();
        v.text(name, value, r.bytes());
        break;
      }
      case Tag::kBeginGroup: v.beginGroup(r.bytes()); break;
      case Tag::kEndGroup: v.endGroup(); break;
      case Tag::kBeginList: v.beginList(r.bytes()); break;
      case Tag::kEndList: v.endList(); break;
      default: fail(ExitCode::kInternal, "statistics recording: unknown tag {}", int(tag));
    }
  }
}

}  // namespace hpm::stats
