/* SPDX-License-Identifier: GPL-2.0 */
/* A maintainer's patches, imported into a run (nmx run-dir new --patches). */
#ifndef NMX_PATCHES_H
#define NMX_PATCHES_H

/*
 * @src (a directory of *.patch, *.diff and *.mbox files, or one such
 * file) as mails git am takes, numbered NNNN-NAME.patch in @dest, with
 * @dest/series in their order and series.imported-from saying whence.
 * -1, said on stderr, for no patch, a file without a diff, an unreadable
 * mbox or a write error.
 */
int import_patches(const char *src, const char *dest);

#endif
