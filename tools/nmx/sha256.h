/* SPDX-License-Identifier: GPL-2.0 */
/* SHA-256 (FIPS 180-4), for the keys of what a run may reuse. */
#ifndef NMX_SHA256_H
#define NMX_SHA256_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sha256 {
	uint32_t h[8];
	uint64_t len;		/* bytes hashed so far */
	unsigned char buf[64];
	size_t fill;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t n);
/* The rest of @f's bytes; -1 on a read error (errno says which). */
int sha256_stream(struct sha256 *s, FILE *f);
void sha256_final(struct sha256 *s, unsigned char out[32]);
/* The digest as 64 lowercase hex digits and a NUL. */
void sha256_hex(const unsigned char digest[32], char out[65]);

#endif
