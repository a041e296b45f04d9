/* The names of methods and refusals (lib/evidence.h). */
#include "evidence.h"

const char *sw_method_name(enum sw_method m)
{
	switch (m) {
	case SW_METHOD_CONTEXT: return "context";
	case SW_METHOD_INLINE: return "inline";
	case SW_METHOD_PROGRAM_ENTRY: return "entry_point";
	case SW_METHOD_SIGNAL_FRAME: return "signal_frame";
	case SW_METHOD_CFI: return "cfi";
	case SW_METHOD_EXCEPTION_FRAME: return "exception_frame";
	case SW_METHOD_BAD_PC: return "bad_pc";
	case SW_METHOD_LEAF: return "leaf";
	case SW_METHOD_FRAME_POINTER: return "frame_pointer";
	case SW_METHOD_PROLOGUE: return "prologue";
	case SW_METHOD_SCAN: return "scan";
	case SW_METHOD_DEX_PC: return "dex_pc";
	case SW_METHOD_NONE: break;
	}
	return "none";
}

const char *sw_refusal_name(enum sw_refusal r)
{
	switch (r) {
	case SW_REFUSED_NO_RULE: return "no_rule";
	case SW_REFUSED_FAILED: return "failed";
	case SW_REFUSED_DISABLED: return "disabled";
	case SW_REFUSED_LOST_PC_SP: return "lost_pc_or_sp";
	case SW_REFUSED_PC_NOT_CODE: return "pc_not_code";
	case SW_REFUSED_SP_NOT_GROWING: return "sp_not_growing";
	case SW_REFUSED_PC_ON_STACK: return "pc_on_stack";
	case SW_REFUSED_PC_IN_DATA: return "pc_in_data";
	case SW_REFUSED_NOT_RETURN_ADDRESS: return "not_a_return_address";
	case SW_REFUSED_NO_CALL_BEFORE: return "no_call_before_pc";
	case SW_REFUSED_CALL_ELSEWHERE: return "call_cannot_reach_callee";
	case SW_REFUSED_CONTEXT_IMPLAUSIBLE: return "context_implausible";
	case SW_REFUSED_ENDS_WALK: return "ends_walk";
	case SW_REFUSED_NONE: break;
	}
	return "none";
}

const char *sw_refusal_description(enum sw_refusal r)
{
	switch (r) {
	case SW_REFUSED_NO_RULE: return "does not apply here";
	case SW_REFUSED_FAILED: return "its evidence is broken";
	case SW_REFUSED_DISABLED: return "not tried (--no-scan, or the scan limit)";
	case SW_REFUSED_LOST_PC_SP: return "gave no pc or no sp";
	case SW_REFUSED_PC_NOT_CODE: return "pc is no code address";
	case SW_REFUSED_SP_NOT_GROWING: return "sp does not grow";
	case SW_REFUSED_PC_ON_STACK: return "pc is on the stack";
	case SW_REFUSED_PC_IN_DATA: return "pc is in a module's data";
	case SW_REFUSED_NOT_RETURN_ADDRESS: return "pc is no return address";
	case SW_REFUSED_NO_CALL_BEFORE: return "the code before pc is no call";
	case SW_REFUSED_CALL_ELSEWHERE: return "the call before pc cannot have led to the callee";
	case SW_REFUSED_CONTEXT_IMPLAUSIBLE: return "the restored context does not fit";
	case SW_REFUSED_ENDS_WALK: return "ends the walk here";
	case SW_REFUSED_NONE: break;
	}
	return "found the caller";
}

bool sw_method_reads_call(enum sw_method m)
{
	return m == SW_METHOD_FRAME_POINTER || m == SW_METHOD_BAD_PC || m == SW_METHOD_LEAF ||
	       m == SW_METHOD_PROLOGUE || m == SW_METHOD_SCAN;
}
