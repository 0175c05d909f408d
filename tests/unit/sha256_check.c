// SPDX-License-Identifier: GPL-2.0
/* Prints nmx's SHA-256 of stdin, to be compared with sha256sum's (keys.bats). */
#include <stdio.h>

#include "sha256.h"

int main(void)
{
	unsigned char buf[4096], digest[32];
	char hex[65];
	struct sha256 s;
	size_t n;

	sha256_init(&s);
	/* Odd-sized reads cross the 64-byte blocks at every offset. */
	while ((n = fread(buf, 1, 77, stdin)) > 0)
		sha256_update(&s, buf, n);
	sha256_final(&s, digest);
	sha256_hex(digest, hex);
	printf("%s\n", hex);
	return 0;
}
