/* papiStdEventDefs.h: PAPI's preset events, included by papi.h (hpmsim's libpapi, docs/papi.md).
 *
 * A preset's event code is PAPI_PRESET_MASK | its index below. The indices are those of PAPI 7.0
 * and must stay in this order with no gaps: programs compiled against PAPI 7 carry these codes.
 * Which presets a node can count, and from which native events, is listed in docs/papi.md and
 * by PAPI_query_event / PAPI_get_event_info at run time.
 */
#ifndef PAPISTDEVENTDEFS_H
#define PAPISTDEVENTDEFS_H

/* Event code classes. The top two bits of an event code say what it is: 10 a preset, 01 a native
 * event, 11 a user-defined event. The AND masks clear the class bits to leave the index. */
#define PAPI_PRESET_MASK ((int)0x80000000)
#define PAPI_NATIVE_MASK ((int)0x40000000)
#define PAPI_UE_MASK ((int)0xC0000000)
#define PAPI_PRESET_AND_MASK 0x7FFFFFFF
#define PAPI_NATIVE_AND_MASK 0xBFFFFFFF
#define PAPI_UE_AND_MASK 0x3FFFFFFF

/* Table sizes: presets, user-defined events, and the length of a user event's formula. */
#define PAPI_MAX_PRESET_EVENTS 128
#define PAPI_MAX_USER_EVENTS 50
#define USER_EVENT_OPERATION_LEN 512

/* Preset indices. */
enum {
  /* Cache misses: data, instruction and total, by level */
  PAPI_L1_DCM_idx = 0,
  PAPI_L1_ICM_idx = 1,
  PAPI_L2_DCM_idx = 2,
  PAPI_L2_ICM_idx = 3,
  PAPI_L3_DCM_idx = 4,
  PAPI_L3_ICM_idx = 5,
  PAPI_L1_TCM_idx = 6,
  PAPI_L2_TCM_idx = 7,
  PAPI_L3_TCM_idx = 8,

  /* Coherence traffic between caches */
  PAPI_CA_SNP_idx = 9,
  PAPI_CA_SHR_idx = 10,
  PAPI_CA_CLN_idx = 11,
  PAPI_CA_INV_idx = 12,
  PAPI_CA_ITV_idx = 13,

  /* L3 load and store misses */
  PAPI_L3_LDM_idx = 14,
  PAPI_L3_STM_idx = 15,

  /* Cycles a functional unit is idle */
  PAPI_BRU_IDL_idx = 16,
  PAPI_FXU_IDL_idx = 17,
  PAPI_FPU_IDL_idx = 18,
  PAPI_LSU_IDL_idx = 19,

  /* TLB misses */
  PAPI_TLB_DM_idx = 20,
  PAPI_TLB_IM_idx = 21,
  PAPI_TLB_TL_idx = 22,

  /* L1 and L2 load and store misses */
  PAPI_L1_LDM_idx = 23,
  PAPI_L1_STM_idx = 24,
  PAPI_L2_LDM_idx = 25,
  PAPI_L2_STM_idx = 26,

  /* Branch target buffer misses, prefetch misses, L3 data hits, TLB shootdowns */
  PAPI_BTAC_M_idx = 27,
  PAPI_PRF_DM_idx = 28,
  PAPI_L3_DCH_idx = 29,
  PAPI_TLB_SD_idx = 30,

  /* Store-conditional instructions: failed, successful, total */
  PAPI_CSR_FAL_idx = 31,
  PAPI_CSR_SUC_idx = 32,
  PAPI_CSR_TOT_idx = 33,

  /* Stall and issue/completion cycles */
  PAPI_MEM_SCY_idx = 34,
  PAPI_MEM_RCY_idx = 35,
  PAPI_MEM_WCY_idx = 36,
  PAPI_STL_ICY_idx = 37,
  PAPI_FUL_ICY_idx = 38,
  PAPI_STL_CCY_idx = 39,
  PAPI_FUL_CCY_idx = 40,

