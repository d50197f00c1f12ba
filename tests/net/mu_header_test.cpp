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
