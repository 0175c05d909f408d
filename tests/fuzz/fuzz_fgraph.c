// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: the guest's function_graph parser (guest/fgraph.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fgraph.h"

#define MAX_EVENTS 512

static struct fg_event events[MAX_EVENTS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fg_trace t = { .ev = events, .max = MAX_EVENTS };
	char *text = malloc(size + 1);
	int cpu = size ? data[0] % 3 - 1 : -1;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	fg_parse(&t, text, cpu);
	/* Every query the guest makes of a parsed trace. */
	fg_count_calls(&t, "handle_mm_fault");
	fg_only_beneath(&t, "__handle_mm_fault", "handle_mm_fault");
	fg_later_sibling(&t, "handle_mm_fault");
	fg_first_irq_entry(&t);
	if (t.nr > 0)
		fg_has_ancestor(&t, t.nr - 1, "do_page_fault");
	free(text);
	return 0;
}