  /* Hardware interrupts */
  PAPI_HW_INT_idx = 41,

  /* Branch instructions */
  PAPI_BR_UCN_idx = 42,
  PAPI_BR_CN_idx = 43,
  PAPI_BR_TKN_idx = 44,
  PAPI_BR_NTK_idx = 45,
  PAPI_BR_MSP_idx = 46,
  PAPI_BR_PRC_idx = 47,

  /* Instruction counts by kind, cycles */
  PAPI_FMA_INS_idx = 48,
  PAPI_TOT_IIS_idx = 49,
  PAPI_TOT_INS_idx = 50,
  PAPI_INT_INS_idx = 51,
  PAPI_FP_INS_idx = 52,
  PAPI_LD_INS_idx = 53,
  PAPI_SR_INS_idx = 54,
  PAPI_BR_INS_idx = 55,
  PAPI_VEC_INS_idx = 56,
  PAPI_RES_STL_idx = 57,
  PAPI_FP_STAL_idx = 58,
  PAPI_TOT_CYC_idx = 59,
  PAPI_LST_INS_idx = 60,
  PAPI_SYC_INS_idx = 61,

  /* Cache hits, accesses, reads and writes by level and kind */
  PAPI_L1_DCH_idx = 62,
  PAPI_L2_DCH_idx = 63,
  PAPI_L1_DCA_idx = 64,
  PAPI_L2_DCA_idx = 65,
  PAPI_L3_DCA_idx = 66,
  PAPI_L1_DCR_idx = 67,
  PAPI_L2_DCR_idx = 68,
  PAPI_L3_DCR_idx = 69,
  PAPI_L1_DCW_idx = 70,
  PAPI_L2_DCW_idx = 71,
  PAPI_L3_DCW_idx = 72,
  PAPI_L1_ICH_idx = 73,
  PAPI_L2_ICH_idx = 74,
  PAPI_L3_ICH_idx = 75,
  PAPI_L1_ICA_idx = 76,
  PAPI_L2_ICA_idx = 77,
  PAPI_L3_ICA_idx = 78,
  PAPI_L1_ICR_idx = 79,
  PAPI_L2_ICR_idx = 80,
  PAPI_L3_ICR_idx = 81,
  PAPI_L1_ICW_idx = 82,
  PAPI_L2_ICW_idx = 83,
  PAPI_L3_ICW_idx = 84,
  PAPI_L1_TCH_idx = 85,
  PAPI_L2_TCH_idx = 86,
  PAPI_L3_TCH_idx = 87,
  PAPI_L1_TCA_idx = 88,
  PAPI_L2_TCA_idx = 89,
  PAPI_L3_TCA_idx = 90,
  PAPI_L1_TCR_idx = 91,
  PAPI_L2_TCR_idx = 92,
  PAPI_L3_TCR_idx = 93,
  PAPI_L1_TCW_idx = 94,
  PAPI_L2_TCW_idx = 95,
  PAPI_L3_TCW_idx = 96,

  /* Floating-point instructions by operation */
  PAPI_FML_INS_idx = 97,
  PAPI_FAD_INS_idx = 98,
  PAPI_FDV_INS_idx = 99,
  PAPI_FSQ_INS_idx = 100,
  PAPI_FNV_INS_idx = 101,

  /* Floating-point operations and vector instructions */
  PAPI_FP_OPS_idx = 102,
  PAPI_SP_OPS_idx = 103,
  PAPI_DP_OPS_idx = 104,
  PAPI_VEC_SP_idx = 105,
  PAPI_VEC_DP_idx = 106,

  /* Reference cycles */
  PAPI_REF_CYC_idx = 107,

  /* Number of presets (not an event) */
  PAPI_END_idx = 108,
};

