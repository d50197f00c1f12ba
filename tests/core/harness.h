// Test harness of the timing model: hand-encoded RV64 instructions, loops unrolled into the
// instruction streams a hart would retire, and the driver loop the simulator uses (the hardware
// thread with the earliest issue time issues next; ties go round-robin).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "base/types.h"
#include "core/node_timing.h"
#include "core/timing_params.h"
#include "isa/decode.h"
#include "stats/stats.h"

namespace hpm::timing::test {

// ---- Encoders ----
constexpr u32 rType(u32 f7, u32 rs2, u32 rs1, u32 f3, u32 rd, u32 opc) {
  return (f7 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | opc;
}
constexpr u32 iType(i32 imm, u32 rs1, u32 f3, u32 rd, u32 opc) {
  return (static_cast<u32>(imm & 0xfff) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | opc;
}
constexpr u32 sType(i32 imm, u32 rs2, u32 rs1, u32 f3, u32 opc) {
  const u32 u = static_cast<u32>(imm);
  return (((u >> 5) & 0x7f) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | ((u & 0x1f) << 7) |
         opc;
}
constexpr u32 bType(i32 imm, u32 rs2, u32 rs1, u32 f3) {
  const u32 u = static_cast<u32>(imm);
  return (((u >> 12) & 1) << 31) | (((u >> 5) & 0x3f) << 25) | (rs2 << 20) | (rs1 << 15) |
         (f3 << 12) | (((u >> 1) & 0xf) << 8) | (((u >> 11) & 1) << 7) | 0x63;
}
constexpr u32 addi(u32 rd, u32 rs1, i32 imm) {
  return iType(imm, rs1, 0, rd, 0x13);
}
constexpr u32 add(u32 rd, u32 rs1, u32 rs2) {
  return rType(0, rs2, rs1, 0, rd, 0x33);
}
constexpr u32 mul(u32 rd, u32 rs1, u32 rs2) {
  return rType(1, rs2, rs1, 0, rd, 0x33);
}
constexpr u32 div(u32 rd, u32 rs1, u32 rs2) {
  return rType(1, rs2, rs1, 4, rd, 0x33);
}
constexpr u32 ld(u32 rd, u32 rs1, i32 imm) {
  return iType(imm, rs1, 3, rd, 0x03);
}
constexpr u32 sd(u32 rs2, u32 rs1, i32 imm) {
  return sType(imm, rs2, rs1, 3, 0x23);
}
constexpr u32 sw(u32 rs2, u32 rs1, i32 imm) {
  return sType(imm, rs2, rs1, 2, 0x23);
}
constexpr u32 fld(u32 rd, u32 rs1, i32 imm) {
  return iType(imm, rs1, 3, rd, 0x07);
}
constexpr u32 fsd(u32 rs2, u32 rs1, i32 imm) {
  return sType(imm, rs2, rs1, 3, 0x27);
}
constexpr u32 faddD(u32 rd, u32 rs1, u32 rs2) {
  return rType(0x01, rs2, rs1, 7, rd, 0x53);
}
constexpr u32 fmulD(u32 rd, u32 rs1, u32 rs2) {
  return rType(0x09, rs2, rs1, 7, rd, 0x53);
}
constexpr u32 fdivD(u32 rd, u32 rs1, u32 rs2) {
  return rType(0x0d, rs2, rs1, 7, rd, 0x53);
}
constexpr u32 fdivS(u32 rd, u32 rs1, u32 rs2) {
  return rType(0x0c, rs2, rs1, 7, rd, 0x53);
}
constexpr u32 fsqrtS(u32 rd, u32 rs1) {
  return rType(0x2c, 0, rs1, 7, rd, 0x53);
}
constexpr u32 fsqrtD(u32 rd, u32 rs1) {
  return rType(0x2d, 0, rs1, 7, rd, 0x53);
}
constexpr u32 fsgnjD(u32 rd, u32 rs1, u32 rs2) {
  return rType(0x11, rs2, rs1, 0, rd, 0x53);
}
constexpr u32 fcvtDL(u32 rd, u32 rs1) {
  return rType(0x69, 2, rs1, 7, rd, 0x53);
}
constexpr u32 fmaddD(u32 rd, u32 rs1, u32 rs2, u32 rs3) {
  return (rs3 << 27) | (1u << 25) | (rs2 << 20) | (rs1 << 15) | (7u << 12) | (rd << 7) | 0x43;
}
constexpr u32 beq(u32 rs1, u32 rs2, i32 off) {
  return bType(off, rs2, rs1, 0);
}
constexpr u32 bne(u32 rs1, u32 rs2, i32 off) {
  return bType(off, rs2, rs1, 1);
}
constexpr u32 jal(u32 rd, i32 off) {
  const u32 u = static_cast<u32>(off);
  return (((u >> 20) & 1) << 31) | (((u >> 1) & 0x3ff) << 21) | (((u >> 11) & 1) << 20) |
         (((u >> 12) & 0xff) << 12) | (rd << 7) | 0x6f;
}
constexpr u32 jalr(u32 rd, u32 rs1, i32 imm) {
  return iType(imm, rs1, 0, rd, 0x67);
}
constexpr u32 amoaddD(u32 rd, u32 rs2, u32 rs1) {
  return rType(0, rs2, rs1, 3, rd, 0x2f);
}
constexpr u32 lrD(u32 rd, u32 rs1) {
  return rType(0x02 << 2, 0, rs1, 3, rd, 0x2f);
}
constexpr u32 csrrs(u32 rd, u32 csr, u32 rs1) {
  return iType(static_cast<i32>(csr), rs1, 2, rd, 0x73);
}
constexpr u32 kFence = 0x0ff0000f;
constexpr u32 kEcall = 0x00000073;

inline isa::DecodedInst dec(u32 word) {
  const isa::DecodedInst d = isa::decode(word);
  EXPECT_NE(d.op, isa::Op::kIllegal) << std::hex << word;
  return d;
}

// One retired instruction, as the hart reports it.
struct Step {
  isa::DecodedInst d;
  u64 pc = 0;
  u64 next_pc = 0;
  u64 addr = 0;
};

// A loop: `body` at base, base + 4, ...; its last instruction is the loop branch back to the
// first, taken in every iteration but the last. Inner conditional branches go where `taken`
// says; jal always jumps. `addr` gives memory instructions their addresses and integer divides
// their serial divider steps.
struct Loop {
  std::vector<u32> body;
  u64 base = 0x10000;
  u64 iterations = 1;
  std::function<u64(u64 iter, u32 index)> addr;
  std::function<bool(u64 iter, u32 index)> taken;
};

struct Stream {
  std::vector<Step> steps;
  std::vector<std::size_t> iteration_start;  // index of each iteration's first step
};

inline Stream unroll(const Loop& l) {
  Stream s;
  const u32 n = static_cast<u32>(l.body.size());
  std::vector<isa::DecodedInst> decoded;
  for (u32 w : l.body) decoded.push_back(dec(w));
  u64 iter = 0;
  u32 i = 0;
  s.iteration_start.push_back(0);
  while (i < n) {
    const isa::DecodedInst& d = decoded[i];
    Step st{d, l.base + 4 * u64{i}, 0, 0};
    const isa::InstClass cls = d.info().cls;
    if (cls == isa::InstClass::kLoad || cls == isa::InstClass::kStore ||
        cls == isa::InstClass::kFpLoad || cls == isa::InstClass::kFpStore ||
        cls == isa::InstClass::kAtomic) {
      st.addr = l.addr ? l.addr(iter, i) : 0x800000;
    } else if (cls == isa::InstClass::kIntDiv && l.addr) {
      st.addr = l.addr(iter, i);  // a serial divider's steps (NodeTiming::issueTime)
    }
    u32 next = i + 1;
    if (cls == isa::InstClass::kBranch) {
      const bool t = i == n - 1 ? iter + 1 < l.iterations : l.taken && l.taken(iter, i);
      if (t) next = static_cast<u32>(static_cast<i64>(i) + d.imm / 4);
    } else if (d.op == isa::Op::kJal) {
      next = static_cast<u32>(static_cast<i64>(i) + d.imm / 4);
    }
    st.next_pc = l.base + 4 * u64{next};
    s.steps.push_back(st);
    if (i == n - 1 && next == 0) {
      ++iter;
      s.iteration_start.push_back(s.steps.size());
    }
    i = next;
  }
  return s;
}

// Issues one hardware thread's stream; returns the issue cycle of each step.
inline std::vector<Cycle> runOne(NodeTiming& m, u32 h, const std::vector<Step>& steps) {
  std::vector<Cycle> at;
  at.reserve(steps.size());
  for (const Step& s : steps) {
    const Cycle t = m.issueTime(h, s.d, s.pc, s.addr);
    EXPECT_GE(t, m.hartTime(h));
    m.issue(h, s.d, s.pc, s.next_pc, s.addr, t);
    at.push_back(t);
  }
  return at;
}

// The simulator's driver: among the hardware threads with work left, the one whose next
// instruction issues earliest goes next; equal times go round-robin. Returns each thread's
// issue cycles. Also checks that issue cycles never decrease across the node.
inline std::vector<std::vector<Cycle>> runMany(NodeTiming& m, const std::vector<u32>& harts,
                                               const std::vector<const Stream*>& streams) {
  const std::size_t n = harts.size();
  std::vector<std::vector<Cycle>> at(n);
  std::vector<std::size_t> pos(n, 0);
  std::size_t rr = 0;
  Cycle last = 0;
  for (;;) {
    std::size_t best = n;
    Cycle best_t = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t j = (rr + k) % n;
      if (pos[j] >= streams[j]->steps.size()) continue;
      const Step& s = streams[j]->steps[pos[j]];
      const Cycle t = m.issueTime(harts[j], s.d, s.pc, s.addr);
      if (best == n || t < best_t) {
        best = j;
        best_t = t;
      }
    }
    if (best == n) break;
    const Step& s = streams[best]->steps[pos[best]];
    EXPECT_GE(best_t, last);
    last = best_t;
    m.issue(harts[best], s.d, s.pc, s.next_pc, s.addr, best_t);
    at[best].push_back(best_t);
    ++pos[best];
    rr = (best + 1) % n;
  }
  return at;
}

// Cycles between the first instruction of iteration a and that of iteration b.
inline Cycle span(const Stream& s, const std::vector<Cycle>& at, std::size_t a, std::size_t b) {
  return at[s.iteration_start[b]] - at[s.iteration_start[a]];
}

// A one-core, one-thread machine with bgq defaults otherwise.
inline TimingParams oneThread() {
  TimingParams p;
  p.cores = 1;
  p.threads_per_core = 1;
  return p;
}

// One thread fetching one 4-byte group a cycle, 2 cycles from fetch to issue (as CVA6 does).
inline TimingParams fourByteFetch() {
  TimingParams p = oneThread();
  p.core.fetch_group_bytes = 4;
  p.core.fetch_to_issue = 2;
  p.core.mispredict_penalty = 6;
  return p;
}

// Loop `l` on one thread of a fresh model: cycles per iteration over iterations [warm, warm + n)
// (the earlier ones warm the caches and the predictor). Fails the test unless the total is a
// whole number of cycles per iteration, and returns that number.
inline Cycle steadyPeriod(const TimingParams& p, Loop l, u64 warm = 30, u64 n = 40) {
  l.iterations = warm + n + 1;
  NodeTiming m(p);
  const Stream s = unroll(l);
  const std::vector<Cycle> at = runOne(m, 0, s.steps);
  const Cycle total = span(s, at, warm, warm + n);
  EXPECT_EQ(total % n, 0u) << "total " << total << " over " << n << " iterations";
  return total / n;
}

// The statistics as JSON.
inline nlohmann::json statsJson(const NodeTiming& m) {
  stats::JsonWriter w;
  m.visitStats(w);
  return w.result();
}

}  // namespace hpm::timing::test
