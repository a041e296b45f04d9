#include "registry.h"

const struct sw_arch *sw_arch_for_cpu(enum sw_cpu cpu)
{
	static const struct sw_arch *const table[] = {
		[SW_CPU_X86] = &sw_arch_x86,
		[SW_CPU_AMD64] = &sw_arch_amd64,
		[SW_CPU_ARM] = &sw_arch_arm,
		[SW_CPU_ARM64] = &sw_arch_arm64,
		[SW_CPU_MIPS] = &sw_arch_mips,
		[SW_CPU_MIPS64] = &sw_arch_mips64,
		[SW_CPU_RISCV32] = &sw_arch_riscv32,
		[SW_CPU_RISCV64] = &sw_arch_riscv64,
		[SW_CPU_PPC] = &sw_arch_ppc,
		[SW_CPU_PPC64] = &sw_arch_ppc64,
	};
	if ((unsigned)cpu >= sizeof table / sizeof table[0])
		return NULL;
	return table[cpu];
}