/* Preset event codes. */
#define PAPI_L1_DCM (PAPI_L1_DCM_idx | PAPI_PRESET_MASK)
#define PAPI_L1_ICM (PAPI_L1_ICM_idx | PAPI_PRESET_MASK)
#define PAPI_L2_DCM (PAPI_L2_DCM_idx | PAPI_PRESET_MASK)
#define PAPI_L2_ICM (PAPI_L2_ICM_idx | PAPI_PRESET_MASK)
#define PAPI_L3_DCM (PAPI_L3_DCM_idx | PAPI_PRESET_MASK)
#define PAPI_L3_ICM (PAPI_L3_ICM_idx | PAPI_PRESET_MASK)
#define PAPI_L1_TCM (PAPI_L1_TCM_idx | PAPI_PRESET_MASK)
#define PAPI_L2_TCM (PAPI_L2_TCM_idx | PAPI_PRESET_MASK)
#define PAPI_L3_TCM (PAPI_L3_TCM_idx | PAPI_PRESET_MASK)

#define PAPI_CA_SNP (PAPI_CA_SNP_idx | PAPI_PRESET_MASK)
#define PAPI_CA_SHR (PAPI_CA_SHR_idx | PAPI_PRESET_MASK)
#define PAPI_CA_CLN (PAPI_CA_CLN_idx | PAPI_PRESET_MASK)
#define PAPI_CA_INV (PAPI_CA_INV_idx | PAPI_PRESET_MASK)
#define PAPI_CA_ITV (PAPI_CA_ITV_idx | PAPI_PRESET_MASK)

#define PAPI_L3_LDM (PAPI_L3_LDM_idx | PAPI_PRESET_MASK)
#define PAPI_L3_STM (PAPI_L3_STM_idx | PAPI_PRESET_MASK)

#define PAPI_BRU_IDL (PAPI_BRU_IDL_idx | PAPI_PRESET_MASK)
#define PAPI_FXU_IDL (PAPI_FXU_IDL_idx | PAPI_PRESET_MASK)
#define PAPI_FPU_IDL (PAPI_FPU_IDL_idx | PAPI_PRESET_MASK)
#define PAPI_LSU_IDL (PAPI_LSU_IDL_idx | PAPI_PRESET_MASK)

#define PAPI_TLB_DM (PAPI_TLB_DM_idx | PAPI_PRESET_MASK)
#define PAPI_TLB_IM (PAPI_TLB_IM_idx | PAPI_PRESET_MASK)
#define PAPI_TLB_TL (PAPI_TLB_TL_idx | PAPI_PRESET_MASK)

#define PAPI_L1_LDM (PAPI_L1_LDM_idx | PAPI_PRESET_MASK)
#define PAPI_L1_STM (PAPI_L1_STM_idx | PAPI_PRESET_MASK)
#define PAPI_L2_LDM (PAPI_L2_LDM_idx | PAPI_PRESET_MASK)
#define PAPI_L2_STM (PAPI_L2_STM_idx | PAPI_PRESET_MASK)

#define PAPI_BTAC_M (PAPI_BTAC_M_idx | PAPI_PRESET_MASK)
#define PAPI_PRF_DM (PAPI_PRF_DM_idx | PAPI_PRESET_MASK)
#define PAPI_L3_DCH (PAPI_L3_DCH_idx | PAPI_PRESET_MASK)
#define PAPI_TLB_SD (PAPI_TLB_SD_idx | PAPI_PRESET_MASK)

#define PAPI_CSR_FAL (PAPI_CSR_FAL_idx | PAPI_PRESET_MASK)
#define PAPI_CSR_SUC (PAPI_CSR_SUC_idx | PAPI_PRESET_MASK)
#define PAPI_CSR_TOT (PAPI_CSR_TOT_idx | PAPI_PRESET_MASK)

#define PAPI_MEM_SCY (PAPI_MEM_SCY_idx | PAPI_PRESET_MASK)
#define PAPI_MEM_RCY (PAPI_MEM_RCY_idx | PAPI_PRESET_MASK)
#define PAPI_MEM_WCY (PAPI_MEM_WCY_idx | PAPI_PRESET_MASK)
#define PAPI_STL_ICY (PAPI_STL_ICY_idx | PAPI_PRESET_MASK)
#define PAPI_FUL_ICY (PAPI_FUL_ICY_idx | PAPI_PRESET_MASK)
#define PAPI_STL_CCY (PAPI_STL_CCY_idx | PAPI_PRESET_MASK)
#define PAPI_FUL_CCY (PAPI_FUL_CCY_idx | PAPI_PRESET_MASK)

