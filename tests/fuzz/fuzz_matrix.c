// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: matrix.yaml and an arch file, as nmx loads them.
 * Input: the matrix, "\n--8<--\n", the cell file arches/fuzz.yaml.
 */
#include "fuzz_util.h"
#include "matrix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char matrix[512], arches[512], cellf[600];
	const uint8_t *part;
	struct matrix m;
	struct cell c;
	size_t len;

	snprintf(matrix, sizeof(matrix), "%s/matrix.yaml", fuzz_dir());
	snprintf(arches, sizeof(arches), "%s/arches", fuzz_dir());
	snprintf(cellf, sizeof(cellf), "%s/fuzz.yaml", arches);
	mkdir(arches, 0700);
	fuzz_part(data, size, 0, &part, &len);
	fuzz_write(matrix, part, len);
	fuzz_part(data, size, 1, &part, &len);
	fuzz_write(cellf, part, len);
	if (!matrix_load(&m, matrix, arches))
		matrix_free(&m);
	if (!cell_load(&c, arches, "fuzz"))
		cell_free(&c);
	return 0;
}
