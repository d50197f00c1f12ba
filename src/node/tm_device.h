// BG/Q's L2 speculation as a device of the node (/dev/hpm/tm): the register window through which
// guest code (guest/include/hpm/tm.h, guest/lib/tm) begins, commits and aborts its hardware
// thread's transaction, as BG/Q's TM runtime reached the L2's speculation through CNK (Wang et
// al., PACT 2012). The window's layout is tmreg (node/speculation.h); the model is Speculation.
//
// The device only forwards: the driver (Simulation::Impl) takes the registers' checkpoint after
// a begin and restores it when the transaction rolls back (`Hooks`). The node has it on BG/Q's
// node (UPC-Q's) in the modes with a timing model; in the functional mode and under qemu the
// guest finds no device, and its library runs every transaction irrevocably under a lock.
#pragma once

#include <string_view>

#include "hart/memory.h"
#include "kernel/device.h"
#include "node/speculation.h"

namespace hpm {

class TmDevice final : public DeviceProvider, public Speculation::LineMemory {
 public:
  static constexpr std::string_view kPath = "/dev/hpm/tm";

  // What the driver does for the device.
  class Hooks {
   public:
    virtual ~Hooks() = default;
    // The hardware thread whose instruction accesses the window.
    virtual u32 runningThread() const = 0;
    // hw's transaction began: its registers after the begin's load are its checkpoint.
    virtual void began(u32 hw) = 0;
    // hw's transaction rolled back with `code` (its memory already restored).
    virtual void rolledBack(u32 hw, u64 code) = 0;
  };

  TmDevice(GuestMemory& memory, Speculation& speculation, Hooks& hooks)
      : memory_(memory), speculation_(speculation), hooks_(hooks) {
    speculation_.setMemory(this);
  }

  // DeviceProvider
  int findDevice(std::string_view path) const override { return path == kPath ? 0 : -1; }
  u64 windowBytes(int) const override { return tmreg::kWindowBytes; }
  // (BG/Q's, whose node routes no access by bus: the L2's registers, on the device bus.)
  probe::DeviceBus bus(int) const override { return probe::DeviceBus::kDevice; }
  u64 readRegister(int, u64 offset) override {
    const u32 hw = hooks_.runningThread();
    if (offset == tmreg::kBegin) {
      const bool nested = speculation_.speculating(hw);
      if (!speculation_.begin(hw)) return tmreg::kCapacity;  // no speculation ID free
      if (!nested) hooks_.began(hw);
      return 0;
    }
    if (offset == tmreg::kStatus) return speculation_.speculating(hw) ? 1 : 0;
    return 0;
  }
  void writeRegister(int, u64 offset, u64 value) override {
    const u32 hw = hooks_.runningThread();
    if (offset == tmreg::kCommit) {
      speculation_.commit(hw);
    } else if (offset == tmreg::kAbort && speculation_.speculating(hw)) {
      const u64 code = tmreg::kExplicit | value << 8;
      speculation_.rollback(hw, code);
      hooks_.rolledBack(hw, code);
    }
  }
  void setInterruptTarget(int, int, int) override {}

  // Speculation::LineMemory: guest memory.
  bool readLine(u64 addr, u8* out, u32 bytes) override { return memory_.read(addr, out, bytes); }
  bool writeLine(u64 addr, const u8* in, u32 bytes) override {
    return memory_.write(addr, in, bytes);
  }

 private:
  GuestMemory& memory_;
  Speculation& speculation_;
  Hooks& hooks_;
};

}  // namespace hpm
