# Sourced by bench/monitor_overhead.sh: the "every counter" monitoring of bgq.
# bgq_all_events HPMSIM prints, comma-separated, 24 PUnit events that occur on a running
# core (the thread-0 and core-wide ones; hpmsim stat programs them on each of the 16 PUnits),
# the 6 L2 events, the 7 I/O events and the 17 CNK events the units have counters for.
bgq_all_events() {
  local hpmsim=$1 punit
  punit=PEVT_CYCLES_T0,PEVT_INSTRUCTIONS,PEVT_INSTRUCTIONS_T0,PEVT_INST_INT_ALU_T0
  punit+=,PEVT_INST_BRANCH_T0,PEVT_INST_LOAD_T0,PEVT_INST_STORE_T0,PEVT_INST_FP_LOAD_T0
  punit+=,PEVT_INST_FP_FMA_T0,PEVT_FP_OPS_T0,PEVT_BRANCHES_TAKEN_T0
  punit+=,PEVT_BRANCH_MISPREDICTS_T0,PEVT_FETCH_GROUPS_T0,PEVT_ISSUE_XU_T0
  punit+=,PEVT_ISSUE_AXU_T0,PEVT_STALL_DEPENDENCY_T0,PEVT_STALL_ANY_T0,PEVT_L1I_ACCESSES
  punit+=,PEVT_L1D_ACCESSES,PEVT_L1D_MISSES,PEVT_L1P_HITS,PEVT_LMQ_ALLOCATIONS
  punit+=,PEVT_SQ_ALLOCATIONS,PEVT_CORE_L2_READS
  local unit count others=""
  for unit_count in l2:6 io:43 cnk:32; do
    unit=${unit_count%%:*}
    count=${unit_count##*:}
    others+=,$("$hpmsim" events --machine bgq --unit "$unit" --json |
      python3 -c 'import json, sys
print(",".join(e["name"] for e in json.load(sys.stdin)["events"][: int(sys.argv[1])]))' "$count")
  done
  echo "$punit$others"
}
