// The guest's header for the collective network and the global barrier (guest/include/hpm/col.h)
// against the devices' and the model's declarations (net/collective_unit.h, namespace col;
// net/collective.h, namespace colhdr; net/collective_params.h): every register offset, the
// packet's shape, the ALU's opcodes and the header's fields. The checks are static_asserts, so a
// header that drifts fails the build.
#include <gtest/gtest.h>

#include "guest/include/hpm/col.h"
#include "net/collective_unit.h"

namespace hpm::net {
namespace {

static_assert(HPM_COL_VCS == kColVcs && HPM_COL_VC_STRIDE == col::kVcStride);
static_assert(HPM_COL_DATA_INJ == col::kDataInj && HPM_COL_HDR_INJ == col::kHdrInj &&
              HPM_COL_DATA_REC == col::kDataRec && HPM_COL_HDR_REC == col::kHdrRec &&
              HPM_COL_STATUS == col::kStatus);
static_assert(HPM_COL_NODE == col::kNode && HPM_COL_NODES == col::kNodes &&
              HPM_COL_PAYLOAD_BYTES == col::kPayloadBytes && HPM_COL_MPI == col::kMpi &&
              HPM_COL_NOTIFY_ADDR == col::kNotifyAddr && HPM_COL_EVENTS == col::kEvents);
static_assert(HPM_GI_CHANNELS == GlobalBarrier::kChannels && HPM_GI_ARM == col::kGiArm &&
              HPM_GI_DONE == col::kGiDone);
static_assert(HPM_COL_PACKET_BYTES == kColPayloadBytes &&
              HPM_COL_PACKET_WORDS * 8 == kColPayloadBytes &&
              HPM_COL_FIFO_PACKETS == kColFifoPackets);
static_assert(HPM_COL_OP_NONE == colhdr::kOpNone && HPM_COL_OP_OR == colhdr::kOpOr &&
              HPM_COL_OP_AND == colhdr::kOpAnd && HPM_COL_OP_XOR == colhdr::kOpXor &&
              HPM_COL_OP_MAX == colhdr::kOpMax && HPM_COL_OP_ADD == colhdr::kOpAdd);
// A header the guest makes is the one the model reads: class, opcode, operand size and tag.
static_assert(HPM_COL_HEADER(5, HPM_COL_OP_ADD, HPM_COL_OPSIZE_64, 1234) ==
              colhdr::make(5, colhdr::kOpAdd, 4, 1234));
static_assert(colhdr::cls(HPM_COL_HEADER(9, 0, 0, 0)) == 9 &&
              colhdr::opcode(HPM_COL_HEADER(0, HPM_COL_OP_MAX, 0, 0)) == colhdr::kOpMax &&
              colhdr::operandBytes(HPM_COL_HEADER(0, 0, HPM_COL_OPSIZE_128, 0)) == 16 &&
              colhdr::operandBytes(HPM_COL_HEADER(0, 0, HPM_COL_OPSIZE_32, 0)) == 4 &&
              colhdr::p2p(HPM_COL_P2P) && !colhdr::p2p(HPM_COL_HEADER(15, 7, 127, 16383)));

// The guest's STATUS fields read the unit's layout (col::kStatus...), each to its full width.
constexpr u64 kStatus = u64{0xffff} << col::kStatusInjQuads | u64{0x05} << col::kStatusInjHeaders |
                        u64{0x41} << col::kStatusRecQuads | u64{0xff} << col::kStatusRecHeaders;
static_assert(HPM_COL_STATUS_INJ_QUADS(kStatus) == 0xffff &&
              HPM_COL_STATUS_INJ_HEADERS(kStatus) == 0x05 &&
              HPM_COL_STATUS_REC_QUADS(kStatus) == 0x41 &&
              HPM_COL_STATUS_REC_HEADERS(kStatus) == 0xff);

// (The static_asserts above are the check; this names it among the tests.)
TEST(CollectiveHeader, TheGuestHeaderAgreesWithTheDevicesDeclarations) {
  SUCCEED();
}

}  // namespace
}  // namespace hpm::net
