// A few RV64 instruction encoders for hand-written test programs.
#pragma once

#include "base/types.h"

namespace hpm::test {

constexpr u32 rType(u32 funct7, u32 rs2, u32 rs1, u32 funct3, u32 rd, u32 opcode) {
  return (funct7 << 25) | (rs2 << 20) | (rs1 << 15) | (funct3 << 12) | (rd << 7) | opcode;
}
constexpr u32 iType(i32 imm, u32 rs1, u32 funct3, u32 rd, u32 opcode) {
  return (static_cast<u32>(imm & 0xfff) << 20) | (rs1 << 15) | (funct3 << 12) | (rd << 7) | opcode;
}
constexpr u32 sType(i32 imm, u32 rs2, u32 rs1, u32 funct3, u32 opcode) {
  const u32 u = static_cast<u32>(imm);
  return (((u >> 5) & 0x7f) << 25) | (rs2 << 20) | (rs1 << 15) | (funct3 << 12) |
         ((u & 0x1f) << 7) | opcode;
}
constexpr u32 bType(i32 imm, u32 rs2, u32 rs1, u32 funct3) {
  const u32 u = static_cast<u32>(imm);
  return (((u >> 12) & 1) << 31) | (((u >> 5) & 0x3f) << 25) | (rs2 << 20) | (rs1 << 15) |
         (funct3 << 12) | (((u >> 1) & 0xf) << 8) | (((u >> 11) & 1) << 7) | 0x63;
}
constexpr u32 addi(u32 rd, u32 rs1, i32 imm) {
  return iType(imm, rs1, 0, rd, 0x13);
}
constexpr u32 add(u32 rd, u32 rs1, u32 rs2) {
  return rType(0, rs2, rs1, 0, rd, 0x33);
}
constexpr u32 lui(u32 rd, u32 imm20) {
  return (imm20 << 12) | (rd << 7) | 0x37;
}
constexpr u32 ld(u32 rd, u32 rs1, i32 imm) {
  return iType(imm, rs1, 3, rd, 0x03);
}
constexpr u32 lw(u32 rd, u32 rs1, i32 imm) {
  return iType(imm, rs1, 2, rd, 0x03);
}
constexpr u32 sd(u32 rs2, u32 rs1, i32 imm) {
  return sType(imm, rs2, rs1, 3, 0x23);
}
constexpr u32 sw(u32 rs2, u32 rs1, i32 imm) {
  return sType(imm, rs2, rs1, 2, 0x23);
}
constexpr u32 bne(u32 rs1, u32 rs2, i32 offset) {
  return bType(offset, rs2, rs1, 1);
}
constexpr u32 lrD(u32 rd, u32 rs1) {
  return rType(0x02 << 2, 0, rs1, 3, rd, 0x2f);
}
constexpr u32 scD(u32 rd, u32 rs2, u32 rs1) {
  return rType(0x03 << 2, rs2, rs1, 3, rd, 0x2f);
}
constexpr u32 amoaddW(u32 rd, u32 rs2, u32 rs1) {
  return rType(0, rs2, rs1, 2, rd, 0x2f);
}
constexpr u32 csrrs(u32 rd, u32 csr, u32 rs1) {
  return iType(static_cast<i32>(csr), rs1, 2, rd, 0x73);
}
constexpr u32 csrrw(u32 rd, u32 csr, u32 rs1) {
  return iType(static_cast<i32>(csr), rs1, 1, rd, 0x73);
}
constexpr u32 fdivD(u32 rd, u32 rs1, u32 rs2, u32 rm) {
  return rType(0x0d, rs2, rs1, rm, rd, 0x53);
}
constexpr u32 fmvDX(u32 rd, u32 rs1) {
  return rType(0x79, 0, rs1, 0, rd, 0x53);
}
constexpr u32 fmvXD(u32 rd, u32 rs1) {
  return rType(0x71, 0, rs1, 0, rd, 0x53);
}
constexpr u32 fcvtDL(u32 rd, u32 rs1) {
  return rType(0x69, 2, rs1, 7, rd, 0x53);
}
constexpr u32 kEcall = 0x00000073;
constexpr u32 kEbreak = 0x00100073;
constexpr u32 kFenceI = 0x0000100f;

}  // namespace hpm::test
