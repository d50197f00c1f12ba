#include "hart/hart.h"

#include "hart/interpreter.h"

namespace hpm {

template Stop Hart::run<NoObserver>(u64 budget, NoObserver& observer);

}  // namespace hpm
