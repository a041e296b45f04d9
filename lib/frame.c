#include "frame.h"

const char *sw_trust_name(enum sw_trust t)
{
	switch (t) {
	case SW_TRUST_SCAN: return "scan";
	case SW_TRUST_CFI_SCAN: return "cfi_scan";
	/* rust-minidump's JSON has no such trust: the frame was found by
	 * reading the return address at [sp] and validating it like any
	 * scanned one, so JSON readers are told "scan". */
	case SW_TRUST_LEAF: return "scan";
	case SW_TRUST_FRAME_POINTER: return "frame_pointer";
	case SW_TRUST_PROLOGUE: return "prologue";
	case SW_TRUST_CFI: return "cfi";
	case SW_TRUST_PREWALKED: return "prewalked";
	case SW_TRUST_CONTEXT: return "context";
	case SW_TRUST_INLINE: return "inline";
	case SW_TRUST_NONE: break;
	}
	return "none";
}

/* Breakpad's StackFrame::trust_description() wording. */
const char *sw_trust_description(enum sw_trust t)
{
	switch (t) {
	case SW_TRUST_SCAN: return "stack scanning";
	case SW_TRUST_CFI_SCAN: return "call frame info with scanning";
	case SW_TRUST_LEAF: return "simulating a return from leaf function";
	case SW_TRUST_FRAME_POINTER: return "previous frame's frame pointer";
	case SW_TRUST_PROLOGUE: return "prologue analysis";
	case SW_TRUST_CFI: return "call frame info";
	case SW_TRUST_PREWALKED: return "recovered by external stack walker";
	case SW_TRUST_CONTEXT: return "given as instruction pointer in context";
	case SW_TRUST_INLINE: return "inline record";
	case SW_TRUST_NONE: break;
	}
	return "unknown";
}
