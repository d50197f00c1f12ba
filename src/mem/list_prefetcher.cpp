#include "mem/list_prefetcher.h"

namespace hpm::mem {

using namespace l1plist;

u64 ListPrefetcher::read(u64 offset) const {
  switch (offset) {
    case kCtrl: return ctrl_;
    case kStatus: return status_;
    case kMaxTol: return maxtol_;
    case kReadBase: return read_base_;
    case kWriteBase: return write_base_;
    case kSize: return size_;
    case kReadPos: return read_pos_;
    case kWritePos: return write_pos_;
    default: return 0;
  }
}

ListPrefetcher::Change ListPrefetcher::write(u64 offset, u64 value, ListMemory& memory) {
  switch (offset) {
    case kCtrl: {
      const u64 old = ctrl_;
      const bool was = (old & kStart) != 0;
      const bool now = (value & kStart) != 0;
      ctrl_ = value;
      if (now && !was) {
        read_pos_ = write_pos_ = requested_ = mismatch_run_ = 0;
        status_ = 0;
        return Change::kStarted;
      }
      if (!now && was) {
        // The recorded list ends after its last entry (when it has room for the mark).
        if ((old & kInhibit) == 0 && write_pos_ < entries()) {
          memory.write32(write_base_ + write_pos_ * kEntryBytes, kEndMark);
        }
        status_ |= kFinished;
        return Change::kStopped;
      }
      return Change::kNone;
    }
    case kStatus: status_ &= ~value; break;
    case kMaxTol: maxtol_ = value; break;
    case kReadBase: read_base_ = value; break;
    case kWriteBase: write_base_ = value; break;
    case kSize: size_ = value; break;
    default: break;
  }
  return Change::kNone;
}

bool ListPrefetcher::readEntry(u64 i, ListMemory& memory, u32& value) const {
  return i < entries() && memory.read32(read_base_ + i * kEntryBytes, value) && value != kEndMark;
}

void ListPrefetcher::onMiss(u64 line, ListMemory& memory, ListOutcome& out) {
  // (Field by field: `lines` keeps its capacity from miss to miss.)
  out.compared = out.mismatch = out.abandoned = out.overflow = out.overrun = false;
  out.skip = 0;
  out.lines.clear();
  // Recording.
  if ((ctrl_ & kInhibit) == 0 && (status_ & kMaxLength) == 0) {
    if (write_pos_ < entries() &&
        memory.write32(write_base_ + write_pos_ * kEntryBytes, static_cast<u32>(line))) {
      ++write_pos_;
    } else {
      status_ |= kMaxLength;
      out.overflow = true;
    }
  }
  // Replay.
  if ((ctrl_ & kLoad) == 0 || (status_ & (kAbandoned | kEndOfList)) != 0) return;
  out.compared = true;
  const u64 high = line & ~u64{0xffffffff};
  u32 entry = 0;
  for (u32 k = 0; k < kWindow; ++k) {
    if (!readEntry(read_pos_ + k, memory, entry)) {
      if (k == 0) status_ |= kEndOfList;
      break;
    }
    if ((high | entry) != line) continue;
    out.skip = k;
    out.overrun = read_pos_ + k >= requested_;
    read_pos_ += k + 1;
    mismatch_run_ = 0;
    // Request the lines of the entries up to depth() past the position, each once.
    if (requested_ < read_pos_) requested_ = read_pos_;
    const u64 last = read_pos_ + depth();
    while (requested_ < last && readEntry(requested_, memory, entry)) {
      out.lines.push_back(high | entry);
      ++requested_;
    }
    return;
  }
  if ((status_ & kEndOfList) != 0) {
    out.compared = false;  // the list had ended: nothing was compared
    return;
  }
  out.mismatch = true;
  if (++mismatch_run_ > maxtol_) {
    status_ |= kAbandoned;
    out.abandoned = true;
  }
}

}  // namespace hpm::mem
