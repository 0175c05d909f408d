/* SPDX-License-Identifier: GPL-2.0 */
/* Small read-only view of a YAML document loaded with libyaml. */
#ifndef NMX_YDOC_H
#define NMX_YDOC_H

#include <stddef.h>
#include <yaml.h>

struct ydoc {
	yaml_document_t doc;
	const char *path;
	int loaded;
};

/* Load @path; on error print "path:line:col: problem" and return -1. */
int ydoc_load(struct ydoc *y, const char *path);
void ydoc_free(struct ydoc *y);

yaml_node_t *ydoc_root(struct ydoc *y);
/* Value of @key in mapping @map, or NULL (also when @map is no mapping). */
yaml_node_t *ydoc_get(struct ydoc *y, yaml_node_t *map, const char *key);
/* Scalar text of @n, or NULL when @n is absent or not a scalar. */
const char *ydoc_str(yaml_node_t *n);
/* Items of a sequence: count, and the i-th node. */
size_t ydoc_len(yaml_node_t *seq);
yaml_node_t *ydoc_item(struct ydoc *y, yaml_node_t *seq, size_t i);
/* 1-based line of a node, for messages. */
int ydoc_line(yaml_node_t *n);

/*
 * @y becomes @base with @y laid over it: mappings merged key by key (a
 * key of @y replaces @base's value, or is merged into it when both are
 * mappings), any other value of @y replacing @base's whole; @y's top-level
 * @drop_key left out. Nodes keep their lines (in the file each came from).
 * Returns 0, or -1 (out of memory) with @y unchanged.
 */
int ydoc_extend(struct ydoc *y, struct ydoc *base, const char *drop_key);

/*
 * Check that every key of mapping @map is in the NULL-terminated @allowed
 * list: a misspelt key in a data file must not be silently ignored.
 */
int ydoc_check_keys(struct ydoc *y, yaml_node_t *map, const char *what,
		    const char *const *allowed);

#endif
