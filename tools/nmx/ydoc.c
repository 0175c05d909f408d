// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ydoc.h"

/* The largest data file read: matrix.yaml and arch files are a few KiB. */
#define YDOC_MAX_BYTES (1 << 20)

/*
 * libyaml keeps every pair of a mapping, and ydoc_get() would quietly take
 * the first of two equal keys: a duplicate is an error, in any mapping.
 */
static int check_duplicates(struct ydoc *y)
{
	yaml_node_t *n;
	int err = 0;

	for (n = y->doc.nodes.start; n < y->doc.nodes.top; n++) {
		yaml_node_pair_t *a, *b;

		if (n->type != YAML_MAPPING_NODE)
			continue;
		for (a = n->data.mapping.pairs.start;
		     a < n->data.mapping.pairs.top; a++) {
			const char *ka = ydoc_str(yaml_document_get_node(&y->doc,
									 a->key));

			if (!ka)
				continue;
			for (b = n->data.mapping.pairs.start; b < a; b++) {
				yaml_node_t *kb = yaml_document_get_node(&y->doc,
									 b->key);

				if (ydoc_str(kb) && !strcmp(ka, ydoc_str(kb))) {
					fprintf(stderr, "%s:%d: duplicate key '%s' (first at line %d)\n",
						y->path, ydoc_line(yaml_document_get_node(
							&y->doc, a->key)), ka,
						ydoc_line(kb));
					err = -1;
					break;
				}
			}
		}
	}
	return err;
}

int ydoc_load(struct ydoc *y, const char *path)
{
	struct stat st;
	yaml_parser_t parser;
	FILE *f;
	int ret = -1;

	memset(y, 0, sizeof(*y));
	y->path = path;
	/* Before opening: a FIFO would block fopen(). */
	if (stat(path, &st)) {
		fprintf(stderr, "nmx: cannot open %s: %m\n", path);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > YDOC_MAX_BYTES) {
		fprintf(stderr, "%s: not a regular file of at most %d bytes: not a data file\n",
			path, YDOC_MAX_BYTES);
		return -1;
	}
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "nmx: cannot open %s: %m\n", path);
		return -1;
	}
	if (!yaml_parser_initialize(&parser)) {
		fprintf(stderr, "nmx: out of memory\n");
		goto close_file;
	}
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &y->doc)) {
		fprintf(stderr, "%s:%zu:%zu: %s\n", path,
			parser.problem_mark.line + 1,
			parser.problem_mark.column + 1,
			parser.problem ? parser.problem : "invalid YAML");
		goto free_parser;
	}
	if (!yaml_document_get_root_node(&y->doc)) {
		fprintf(stderr, "%s: empty document\n", path);
		yaml_document_delete(&y->doc);
		goto free_parser;
	}
	y->loaded = 1;
	if (check_duplicates(y)) {
		ydoc_free(y);
		goto free_parser;
	}
	ret = 0;
free_parser:
	yaml_parser_delete(&parser);
close_file:
	fclose(f);
	return ret;
}

/* Copy node @id of @src into @dst; its new id, or 0. */
static int copy_node(yaml_document_t *dst, yaml_document_t *src, int id)
{
	yaml_node_t *n = yaml_document_get_node(src, id);
	yaml_node_item_t *item;
	yaml_node_pair_t *pair;
	yaml_mark_t mark;
	int out = 0, k, v;

	if (!n)
		return 0;
	mark = n->start_mark;
	switch (n->type) {
	case YAML_SCALAR_NODE:
		out = yaml_document_add_scalar(dst, n->tag, n->data.scalar.value,
					       (int)n->data.scalar.length,
					       n->data.scalar.style);
		break;
	case YAML_SEQUENCE_NODE:
		out = yaml_document_add_sequence(dst, n->tag,
						 n->data.sequence.style);
		for (item = n->data.sequence.items.start; out &&
		     item < n->data.sequence.items.top; item++) {
			v = copy_node(dst, src, *item);
			if (!v || !yaml_document_append_sequence_item(dst, out, v))
				return 0;
		}
		break;
	case YAML_MAPPING_NODE:
		out = yaml_document_add_mapping(dst, n->tag,
						n->data.mapping.style);
		for (pair = n->data.mapping.pairs.start; out &&
		     pair < n->data.mapping.pairs.top; pair++) {
			k = copy_node(dst, src, pair->key);
			v = copy_node(dst, src, pair->value);
			if (!k || !v ||
			    !yaml_document_append_mapping_pair(dst, out, k, v))
				return 0;
		}
		break;
	default:
		return 0;
	}
	if (out)
		yaml_document_get_node(dst, out)->start_mark = mark;
	return out;
}

/* The value of scalar key @key in mapping node @map of @doc, or 0. */
static int pair_value(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *pair;

	for (pair = map->data.mapping.pairs.start;
	     pair < map->data.mapping.pairs.top; pair++) {
		const char *k = ydoc_str(yaml_document_get_node(doc, pair->key));

		if (k && !strcmp(k, key))
			return pair->value;
	}
	return 0;
}