#define PAPI_HW_INT (PAPI_HW_INT_idx | PAPI_PRESET_MASK)

#define PAPI_BR_UCN (PAPI_BR_UCN_idx | PAPI_PRESET_MASK)
#define PAPI_BR_CN (PAPI_BR_CN_idx | PAPI_PRESET_MASK)
#define PAPI_BR_TKN (PAPI_BR_TKN_idx | PAPI_PRESET_MASK)
#define PAPI_BR_NTK (PAPI_BR_NTK_idx | PAPI_PRESET_MASK)
#define PAPI_BR_MSP (PAPI_BR_MSP_idx | PAPI_PRESET_MASK)
#define PAPI_BR_PRC (PAPI_BR_PRC_idx | PAPI_PRESET_MASK)

#define PAPI_FMA_INS (PAPI_FMA_INS_idx | PAPI_PRESET_MASK)
#define PAPI_TOT_IIS (PAPI_TOT_IIS_idx | PAPI_PRESET_MASK)
#define PAPI_TOT_INS (PAPI_TOT_INS_idx | PAPI_PRESET_MASK)
#define PAPI_INT_INS (PAPI_INT_INS_idx | PAPI_PRESET_MASK)
#define PAPI_FP_INS (PAPI_FP_INS_idx | PAPI_PRESET_MASK)
#define PAPI_LD_INS (PAPI_LD_INS_idx | PAPI_PRESET_MASK)
#define PAPI_SR_INS (PAPI_SR_INS_idx | PAPI_PRESET_MASK)
#define PAPI_BR_INS (PAPI_BR_INS_idx | PAPI_PRESET_MASK)
#define PAPI_VEC_INS (PAPI_VEC_INS_idx | PAPI_PRESET_MASK)
#define PAPI_RES_STL (PAPI_RES_STL_idx | PAPI_PRESET_MASK)
#define PAPI_FP_STAL (PAPI_FP_STAL_idx | PAPI_PRESET_MASK)
#define PAPI_TOT_CYC (PAPI_TOT_CYC_idx | PAPI_PRESET_MASK)
#define PAPI_LST_INS (PAPI_LST_INS_idx | PAPI_PRESET_MASK)
#define PAPI_SYC_INS (PAPI_SYC_INS_idx | PAPI_PRESET_MASK)

