// The guest's header for the message unit (guest/include/hpm/mu.h) against the unit's own
// declaration (net/message_unit.h, namespace mu): every register offset, flag, packet type,
// descriptor field and refusal reason. The checks are static_asserts, so a header that drifts
// from the unit fails the build, not only this test.
#include <gtest/gtest.h>

#include <cstddef>

#include "guest/include/hpm/mu.h"
#include "net/message_unit.h"

namespace hpm::net {
namespace {

static_assert(HPM_MU_RANK == mu::kRank && HPM_MU_NODES == mu::kNodes &&
              HPM_MU_DIMENSIONS == mu::kDimensions && HPM_MU_SHAPE == mu::kShape &&
              HPM_MU_COORDS == mu::kCoords && HPM_MU_MAX_PAYLOAD == mu::kMaxPayload &&
              HPM_MU_HEADER_BYTES == mu::kHeaderBytes);
static_assert(HPM_MU_INJ_BASE == mu::kInjBase && HPM_MU_INJ_ENTRIES == mu::kInjEntries &&
              HPM_MU_INJ_TAIL == mu::kInjTail && HPM_MU_INJ_DONE == mu::kInjDone &&
              HPM_MU_INJ_ERRORS == mu::kInjErrors);
static_assert(HPM_MU_REC_BASE == mu::kRecBase && HPM_MU_REC_BYTES == mu::kRecBytes &&
              HPM_MU_REC_TAIL_ADDR == mu::kRecTailAddr && HPM_MU_REC_HEAD == mu::kRecHead &&
              HPM_MU_REC_TAIL == mu::kRecTail);
static_assert(HPM_MU_DYNAMIC == mu::kFlagDynamic && HPM_MU_PRIORITY == mu::kFlagPriority &&
              HPM_MU_SYSTEM == mu::kFlagSystem);
static_assert(HPM_MU_MEMORY_FIFO == mu::kMemoryFifo << mu::kTypeShift &&
              HPM_MU_DIRECT_PUT == mu::kDirectPut << mu::kTypeShift &&
              HPM_MU_REMOTE_GET == mu::kRemoteGet << mu::kTypeShift);
static_assert(HPM_MU_COLL_MPI == mu::kCollMpi && HPM_MU_CLASSES == mu::kClasses &&
              HPM_MU_GI_ARM == mu::kGiArm && HPM_MU_GI_NOTIFY_ADDR == mu::kGiNotifyAddr &&
              HPM_MU_GI_DONE == mu::kGiDone);
static_assert(HPM_MU_CLASS_LOW == mu::kClassLow && HPM_MU_CLASS_SIZE == mu::kClassSize &&
              HPM_MU_CLASS_ROOT == mu::kClassRoot && HPM_MU_CLASS_SET == mu::kClassSet &&
              HPM_MU_CLASS_ERRORS == mu::kClassErrors && HPM_MU_CLASS_GI == mu::kClassSetGi &&
              HPM_MU_CLASS_CLEAR == mu::kClassSetClear);
static_assert(HPM_MU_COLLECTIVE == mu::kFlagCollective &&
              HPM_MU_COLL_CLASS_SHIFT == mu::kCollClassShift &&
              HPM_MU_COLL_TYPE_SHIFT == mu::kCollTypeShift &&
              HPM_MU_COLL_OP_SHIFT == mu::kCollOpShift &&
              HPM_MU_COLL_WORD_SHIFT == mu::kCollWordShift);
static_assert((HPM_MU_COLL(15, 3, 15, 7) | HPM_MU_MEMORY_FIFO) == mu::kCollFlagBits - 0xc);
static_assert(HPM_MU_BROADCAST == static_cast<int>(CollType::kBroadcast) &&
              HPM_MU_ALLREDUCE == static_cast<int>(CollType::kAllreduce) &&
              HPM_MU_REDUCE == static_cast<int>(CollType::kReduce));
static_assert(HPM_MU_OP_AND == collop::kAnd && HPM_MU_OP_OR == collop::kOr &&
              HPM_MU_OP_XOR == collop::kXor && HPM_MU_OP_UNSIGNED_ADD == collop::kUnsignedAdd &&
              HPM_MU_OP_UNSIGNED_MIN == collop::kUnsignedMin &&
              HPM_MU_OP_UNSIGNED_MAX == collop::kUnsignedMax &&
              HPM_MU_OP_SIGNED_ADD == collop::kSignedAdd &&
              HPM_MU_OP_SIGNED_MIN == collop::kSignedMin &&
              HPM_MU_OP_SIGNED_MAX == collop::kSignedMax &&
              HPM_MU_OP_FLOAT_ADD == collop::kFloatAdd &&
              HPM_MU_OP_FLOAT_MIN == collop::kFloatMin && HPM_MU_OP_FLOAT_MAX == collop::kFloatMax);
static_assert(HPM_MU_WORLD_CLASS == kWorldClass && HPM_MU_SYSTEM_CLASS == kSystemClass);
static_assert(HPM_MU_SKIP == MessageUnit::kSkip);
static_assert(HPM_MU_REFUSED_FIELDS == MessageUnit::kRefusedFields &&
              HPM_MU_REFUSED_PAYLOAD == MessageUnit::kRefusedPayload);
static_assert(sizeof(hpm_mu_descriptor) == MessageUnit::kDescriptorBytes &&
              sizeof(hpm_mu_descriptor::sw) == MessageUnit::kHeaderSoftwareBytes);
static_assert(offsetof(hpm_mu_descriptor, dest) == mu::descriptor::kDest &&
              offsetof(hpm_mu_descriptor, flags) == mu::descriptor::kFlags &&
              offsetof(hpm_mu_descriptor, payload) == mu::descriptor::kPayload &&
              offsetof(hpm_mu_descriptor, bytes) == mu::descriptor::kBytes &&
              offsetof(hpm_mu_descriptor, sw) == mu::descriptor::kSoftware &&
              offsetof(hpm_mu_descriptor, put) == mu::descriptor::kPut &&
              offsetof(hpm_mu_descriptor, counter) == mu::descriptor::kCounter &&
              offsetof(hpm_mu_descriptor, status) == mu::descriptor::kStatus);

// (The static_asserts above are the check; this names it among the tests.)
TEST(MessageUnitHeader, TheGuestHeaderAgreesWithTheUnitsDeclaration) {
  SUCCEED();
}

}  // namespace
}  // namespace hpm::net
