/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest's code takes from nolibc, from glibc instead, so that
 * its checks can run on the host against recorded traces (seed_test.c).
 * Debian 12's glibc (2.36) has no strlcpy()/strlcat().
 */
#ifndef NMX_HOST_GUEST_H
#define NMX_HOST_GUEST_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define my_syscall1(n, a) syscall(n, a)
#define my_syscall2(n, a, b) syscall(n, a, b)
#define my_syscall3(n, a, b, c) syscall(n, a, b, c)
#define my_syscall4(n, a, b, c, d) syscall(n, a, b, c, d)

static inline size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

static inline size_t strlcat(char *dst, const char *src, size_t size)
{
	size_t len = strnlen(dst, size);

	return len + strlcpy(dst + len, src, size > len ? size - len : 0);
}

#endif