/* @over (of @o) laid over @under (of @u), into @dst: its id, or 0. */
static int merge_node(yaml_document_t *dst, yaml_document_t *u, int under,
		      yaml_document_t *o, int over, const char *drop_key)
{
	yaml_node_t *un = yaml_document_get_node(u, under);
	yaml_node_t *on = yaml_document_get_node(o, over);
	yaml_node_pair_t *pair;
	yaml_mark_t mark;
	int out, k, v, i, n;

	if (!un || !on || un->type != YAML_MAPPING_NODE ||
	    on->type != YAML_MAPPING_NODE)
		return copy_node(dst, o, over);
	mark = on->start_mark;
	out = yaml_document_add_mapping(dst, on->tag, on->data.mapping.style);
	/* @under's keys in its order, each from @over where it has it. */
	n = (int)(un->data.mapping.pairs.top - un->data.mapping.pairs.start);
	for (i = 0; out && i < n; i++) {
		const char *key;
		int ov;

		/* Re-read: the documents are not @dst, their nodes stay put. */
		pair = yaml_document_get_node(u, under)->data.mapping.pairs.start + i;
		key = ydoc_str(yaml_document_get_node(u, pair->key));
		ov = key ? pair_value(o, yaml_document_get_node(o, over), key) : 0;
		k = copy_node(dst, u, pair->key);
		v = ov ? merge_node(dst, u, pair->value, o, ov, NULL) :
			 copy_node(dst, u, pair->value);
		if (!k || !v || !yaml_document_append_mapping_pair(dst, out, k, v))
			return 0;
	}
	/* Then @over's own keys. */
	n = (int)(on->data.mapping.pairs.top - on->data.mapping.pairs.start);
	for (i = 0; out && i < n; i++) {
		const char *key;

		pair = yaml_document_get_node(o, over)->data.mapping.pairs.start + i;
		key = ydoc_str(yaml_document_get_node(o, pair->key));
		if (key && (pair_value(u, yaml_document_get_node(u, under), key) ||
			    (drop_key && !strcmp(key, drop_key))))
			continue;
		k = copy_node(dst, o, pair->key);
		v = copy_node(dst, o, pair->value);
		if (!k || !v || !yaml_document_append_mapping_pair(dst, out, k, v))
			return 0;
	}
	if (out)
		yaml_document_get_node(dst, out)->start_mark = mark;
	return out;
}

int ydoc_extend(struct ydoc *y, struct ydoc *base, const char *drop_key)
{
	yaml_document_t merged;

	if (!yaml_document_initialize(&merged, NULL, NULL, NULL, 1, 1))
		return -1;
	/* The root is the first node added: merge_node adds it first. */
	if (!merge_node(&merged, &base->doc, 1, &y->doc, 1, drop_key)) {
		yaml_document_delete(&merged);
		return -1;
	}
	yaml_document_delete(&y->doc);
	y->doc = merged;
	return 0;
}

void ydoc_free(struct ydoc *y)
{
	if (y->loaded)
		yaml_document_delete(&y->doc);
	y->loaded = 0;
}

yaml_node_t *ydoc_root(struct ydoc *y)
{
	return yaml_document_get_root_node(&y->doc);
}

yaml_node_t *ydoc_get(struct ydoc *y, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *pair;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (pair = map->data.mapping.pairs.start;
	     pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(&y->doc, pair->key);

		if (k && k->type == YAML_SCALAR_NODE &&
		    !strcmp((const char *)k->data.scalar.value, key))
			return yaml_document_get_node(&y->doc, pair->value);
	}
	return NULL;
}

const char *ydoc_str(yaml_node_t *n)
{
	if (!n || n->type != YAML_SCALAR_NODE)
		return NULL;
	return (const char *)n->data.scalar.value;
}

size_t ydoc_len(yaml_node_t *seq)
{
	if (!seq || seq->type != YAML_SEQUENCE_NODE)
		return 0;
	return seq->data.sequence.items.top - seq->data.sequence.items.start;
}

yaml_node_t *ydoc_item(struct ydoc *y, yaml_node_t *seq, size_t i)
{
	if (i >= ydoc_len(seq))
		return NULL;
	return yaml_document_get_node(&y->doc,
				      seq->data.sequence.items.start[i]);
}

int ydoc_line(yaml_node_t *n)
{
	return n ? (int)n->start_mark.line + 1 : 0;
}

int ydoc_check_keys(struct ydoc *y, yaml_node_t *map, const char *what,
		    const char *const *allowed)
{
	yaml_node_pair_t *pair;
	int bad = 0;

	if (!map || map->type != YAML_MAPPING_NODE) {
		fprintf(stderr, "%s:%d: %s must be a mapping\n", y->path,
			ydoc_line(map), what);
		return -1;
	}
	for (pair = map->data.mapping.pairs.start;
	     pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(&y->doc, pair->key);
		const char *name = ydoc_str(k);
		const char *const *a;

		for (a = allowed; name && *a; a++)
			if (!strcmp(name, *a))
				break;
		if (!name || !*a) {
			fprintf(stderr, "%s:%d: unknown key '%s' in %s (known:",
				y->path, ydoc_line(k), name ? name : "?", what);
			for (a = allowed; *a; a++)
				fprintf(stderr, " %s", *a);
			fprintf(stderr, ")\n");
			bad = -1;
		}
	}
	return bad;
}