#define PAPI_L1_DCH (PAPI_L1_DCH_idx | PAPI_PRESET_MASK)
#define PAPI_L2_DCH (PAPI_L2_DCH_idx | PAPI_PRESET_MASK)
#define PAPI_L1_DCA (PAPI_L1_DCA_idx | PAPI_PRESET_MASK)
#define PAPI_L2_DCA (PAPI_L2_DCA_idx | PAPI_PRESET_MASK)
#define PAPI_L3_DCA (PAPI_L3_DCA_idx | PAPI_PRESET_MASK)
#define PAPI_L1_DCR (PAPI_L1_DCR_idx | PAPI_PRESET_MASK)
#define PAPI_L2_DCR (PAPI_L2_DCR_idx | PAPI_PRESET_MASK)
#define PAPI_L3_DCR (PAPI_L3_DCR_idx | PAPI_PRESET_MASK)
#define PAPI_L1_DCW (PAPI_L1_DCW_idx | PAPI_PRESET_MASK)
#define PAPI_L2_DCW (PAPI_L2_DCW_idx | PAPI_PRESET_MASK)
#define PAPI_L3_DCW (PAPI_L3_DCW_idx | PAPI_PRESET_MASK)
#define PAPI_L1_ICH (PAPI_L1_ICH_idx | PAPI_PRESET_MASK)
#define PAPI_L2_ICH (PAPI_L2_ICH_idx | PAPI_PRESET_MASK)
#define PAPI_L3_ICH (PAPI_L3_ICH_idx | PAPI_PRESET_MASK)
#define PAPI_L1_ICA (PAPI_L1_ICA_idx | PAPI_PRESET_MASK)
#define PAPI_L2_ICA (PAPI_L2_ICA_idx | PAPI_PRESET_MASK)
#define PAPI_L3_ICA (PAPI_L3_ICA_idx | PAPI_PRESET_MASK)
#define PAPI_L1_ICR (PAPI_L1_ICR_idx | PAPI_PRESET_MASK)
#define PAPI_L2_ICR (PAPI_L2_ICR_idx | PAPI_PRESET_MASK)
#define PAPI_L3_ICR (PAPI_L3_ICR_idx | PAPI_PRESET_MASK)
#define PAPI_L1_ICW (PAPI_L1_ICW_idx | PAPI_PRESET_MASK)
#define PAPI_L2_ICW (PAPI_L2_ICW_idx | PAPI_PRESET_MASK)
#define PAPI_L3_ICW (PAPI_L3_ICW_idx | PAPI_PRESET_MASK)
#define PAPI_L1_TCH (PAPI_L1_TCH_idx | PAPI_PRESET_MASK)
#define PAPI_L2_TCH (PAPI_L2_TCH_idx | PAPI_PRESET_MASK)
#define PAPI_L3_TCH (PAPI_L3_TCH_idx | PAPI_PRESET_MASK)
#define PAPI_L1_TCA (PAPI_L1_TCA_idx | PAPI_PRESET_MASK)
#define PAPI_L2_TCA (PAPI_L2_TCA_idx | PAPI_PRESET_MASK)
#define PAPI_L3_TCA (PAPI_L3_TCA_idx | PAPI_PRESET_MASK)
#define PAPI_L1_TCR (PAPI_L1_TCR_idx | PAPI_PRESET_MASK)
#define PAPI_L2_TCR (PAPI_L2_TCR_idx | PAPI_PRESET_MASK)
#define PAPI_L3_TCR (PAPI_L3_TCR_idx | PAPI_PRESET_MASK)
#define PAPI_L1_TCW (PAPI_L1_TCW_idx | PAPI_PRESET_MASK)
#define PAPI_L2_TCW (PAPI_L2_TCW_idx | PAPI_PRESET_MASK)
#define PAPI_L3_TCW (PAPI_L3_TCW_idx | PAPI_PRESET_MASK)

#define PAPI_FML_INS (PAPI_FML_INS_idx | PAPI_PRESET_MASK)
#define PAPI_FAD_INS (PAPI_FAD_INS_idx | PAPI_PRESET_MASK)
#define PAPI_FDV_INS (PAPI_FDV_INS_idx | PAPI_PRESET_MASK)
#define PAPI_FSQ_INS (PAPI_FSQ_INS_idx | PAPI_PRESET_MASK)
#define PAPI_FNV_INS (PAPI_FNV_INS_idx | PAPI_PRESET_MASK)

#define PAPI_FP_OPS (PAPI_FP_OPS_idx | PAPI_PRESET_MASK)
#define PAPI_SP_OPS (PAPI_SP_OPS_idx | PAPI_PRESET_MASK)
#define PAPI_DP_OPS (PAPI_DP_OPS_idx | PAPI_PRESET_MASK)
#define PAPI_VEC_SP (PAPI_VEC_SP_idx | PAPI_PRESET_MASK)
#define PAPI_VEC_DP (PAPI_VEC_DP_idx | PAPI_PRESET_MASK)

#define PAPI_REF_CYC (PAPI_REF_CYC_idx | PAPI_PRESET_MASK)

#define PAPI_END (PAPI_END_idx | PAPI_PRESET_MASK)

#endif /* PAPISTDEVENTDEFS_H */
