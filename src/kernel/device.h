// Devices the kernel exposes to the guest as files under /dev/hpm/: the performance-counter
// units' register windows. A guest opens one and mmaps it; its loads and stores to the mapping
// are register accesses at the cycle of the instruction (so a counter read is a plain load, as
// on Blue Gene). An ioctl registers the calling thread to receive the unit's interrupts as a
// signal. The node layer provides the devices (it owns the units); the kernel routes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "stats/probe.h"

namespace hpm {

// ioctl(fd, kHpmIoctlSetSignal, signo): interrupts of this device go to the calling thread as
// signal `signo` (0: no longer). The siginfo has si_code kHpmSiCounter and, after si_signo,
// si_errno and si_code, an int unit id, an int counter index and the 64-bit cycle.
inline constexpr u64 kHpmIoctlSetSignal = 0x48500001;
inline constexpr i32 kHpmSiCounter = 0x4850;

class DeviceProvider {
 public:
  virtual ~DeviceProvider() = default;
  // The device at a guest path ("/dev/hpm/upc"), or -1.
  virtual int findDevice(std::string_view path) const = 0;
  // Size of its register window in bytes (a multiple of 4096).
  virtual u64 windowBytes(int device) const = 0;
  // The bus its registers are on, which a core's L2 routes its uncached accesses to (Blue
  // Gene/P's device or network bus: mem/device_buses.h, docs/timing.md "Device buses").
  virtual probe::DeviceBus bus(int device) const = 0;
  // Register accesses at the cycle of the instruction being executed.
  virtual u64 readRegister(int device, u64 offset) = 0;
  virtual void writeRegister(int device, u64 offset, u64 value) = 0;
  // A store narrower than a register: the low `size` bytes (1, 2 or 4) of `value` at byte
  // `offset`, inside one 64-bit register. It never reads the register (a read may have side
  // effects: popping a FIFO, clearing a status, acknowledging an overflow). Each device says
  // what such a store does to each register; by default it is ignored (the registers are 64
  // bits wide and take whole stores only).
  virtual void writeNarrow(int device, u64 offset, unsigned size, u64 value) {
    (void)device, (void)offset, (void)size, (void)value;
  }
  // The device's interrupts go to thread `tid` as `signo` (0 stops them).
  virtual void setInterruptTarget(int device, int tid, int signo) = 0;
  // The process mapped the device's register window (mmap): from now on its instructions may
  // access the registers (the functional mode counts instructions only once a counter unit is
  // in use: node/simulation.cpp).
  virtual void windowMapped(int device) { (void)device; }
  // The kernel set up the handler's frame for one of the device's interrupt signals at cycle
  // `at`: the handler runs from there (the L2 and I/O units of UPC-Q hold their counting from
  // then until the handler acknowledges).
  virtual void interruptDelivered(int device, Cycle at) {
    (void)device;
    (void)at;
  }
};

// Several providers behind one (the node's counter units, the message unit): device d of the
// k-th provider is device k * kStride + d. Interrupts are the counter units' only, and their
// delivery goes to every provider with the unit's own id (the siginfo's), which the others
// ignore.
class DeviceChain final : public DeviceProvider {
 public:
  static constexpr int kStride = 1 << 16;
  void add(DeviceProvider* provider) { providers_.push_back(provider); }
  bool empty() const { return providers_.empty(); }

  int findDevice(std::string_view path) const override {
    for (std::size_t k = 0; k < providers_.size(); ++k) {
      const int d = providers_[k]->findDevice(path);
      if (d >= 0) return static_cast<int>(k) * kStride + d;
    }
    return -1;
  }
  u64 windowBytes(int device) const override { return of(device)->windowBytes(device % kStride); }
  probe::DeviceBus bus(int device) const override { return of(device)->bus(device % kStride); }
  u64 readRegister(int device, u64 offset) override {
    return of(device)->readRegister(device % kStride, offset);
  }
  void writeRegister(int device, u64 offset, u64 value) override {
    of(device)->writeRegister(device % kStride, offset, value);
  }
  void writeNarrow(int device, u64 offset, unsigned size, u64 value) override {
    of(device)->writeNarrow(device % kStride, offset, size, value);
  }
  void setInterruptTarget(int device, int tid, int signo) override {
    of(device)->setInterruptTarget(device % kStride, tid, signo);
  }
  void windowMapped(int device) override { of(device)->windowMapped(device % kStride); }
  void interruptDelivered(int unit, Cycle at) override {
    for (DeviceProvider* p : providers_) p->interruptDelivered(unit, at);
  }

 private:
  DeviceProvider* of(int device) const {
    return providers_[static_cast<std::size_t>(device / kStride)];
  }
  std::vector<DeviceProvider*> providers_;
};

}  // namespace hpm
