/* Lines and blank-separated words of the text formats a reader reads
 * with spans: the offline folder's regs.txt, links.txt and memory file
 * names, and /proc/PID/maps (proc_maps.h). Not a public API. */
#ifndef SW_FORMATS_TEXT_LINES_H
#define SW_FORMATS_TEXT_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/span.h"

/* The line of text starting at *pos (without its "\n" and a "\r" before
 * it); *pos moves to the next line. False at the end of text. */
bool text_next_line(struct sw_span text, uint64_t *pos, struct sw_span *line);
/* Lines in text: at most max + 1 are counted. */
uint64_t text_count_lines(struct sw_span text, uint64_t max);
/* The span without blanks (space, tab) at either end. */
struct sw_span text_trim(struct sw_span s);
/* The next blank-separated word of *rest (empty at the end). */
struct sw_span text_next_word(struct sw_span *rest);
/* s as a hex number (digits only, an optional "0x", any number of leading
 * zeros); false when empty, not hex, or wider than 64 bits. */
bool text_hex(struct sw_span s, uint64_t *out);
/* At most `cap` - 1 bytes of s, printable, for a message. */
const char *text_shown(struct sw_span s, char *buf, size_t cap);

#endif
