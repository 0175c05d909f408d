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
