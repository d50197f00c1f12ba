#include "isa/decode.h"

#include <gtest/gtest.h>

namespace hpm::isa {
namespace {

std::string dis(u32 raw, u64 pc = 0x1000) {
  return disassemble(decode(raw), pc);
}

TEST(Decode, BaseIntegerInstructions) {
  EXPECT_EQ(dis(0x00a00513), "addi a0, zero, 10");  // li a0, 10
  EXPECT_EQ(dis(0x40b50533), "sub a0, a0, a1");
  EXPECT_EQ(dis(0x00053503), "ld a0, 0(a0)");
  EXPECT_EQ(dis(0xfea43423), "sd a0, -24(s0)");
  EXPECT_EQ(dis(0x02b50533), "mul a0, a0, a1");
  EXPECT_EQ(dis(0x4015551b), "sraiw a0, a0, 1");
  EXPECT_EQ(dis(0x03f51513), "slli a0, a0, 63");
  EXPECT_EQ(dis(0x00000073), "ecall");
  EXPECT_EQ(dis(0x0000100f), "fence.i");
  EXPECT_EQ(dis(0xc0002573), "csrrs a0, cycle, zero");
}

TEST(Decode, BranchAndJumpTargetsAreRelativeToPc) {
  EXPECT_EQ(dis(0x00b50463, 0x1000), "beq a0, a1, 0x1008");
  EXPECT_EQ(dis(0xff5ff06f, 0x1000), "jal zero, 0xff4");
}

TEST(Decode, CompressedExpandToBaseInstructions) {
  const DecodedInst li = decode(0x4529);  // c.li a0, 10
  EXPECT_EQ(li.op, Op::kAddi);
  EXPECT_EQ(li.length, 2);
  EXPECT_EQ(li.imm, 10);
  EXPECT_EQ(dis(0x8082), "jalr zero, 0(ra)");  // c.ret
  EXPECT_EQ(dis(0x1141), "addi sp, sp, -16");  // c.addi sp, -16
  EXPECT_EQ(dis(0xe406), "sd ra, 8(sp)");      // c.sdsp
  EXPECT_EQ(dis(0x60a2), "ld ra, 8(sp)");      // c.ldsp
  EXPECT_EQ(dis(0x852e), "add a0, zero, a1");  // c.mv a0, a1
  EXPECT_EQ(dis(0x9002), "ebreak");            // c.ebreak
}

TEST(Decode, ReservedEncodingsAreIllegal) {
  EXPECT_EQ(decode(0x0000).op, Op::kIllegal);                   // all-zero halfword
  EXPECT_EQ(decode(0xffffffff).op, Op::kIllegal);               // long encoding
  EXPECT_EQ(decode(0x4002).op, Op::kIllegal);                   // c.lwsp x0
  EXPECT_EQ(decode(0x8002).op, Op::kIllegal);                   // c.jr x0
  EXPECT_EQ(decode(0x6101).op, Op::kIllegal);                   // c.addi16sp with zero immediate
  EXPECT_EQ(decode(0x10500073).op, Op::kIllegal);               // wfi is privileged
  EXPECT_EQ(decode(0x02a5d553 | (5u << 12)).op, Op::kIllegal);  // fdiv with rm=5
}

TEST(Decode, FloatingPointFormsCarryRoundingMode) {
  const DecodedInst d = decode(0x02b57553);  // fadd.d fa0, fa0, fa1 (dyn)
  EXPECT_EQ(d.op, Op::kFaddD);
  EXPECT_EQ(d.rm, 7);
  EXPECT_EQ(dis(0x02b57553), "fadd.d fa0, fa0, fa1");
  EXPECT_EQ(dis(0xc2251553), "fcvt.l.d a0, fa0, rtz");
  EXPECT_EQ(dis(0x6ab57543), "fmadd.d fa0, fa0, fa1, fa3");
}

}  // namespace
}  // namespace hpm::isa
