// The L1P's list prefetchers and stream prefetcher's control as a device of the node
// (/dev/hpm/l1p): the register window through which guest code (guest/include/l1p/pprefetch.h
// and sprefetch.h, guest/lib/l1p) configures, starts and stops its hardware thread's list
// prefetcher, and sets its core's stream prefetcher's policy and depths, as BG/Q's SPI did
// through the L1P's MMIO registers. A list register reaches the list prefetcher of the hardware
// thread that makes the access (mem::l1plist has the layout; docs/timing.md "The list
// prefetcher"); L1P_CFG_PF_USR (mem::l1pcfg::kPfUsr, at BG/Q's offset) the stream prefetcher of
// its core (docs/timing.md "The stream prefetcher"). The lists themselves are guest memory, which
// the device reads and writes for the memory system (mem::ListMemory).
//
// The node has it in the modes with a timing model only: in the functional mode there are no
// caches, and the guest finds no such device (its library then reports the prefetcher absent,
// as under qemu).
#pragma once

#include <functional>
#include <string_view>

#include "kernel/device.h"
#include "kernel/kernel.h"
#include "mem/list_prefetcher.h"
#include "mem/memory_system.h"

namespace hpm {

class L1pDevice final : public DeviceProvider, public mem::ListMemory {
 public:
  static constexpr std::string_view kPath = "/dev/hpm/l1p";
  // `thread()` is the hardware thread running when a register is accessed.
  L1pDevice(Kernel& kernel, mem::MemorySystem& memory, std::function<u32()> thread)
      : kernel_(kernel), memory_(memory), thread_(std::move(thread)) {
    memory_.setListMemory(this);
  }

  // DeviceProvider
  int findDevice(std::string_view path) const override { return path == kPath ? 0 : -1; }
  u64 windowBytes(int) const override { return mem::l1plist::kWindowBytes; }
  // (BG/Q's, whose node routes no access by bus: a core unit's registers, on the device bus.)
  probe::DeviceBus bus(int) const override { return probe::DeviceBus::kDevice; }
  u64 readRegister(int, u64 offset) override {
    if (offset == mem::l1pcfg::kPfUsr) return memory_.streamControlRead(thread_());
    return memory_.listRead(thread_(), offset);
  }
  void writeRegister(int, u64 offset, u64 value) override {
    if (offset == mem::l1pcfg::kPfUsr) {
      memory_.streamControlWrite(thread_(), value);
      return;
    }
    memory_.listWrite(thread_(), offset, value);
  }
  void setInterruptTarget(int, int, int) override {}

  // mem::ListMemory: guest memory, with the guest's permissions.
  bool read32(u64 addr, u32& value) override {
    return kernel_.memory().read(addr, &value, sizeof value);
  }
  bool write32(u64 addr, u32 value) override {
    return kernel_.memory().write(addr, &value, sizeof value);
  }

 private:
  Kernel& kernel_;
  mem::MemorySystem& memory_;
  std::function<u32()> thread_;
};

}  // namespace hpm
