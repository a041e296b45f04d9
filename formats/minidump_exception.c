/* Exception stream (MINIDUMP_EXCEPTION_STREAM): the crashing thread, the
 * exception or signal, and the context at the fault. */
#include "minidump_internal.h"

enum {
	MD_EXCEPTION_STREAM_SIZE = 168,
	MD_EXCEPTION_MAX_PARAMS = 15,
};

void md_read_exception(struct md_reader *r, struct sw_span s)
{
	struct sw_crash *c = &r->snap->crash;
	if (!md_stream_holds(r, s, MD_EXCEPTION_STREAM_SIZE, "exception"))
		return;
	c->present = true;
	c->thread_id = sw_u32(s, 0);
	/* MINIDUMP_EXCEPTION at 8: code, flags, record (8), address,
	 * NumberParameters, alignment, ExceptionInformation[15]. */
	c->code = sw_u32(s, 8);
	c->flags = sw_u32(s, 12);
	c->address = sw_u64(s, 24);
	uint32_t nparams = sw_u32(s, 32);
	if (nparams > MD_EXCEPTION_MAX_PARAMS) {
		problem(r, r->optional, "exception: %u parameters, at most %d exist", nparams,
		        MD_EXCEPTION_MAX_PARAMS);
		nparams = MD_EXCEPTION_MAX_PARAMS;
	}
	c->nparams = nparams;
	for (uint32_t i = 0; i < nparams; i++)
		c->params[i] = sw_u64(s, 40 + 8 * (uint64_t)i);

	/* ThreadContext location at 160. */
	uint32_t ctx_size = sw_u32(s, 160);
	struct sw_span ctx;
	if (ctx_size > 0 && md_location(r, ctx_size, sw_u32(s, 164), "exception context", &ctx))
		md_read_context(r, ctx, "exception context", &c->ctx);
}
