# Sourced by bench/monitor_overhead.sh: the "every counter" monitoring of bgq.
# bgq_all_events HPMSIM prints, comma-separated, 24 PUnit events that occur on a running
# core (the thread-0 and core-wide ones; hpmsim stat programs them on each of the 16 PUnits),
# and the events the model has a signal for ("wired") of the L2 unit (combined mode: its 6
# counters), the I/O unit (7 events, 43 counters) and the CNK unit (23 events, 32 counters).
bgq_all_events() {
  local hpmsim=$1 punit
  punit=PEVT_CYCLES@t0,PEVT_INST_ALL,PEVT_INST_ALL@t0,PEVT_INST_INT_ALU@t0
  punit+=,PEVT_INST_XU_BRC@t0,PEVT_INST_XU_LD@t0,PEVT_INST_XU_ST@t0,PEVT_LSU_COMMIT_AXU_LDS@t0
  punit+=,PEVT_INST_QFPU_FMA@t0,PEVT_INST_QFPU_FPGRP1@t0,PEVT_BRANCHES_TAKEN@t0
  punit+=,PEVT_XU_BR_MISPRED_COMMIT_CORE,PEVT_IU_ICACHE_FETCH@t0,PEVT_IU_FXU_ISSUE_COUNT@t0
  punit+=,PEVT_ISSUE_AXU@t0,PEVT_IU_IS1_STALL_CYC@t0,PEVT_STALL_ANY@t0,PEVT_L1I_ACCESSES
  punit+=,PEVT_L1D_ACCESSES,PEVT_L1D_MISSES,PEVT_L1P_BAS_HIT,PEVT_LMQ_ALLOCATIONS
  punit+=,PEVT_SQ_ALLOCATIONS,PEVT_CORE_L2_READS
  local unit count others=""
  for unit_count in l2:6 io:43 cnk:32; do
    unit=${unit_count%%:*}
    count=${unit_count##*:}
    others+=,$("$hpmsim" events --machine bgq --unit "$unit" --json |
      python3 -c 'import json, sys
wired = [e["name"] for e in json.load(sys.stdin)["events"] if e["wired"] and e.get("unit_mode", 0) == 0]
print(",".join(wired[: int(sys.argv[1])]))' "$count")
  done
  echo "$punit$others"
}
