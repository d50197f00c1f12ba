/* Region markers for hpmsim: per-region cycles, instructions and stalls, per thread.
 *
 *   HPM_REGION_NAME(1, "matvec");      at file scope, once per region id (1..2047)
 *   HPM_REGION_BEGIN(1); ... HPM_REGION_END(1);
 *
 * The markers are RISC-V HINT encodings (slti/sltiu with destination x0): architectural no-ops,
 * so a marked program runs unchanged under qemu or on hardware. hpmsim's timing modes recognise
 * them; names are read from the ELF section ".hpm_regions" (records of 64 bytes: a 32-bit id
 * and a NUL-terminated name). Regions may nest; ends close the innermost open region of that id.
 */
#ifndef HPM_REGION_H
#define HPM_REGION_H

#define HPM_REGION_BEGIN(id) __asm__ volatile("slti zero, zero, %0" : : "i"(id) : "memory")
#define HPM_REGION_END(id) __asm__ volatile("sltiu zero, zero, %0" : : "i"(id) : "memory")

#define HPM_REGION_CAT2(a, b) a##b
#define HPM_REGION_CAT(a, b) HPM_REGION_CAT2(a, b)
#define HPM_REGION_NAME(id, name)                                                  \
  __attribute__((section(".hpm_regions"), used, aligned(4))) static const struct { \
    unsigned int region_id;                                                        \
    char region_name[60];                                                          \
  } HPM_REGION_CAT(hpm_region_name_, __LINE__) = {(id), name}

#endif
