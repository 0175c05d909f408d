// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: nmx judge on an arbitrary console log. */
#include <stdint.h>
#include <stdio.h>

#include "console.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xfails xfail = { 0 };
	struct verdict v;
	json_t *j;
	FILE *log;

	if (!size)
		return 0;
	log = fmemopen((void *)data, size, "rb");
	if (!log)
		return 0;
	/* An expected failure, so the XFAIL/XPASS paths run too. */
	strlist_add(&xfail.name, "pruned_subtree_hidden");
	strlist_add(&xfail.why, "finding 0: a fuzzed expectation");
	judge_stream(log, NULL, size & 1, &xfail, &v);
	fclose(log);
	j = verdict_json(&v);
	free(json_dumps(j, 0));
	json_decref(j);
	verdict_free(&v);
	xfails_free(&xfail);
	return 0;
}
