// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a cell's records as the run directory holds them,
 * merged by `nmx result`, read back by the reports' loader (run_load) and
 * written as every report and compared with itself; and the cell's facts
 * (cell.tsv) as every step reads them (facts_read), written back.
 * Input: stages.tsv, meta.tsv, verdict.json, boot.log, cell.tsv, separated
 * by "\n--8<--\n".
 */
#include "fuzz_util.h"	/* first: it asks for _GNU_SOURCE (memmem) */
#include "facts.h"
#include "report.h"

int nmx_main(int argc, char **argv);

static const char *const parts[] = {
	"stages.tsv", "meta.tsv", "verdict.json", "boot.log", "cell.tsv",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char run_dir[512], cell[600], path[700];
	char *argv[] = { "nmx", "result", "--cell-dir", cell, NULL };
	const uint8_t *part;
	struct run run;
	size_t i, len;
	FILE *null;

	snprintf(run_dir, sizeof(run_dir), "%s/run", fuzz_dir());
	mkdir(run_dir, 0700);
	snprintf(cell, sizeof(cell), "%s/linux-6.1-upstream", run_dir);
	mkdir(cell, 0700);
	snprintf(cell, sizeof(cell), "%s/linux-6.1-upstream/arm64", run_dir);
	mkdir(cell, 0700);
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		fuzz_part(data, size, i, &part, &len);
		snprintf(path, sizeof(path), "%s/%s", cell, parts[i]);
		fuzz_write(path, part, len);
	}
	snprintf(path, sizeof(path), "%s/cell.tsv", cell);
	{
		struct cell_facts f;

		null = fopen("/dev/null", "w");
		if (!facts_read(&f, path)) {
			facts_write(null, &f);
			facts_free(&f);
		}
		fclose(null);
	}
	snprintf(path, sizeof(path), "%s/result.json", cell);
	unlink(path);
	nmx_main(4, argv);
	if (run_load(&run, run_dir))
		return 0;
	null = fopen("/dev/null", "w");
	report_html(&run, &run, null);
	report_md(&run, &run, null);
	report_junit(&run, null);
	report_kcidb(&run, null);
	fclose(null);
	run_free(&run);
	return 0;
}
