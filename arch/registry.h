/* Maps a snapshot's CPU to its hook table. */
#ifndef SW_ARCH_REGISTRY_H
#define SW_ARCH_REGISTRY_H

#include "lib/arch.h"

extern const struct sw_arch sw_arch_x86, sw_arch_amd64, sw_arch_arm, sw_arch_arm64,
	sw_arch_mips, sw_arch_mips64, sw_arch_riscv32, sw_arch_riscv64, sw_arch_ppc,
	sw_arch_ppc64;

/* The table for cpu, or NULL when stackwalk does not know the CPU. */
const struct sw_arch *sw_arch_for_cpu(enum sw_cpu cpu);

#endif
