// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "matrix.h"
#include "ydoc.h"

FILE *fopen_regular(const char *path)
{
	struct stat st;
	FILE *f;
	int fd = open(path, O_RDONLY | O_NONBLOCK);

	if (fd < 0) {
		fprintf(stderr, "nmx: cannot read %s: %m\n", path);
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "nmx: cannot read %s: not a regular file\n", path);
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "rb");
	if (!f) {
		fprintf(stderr, "nmx: cannot read %s: %m\n", path);
		close(fd);
	}
	return f;
}

char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, got;

	if (!f)
		return NULL;
	do {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
			if (!buf) {
				fclose(f);
				return NULL;
			}
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int path_join(char *buf, size_t size, const char *dir, const char *name)
{
	if (snprintf(buf, size, "%s/%s", dir, name) < (int)size)
		return 0;
	fprintf(stderr, "nmx: path too long: %s/%s\n", dir, name);
	return -1;
}

int series_dir_of(const char *matrix_file, const char *series, char *buf,
		  size_t size)
{
	const char *slash = strrchr(matrix_file, '/');
	int n;

	if (series[0] == '/' || !slash)
		n = snprintf(buf, size, "%s", series);
	else
		n = snprintf(buf, size, "%.*s/%s", (int)(slash - matrix_file),
			     matrix_file, series);
	if (n < (int)size)
		return 0;
	fprintf(stderr, "nmx: path too long: %s\n", series);
	return -1;
}

char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

void strlist_add_all(struct strlist *to, const struct strlist *from)
{
	size_t i;

	for (i = 0; i < from->n; i++)
		strlist_add(to, from->v[i]);
}

void strlist_add(struct strlist *l, const char *s)
{
	l->v = realloc(l->v, (l->n + 2) * sizeof(*l->v));
	if (!l->v) {
		perror("nmx");
		exit(2);
	}
	l->v[l->n++] = strdup(s);
	l->v[l->n] = NULL;
}

void strlist_free(struct strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

int strlist_has(const struct strlist *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return 1;
	return 0;
}

void strlist_add_once(struct strlist *l, const char *s)
{
	if (!strlist_has(l, s))
		strlist_add(l, s);
}

/* A required scalar; complains with file and line when missing. */
static char *need_str(struct ydoc *y, yaml_node_t *map, const char *key,
		      const char *where, int *err)
{
	const char *s = ydoc_str(ydoc_get(y, map, key));

	if (!s || !*s) {
		fprintf(stderr, "%s:%d: %s needs a non-empty '%s'\n", y->path,
			ydoc_line(map), where, key);
		*err = -1;
		return NULL;
	}
	return strdup(s);
}

/* A sequence of scalars (absent means empty). */
int get_list(struct ydoc *y, yaml_node_t *map, const char *key,
		    struct strlist *out)
{
	yaml_node_t *seq = ydoc_get(y, map, key);
	size_t i;

	if (!seq)
		return 0;
	if (seq->type != YAML_SEQUENCE_NODE) {
		fprintf(stderr, "%s:%d: '%s' must be a list\n", y->path,
			ydoc_line(seq), key);
		return -1;
	}
	for (i = 0; i < ydoc_len(seq); i++) {
		const char *s = ydoc_str(ydoc_item(y, seq, i));

		if (!s) {
			fprintf(stderr, "%s:%d: items of '%s' must be scalars\n",
				y->path, ydoc_line(seq), key);
			return -1;
		}
		strlist_add(out, s);
	}
	return 0;
}

static int get_bool(struct ydoc *y, yaml_node_t *map, const char *key,
		    int *out)
{
	const char *s = ydoc_str(ydoc_get(y, map, key));

	*out = 0;
	if (!s)
		return 0;
	if (!strcmp(s, "true") || !strcmp(s, "yes")) {
		*out = 1;
		return 0;
	}
	if (!strcmp(s, "false") || !strcmp(s, "no"))
		return 0;
	fprintf(stderr, "%s:%d: '%s' must be true or false\n", y->path,
		ydoc_line(map), key);
	return -1;
}

/* A Debian suite's name, as scripts/fetch-deb.sh takes it. */
static int valid_suite(const char *s)
{
	if (!*s || strlen(s) > 32)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '-'))
			return 0;
	return 1;
}

/*
 * qemu.suite: boot with the QEMU of another Debian suite (a QEMU new
 * enough for the machine), taken from the package that ships the binary
 * and its firmware from qemu-system-data, both unpacked into the cache.
 */
#define QEMU_DATA_PACKAGE "qemu-system-data"

static int get_qemu_suite(struct ydoc *y, yaml_node_t *qemu, struct cell *c)
{
	const char *s = ydoc_str(ydoc_get(y, qemu, "suite"));
	char package[128];

	if (!s)
		return 0;
	if (!valid_suite(s)) {
		fprintf(stderr, "%s:%d: qemu.suite must be a Debian suite name (bookworm-backports), not '%s'\n",
			y->path, ydoc_line(qemu), s);
		return -1;
	}
	if (!c->qemu_binary || strncmp(c->qemu_binary, "qemu-system-", 12) ||
	    strchr(c->qemu_binary, '/')) {
		fprintf(stderr, "%s:%d: with qemu.suite, qemu.binary is a qemu-system-* command of that suite's package\n",
			y->path, ydoc_line(qemu));
		return -1;
	}
	c->qemu_suite = strdup(s);
	c->qemu_package = strdup(tool_package(c->qemu_binary, package,
					      sizeof(package)));
	c->qemu_data_package = strdup(QEMU_DATA_PACKAGE);
	return 0;
}

/* Kconfig lines must look like CONFIG_FOO=y|m|n|"str"|number. */
static int check_kconfig_lines(struct ydoc *y, const struct strlist *l)
{
	size_t i;
	int err = 0;

	for (i = 0; i < l->n; i++) {
		const char *s = l->v[i], *eq = strchr(s, '=');

		if (strncmp(s, "CONFIG_", 7) || !eq || eq == s + 7 ||
		    !eq[1]) {
			fprintf(stderr, "%s: bad kconfig entry '%s' (want CONFIG_NAME=value)\n",
				y->path, s);
			err = -1;
		}
	}
	return err;
}

int cell_names(const char *arches_dir, struct strlist *names)
{
	struct dirent **ents;
	int i, n;

	n = scandir(arches_dir, &ents, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "nmx: cannot read %s: %m\n", arches_dir);
		return -1;
	}
	for (i = 0; i < n; i++) {
		size_t len = strlen(ents[i]->d_name);

		if (len > 5 && ents[i]->d_name[0] != '.' &&
		    !strcmp(ents[i]->d_name + len - 5, ".yaml")) {
			ents[i]->d_name[len - 5] = '\0';
			strlist_add(names, ents[i]->d_name);
		}
		free(ents[i]);
	}
	free(ents);
	return 0;
}

static void unknown_cell(const char *arches_dir, const char *name)
{
	struct strlist names = { 0 };
	size_t i;

	fprintf(stderr, "nmx: unknown cell '%s'; valid cells:", name);
	if (!cell_names(arches_dir, &names))
		for (i = 0; i < names.n; i++)
			fprintf(stderr, " %s", names.v[i]);
	fprintf(stderr, " (one file per cell under %s/)\n", arches_dir);
	strlist_free(&names);
}

static const char *const cell_keys[] = {
	"name", "description", "arch", "cross_compile", "make_targets",
	"kernel_image", "uimage_load", "dtb", "kconfig", "kconfig_since", "qemu", "guest",
	"packages", "extends", "quarantine", NULL
};
static const char *const qemu_keys[] = {
	"binary", "suite", "machine", "console", "tcg", "alone", "uboot", NULL
};
static const char *const uboot_keys[] = {
	"firmware", "firmware_arg", "kernel_load", "kernel_addr", "ramdisk_addr",
	NULL
};
static const char *const guest_keys[] = {
	"cflags", "uname_machine", "endian", "fault_root", "fault_trigger",
	"poweroff", "bl_switcher", "busybox", "min_kernel", "max_kernel", NULL
};

/* "6.12" as a number to compare: major * 1000 + minor; -1 if malformed. */
static long version_number(const char *v)
{
	char *end;
	long major, minor;

	major = strtol(v, &end, 10);
	if (end == v || *end != '.' || major < 0)
		return -1;
	v = end + 1;
	minor = strtol(v, &end, 10);
	if (end == v || *end || minor < 0 || minor >= 1000)
		return -1;
	return major * 1000 + minor;
}

/* guest.KEY, a kernel version ("6.12") or absent (NULL). */
static int get_version(struct ydoc *y, yaml_node_t *guest, const char *key,
		       char **out)
{
	const char *s = ydoc_str(ydoc_get(y, guest, key));

	*out = dup_or_null(s);
	if (s && version_number(s) < 0) {
		fprintf(stderr, "%s:%d: guest.%s is a kernel version such as \"6.12\", not '%s'\n",
			y->path, ydoc_line(guest), key, s);
		return -1;
	}
	return 0;
}

int version_at_least(const char *version, const char *since)
{
	return version && version_number(version) >= version_number(since);
}

int cell_runs_on(const struct cell *c, const char *version)
{
	if (!version)
		return 1;
	return (!c->min_kernel || version_at_least(version, c->min_kernel)) &&
	       (!c->max_kernel ||
		version_number(version) <= version_number(c->max_kernel));
}

/*
 * kconfig_since: a mapping from the kernel version where symbols appeared
 * (or were renamed) to those symbols, asked for on that version and later.
 */
static int get_kconfig_since(struct ydoc *y, yaml_node_t *n, struct cell *c)
{
	yaml_node_pair_t *p;
	int err = 0;
	size_t i;

	if (!n)
		return 0;
	if (n->type != YAML_MAPPING_NODE) {
		fprintf(stderr, "%s:%d: kconfig_since maps a kernel version (\"6.12\") to symbols\n",
			y->path, ydoc_line(n));
		return -1;
	}
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const char *v = ydoc_str(yaml_document_get_node(&y->doc, p->key));
		yaml_node_t *seq = yaml_document_get_node(&y->doc, p->value);
		struct strlist lines = { 0 };

		if (!v || version_number(v) < 0 || seq->type != YAML_SEQUENCE_NODE) {
			fprintf(stderr, "%s:%d: kconfig_since maps a kernel version (\"6.12\") to symbols\n",
				y->path, ydoc_line(n));
			err = -1;
			continue;
		}
		for (i = 0; i < (size_t)(seq->data.sequence.items.top -
					 seq->data.sequence.items.start); i++) {
			const char *l = ydoc_str(yaml_document_get_node(&y->doc,
					seq->data.sequence.items.start[i]));

			strlist_add(&lines, l ? l : "");
		}
		err |= check_kconfig_lines(y, &lines);
		for (i = 0; i < lines.n; i++) {
			strlist_add(&c->kconfig_since, lines.v[i]);
			strlist_add(&c->kconfig_since_versions, v);
		}
		strlist_free(&lines);
	}
	return err;
}

/*
 * @key of @parent: a string for every tree, or a mapping from the kernel
 * version where a value starts to be the one ("6.1": do_page_fault,
 * "6.12": handle_page_fault) where it changed between trees; @where is
 * @parent's name (NULL: the file's top level) and @value what the mapping maps to ("a function"), for
 * errors. Absent is an error if @required.
 */
static int get_by_version(struct ydoc *y, yaml_node_t *parent, const char *where,
			  const char *key, const char *value, int required,
			  struct by_version *out)
{
	yaml_node_t *n = ydoc_get(y, parent, key);
	yaml_node_pair_t *p;
	int err = 0;

	if (n && n->type == YAML_MAPPING_NODE) {
		for (p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top; p++) {
			const char *v = ydoc_str(yaml_document_get_node(&y->doc, p->key));
			const char *r = ydoc_str(yaml_document_get_node(&y->doc, p->value));

			if (!v || version_number(v) < 0 || !r || !*r) {
				fprintf(stderr, "%s:%d: %s%s%s maps a kernel version (\"6.12\") to %s\n",
					y->path, ydoc_line(n), where ? where : "",
					where ? "." : "", key, value);
				err = -1;
				continue;
			}
			strlist_add(&out->versions, v);
			strlist_add(&out->values, r);
		}
		if (!out->versions.n && !err) {
			fprintf(stderr, "%s:%d: %s%s%s maps no version\n",
				y->path, ydoc_line(n), where ? where : "",
				where ? "." : "", key);
			err = -1;
		}
		return err;
	}
	if (required)
		out->one = need_str(y, parent, key, where, &err);
	else
		out->one = dup_or_null(ydoc_str(n));
	return err;
}

const char *by_version_value(const struct by_version *b, const char *version)
{
	long want = version ? version_number(version) : -1, best = -1, v;
	const char *value = NULL;
	size_t i;

	if (b->one)
		return b->one;
	for (i = 0; want >= 0 && i < b->versions.n; i++) {
		v = version_number(b->versions.v[i]);
		if (v <= want && v > best) {
			best = v;
			value = b->values.v[i];
		}
	}
	return value;
}

static void by_version_free(struct by_version *b)
{
	free(b->one);
	strlist_free(&b->versions);
	strlist_free(&b->values);
	memset(b, 0, sizeof(*b));
}

const char *cell_fault_root(const struct cell *c, const char *version)
{
	const char *root = by_version_value(&c->fault_root, version);

	if (!root)
		fprintf(stderr, "nmx: cell %s names no fault root for kernel %s\n",
			c->name, version ? version : "of unknown version (give --tree)");
	return root;
}

int cell_has_dtb(const struct cell *c)
{
	return c->dtb.one || c->dtb.versions.n;
}

const char *cell_dtb(const struct cell *c, const char *version, int *err)
{
	const char *dtb = by_version_value(&c->dtb, version);

	if (!dtb && cell_has_dtb(c)) {
		fprintf(stderr, "nmx: cell %s names no DTB for kernel %s\n",
			c->name, version ? version : "of unknown version (give --tree)");
		*err = -1;
	}
	return dtb;
}

/*
 * "extends: CELL": @y is that cell's arch file with @y's keys laid over
 * it (a variant of a cell states only what differs). One level:
 * the cell extended extends nothing.
 */
static int extend_cell(struct ydoc *y, const char *arches_dir, const char *name,
		       struct strlist *files)
{
	const char *base_name = ydoc_str(ydoc_get(y, ydoc_root(y), "extends"));
	char path[4096];
	struct ydoc base;
	int err;

	if (!base_name)
		return 0;
	if (!*base_name || strchr(base_name, '/') || base_name[0] == '.' ||
	    !strcmp(base_name, name)) {
		fprintf(stderr, "%s: extends '%s': not another cell's name\n",
			y->path, base_name);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s.yaml", arches_dir, base_name);
	if (ydoc_load(&base, path)) {
		fprintf(stderr, "%s: extends '%s', which cannot be read\n",
			y->path, base_name);
		return -1;
	}
	if (ydoc_get(&base, ydoc_root(&base), "extends")) {
		fprintf(stderr, "%s: extends '%s', which extends another: one level only\n",
			y->path, base_name);
		ydoc_free(&base);
		return -1;
	}
	err = ydoc_extend(y, &base, "extends");
	if (err)
		fprintf(stderr, "nmx: out of memory\n");
	else
		strlist_add(files, path);
	ydoc_free(&base);
	return err;
}

int cell_load(struct cell *c, const char *arches_dir, const char *name)
{
	yaml_node_t *root, *qemu, *guest, *uboot;
	char path[4096];
	const char *s;
	struct ydoc y;
	int err = 0;

	memset(c, 0, sizeof(*c));
	if (!*name || strchr(name, '/') || name[0] == '.') {
		unknown_cell(arches_dir, name);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s.yaml", arches_dir, name);
	{
		FILE *f = fopen(path, "r");

		if (!f) {
			unknown_cell(arches_dir, name);
			return -1;
		}
		fclose(f);
	}
	if (ydoc_load(&y, path))
		return -1;
	strlist_add(&c->files, path);
	if (extend_cell(&y, arches_dir, name, &c->files))
		goto fail;
	root = ydoc_root(&y);
	if (ydoc_check_keys(&y, root, "the cell", cell_keys))
		goto fail;
	qemu = ydoc_get(&y, root, "qemu");
	guest = ydoc_get(&y, root, "guest");
	if (ydoc_check_keys(&y, qemu, "qemu", qemu_keys) ||
	    ydoc_check_keys(&y, guest, "guest", guest_keys))
		goto fail;

	c->name = need_str(&y, root, "name", "the cell", &err);
	if (c->name && strcmp(c->name, name)) {
		fprintf(stderr, "%s: name '%s' differs from the file name\n",
			path, c->name);
		err = -1;
	}
	c->description = need_str(&y, root, "description", "the cell", &err);
	c->quarantine = dup_or_null(ydoc_str(ydoc_get(&y, root, "quarantine")));
	c->arch = need_str(&y, root, "arch", "the cell", &err);
	c->cross_compile = dup_or_null(ydoc_str(ydoc_get(&y, root,
							 "cross_compile")));
	err |= get_list(&y, root, "make_targets", &c->make_targets);
	if (!c->make_targets.n) {
		fprintf(stderr, "%s: make_targets must name at least one target\n",
			path);
		err = -1;
	}
	c->kernel_image = need_str(&y, root, "kernel_image", "the cell", &err);
	c->uimage_load = dup_or_null(ydoc_str(ydoc_get(&y, root,
						       "uimage_load")));
	err |= get_by_version(&y, root, NULL, "dtb", "a DTB path", 0,
			      &c->dtb);
	err |= get_list(&y, root, "kconfig", &c->kconfig);
	err |= get_list(&y, root, "packages", &c->packages);
	err |= check_kconfig_lines(&y, &c->kconfig);
	err |= get_kconfig_since(&y, ydoc_get(&y, root, "kconfig_since"), c);

	c->qemu_binary = need_str(&y, qemu, "binary", "qemu", &err);
	err |= get_qemu_suite(&y, qemu, c);
	err |= get_list(&y, qemu, "machine", &c->qemu_machine);
	c->console = need_str(&y, qemu, "console", "qemu", &err);
	err |= get_by_version(&y, qemu, "qemu", "tcg", "an -accel value", 0,
			      &c->qemu_tcg);
	err |= get_bool(&y, qemu, "alone", &c->boot_alone);
	uboot = ydoc_get(&y, qemu, "uboot");
	if (uboot) {
		if (ydoc_check_keys(&y, uboot, "qemu.uboot", uboot_keys))
			goto fail;
		c->uboot_firmware = need_str(&y, uboot, "firmware", "qemu.uboot", &err);
		s = ydoc_str(ydoc_get(&y, uboot, "firmware_arg"));
		if (s && strcmp(s, "-bios") && strcmp(s, "-kernel")) {
			fprintf(stderr, "%s:%d: qemu.uboot's firmware_arg is -bios or -kernel, not '%s'\n",
				y.path, ydoc_line(uboot), s);
			err = -1;
		}
		c->uboot_firmware_arg = strdup(s ? s : "-bios");
		c->uboot_kernel_load = need_str(&y, uboot, "kernel_load", "qemu.uboot", &err);
		c->uboot_kernel_addr = need_str(&y, uboot, "kernel_addr", "qemu.uboot", &err);
		c->uboot_ramdisk_addr = need_str(&y, uboot, "ramdisk_addr", "qemu.uboot", &err);
	}

	err |= get_list(&y, guest, "cflags", &c->guest_cflags);
	c->uname_machine = need_str(&y, guest, "uname_machine", "guest", &err);
	s = ydoc_str(ydoc_get(&y, guest, "endian"));
	if (s && (!strcmp(s, "big") || !strcmp(s, "little"))) {
		c->big_endian = !strcmp(s, "big");
	} else {
		fprintf(stderr, "%s: guest.endian must be big or little\n",
			path);
		err = -1;
	}
	err |= get_by_version(&y, guest, "guest", "fault_root", "a function",
			      1, &c->fault_root);
	c->fault_trigger = need_str(&y, guest, "fault_trigger", "guest", &err);
	if (c->fault_trigger && strcmp(c->fault_trigger, "touch") &&
	    strcmp(c->fault_trigger, "read-zero")) {
		fprintf(stderr, "%s: guest.fault_trigger must be touch or read-zero\n",
			path);
		err = -1;
	}
	s = ydoc_str(ydoc_get(&y, guest, "poweroff"));
	if (!s || !strcmp(s, "power-off")) {
		c->poweroff_by_restart = 0;
	} else if (!strcmp(s, "restart")) {
		c->poweroff_by_restart = 1;
	} else {
		fprintf(stderr, "%s: guest.poweroff must be power-off or restart\n",
			path);
		err = -1;
	}
	err |= get_bool(&y, guest, "bl_switcher", &c->bl_switcher);
	s = ydoc_str(ydoc_get(&y, guest, "busybox"));
	if (!s) {
		fprintf(stderr, "%s: guest.busybox must name a Debian architecture, or none\n",
			path);
		err = -1;
	} else if (strcmp(s, "none")) {
		c->busybox = strdup(s);
	}
	err |= get_version(&y, guest, "min_kernel", &c->min_kernel);
	err |= get_version(&y, guest, "max_kernel", &c->max_kernel);
	ydoc_free(&y);
	if (err)
		cell_free(c);
	return err ? -1 : 0;
fail:
	ydoc_free(&y);
	cell_free(c);
	return -1;
}

const char *cell_accel(const struct cell *c, const char *accel,
		       const char *version)
{
	const char *tcg;

	if (accel && strcmp(accel, "tcg"))
		return accel;
	if (!c->qemu_tcg.one && !c->qemu_tcg.versions.n)
		return "tcg";
	tcg = by_version_value(&c->qemu_tcg, version);
	if (!tcg)
		fprintf(stderr, "nmx: cell %s names no qemu.tcg for kernel %s\n",
			c->name, version ? version : "of unknown version (give --tree)");
	return tcg;
}

/*
 * panic=-1 with QEMU's -no-reboot: a panicking guest ends QEMU at once
 * instead of hanging until the timeout; the verdict still comes from the
 * console text. The probe boots without an initramfs: reaching the
 * kernel's "no init" panic proves the accelerator works.
 */
void cell_kernel_append(const struct cell *c, int probe, const char *extra,
			char *buf, size_t n)
{
	snprintf(buf, n, "console=%s panic=-1 rdinit=%s%s%s", c->console,
		 probe ? "/nmx-probe" : "/init", extra && *extra ? " " : "",
		 extra ? extra : "");
}

/*
 * The arch files' packages: are what install-deps.sh installs; this names
 * the one a command comes from. First match wins; a tool no pattern
 * matches is its own package's name.
 */
static const struct {
	const char *pattern;	/* fnmatch(3) */
	const char *package;	/* NULL: "gcc-" and the tool without "-gcc" */
} providers[] = {
	{ "*-linux-gnu*-gcc", NULL },
	{ "mkimage", "u-boot-tools" },
	{ "fdtput", "device-tree-compiler" },
	{ "qemu-system-x86_64", "qemu-system-x86" },
	{ "qemu-system-i386", "qemu-system-x86" },
	{ "qemu-system-arm", "qemu-system-arm" },
	{ "qemu-system-aarch64", "qemu-system-arm" },
	{ "qemu-system-mips*", "qemu-system-mips" },
	{ "qemu-system-ppc*", "qemu-system-ppc" },
	{ "qemu-system-sparc*", "qemu-system-sparc" },
	{ "qemu-system-*", "qemu-system-misc" },
	{ "dpkg-query", "dpkg" },
	{ "xz", "xz-utils" },
	{ "flock", "util-linux" },
};

const char *tool_package(const char *tool, char *buf, size_t n)
{
	size_t k, len = strlen(tool);

	for (k = 0; k < sizeof(providers) / sizeof(providers[0]); k++) {
		if (fnmatch(providers[k].pattern, tool, 0))
			continue;
		if (providers[k].package)
			snprintf(buf, n, "%s", providers[k].package);
		else
			snprintf(buf, n, "gcc-%.*s", (int)(len - 4), tool);
		return buf;
	}
	snprintf(buf, n, "%s", tool);
	return buf;
}

void cell_free(struct cell *c)
{
	free(c->name);
	free(c->description);
	free(c->arch);
	free(c->cross_compile);
	strlist_free(&c->make_targets);
	free(c->kernel_image);
	free(c->uimage_load);
	by_version_free(&c->dtb);
	strlist_free(&c->kconfig);
	strlist_free(&c->kconfig_since);
	strlist_free(&c->kconfig_since_versions);
	free(c->qemu_binary);
	free(c->qemu_suite);
	free(c->qemu_package);
	free(c->qemu_data_package);
	by_version_free(&c->qemu_tcg);
	free(c->uboot_firmware);
	free(c->uboot_firmware_arg);
	free(c->uboot_kernel_load);
	free(c->uboot_kernel_addr);
	free(c->uboot_ramdisk_addr);
	strlist_free(&c->qemu_machine);
	free(c->console);
	strlist_free(&c->guest_cflags);
	free(c->uname_machine);
	by_version_free(&c->fault_root);
	free(c->fault_trigger);
	free(c->busybox);
	free(c->min_kernel);
	free(c->quarantine);
	free(c->max_kernel);
	strlist_free(&c->packages);
	strlist_free(&c->files);
	memset(c, 0, sizeof(*c));
}

static const char *const matrix_keys[] = { "trees", "run", "sets", NULL };
static const char *const group_keys[] = { "trees", "variants", "cells", NULL };
static const char *const tree_keys[] = {
	"package", "suite", "tarball", "version", "series", "variants", NULL
};
/* A number of seconds (1 to 86399) at @n into *@out; absent: unchanged. */
static int get_seconds(yaml_node_t *n, int *out)
{
	const char *s = ydoc_str(n);
	char *end = NULL;
	long t;

	if (!n)
		return 0;
	if (!s)
		return -1;
	t = strtol(s, &end, 10);
	if (end == s || *end || t <= 0 || t >= 86400)
		return -1;
	*out = (int)t;
	return 0;
}

static const char *const variant_keys[] = {
	"skip_patches", "kconfig", "findings", "boot_timeout", NULL
};
static const char *const run_keys[] = {
	"trees", "variants", "cells", "kconfig", "boot_timeout", NULL
};

/* A suite's name goes into a path and an apt source line: keep it plain. */
static int load_tree(struct ydoc *y, yaml_node_t *key, yaml_node_t *val,
		     struct tree *t)
{
	yaml_node_t *vars;
	yaml_node_pair_t *pair;
	int err = 0;

	t->name = strdup(ydoc_str(key) ? ydoc_str(key) : "?");
	if (ydoc_check_keys(y, val, "a tree", tree_keys))
		return -1;
	t->package = need_str(y, val, "package", "a tree", &err);
	t->tarball = need_str(y, val, "tarball", "a tree", &err);
	t->suite = dup_or_null(ydoc_str(ydoc_get(y, val, "suite")));
	if (t->suite && !valid_suite(t->suite)) {
		fprintf(stderr, "%s:%d: tree %s: suite '%s' is not a Debian suite name (lower-case letters, digits and -)\n",
			y->path, ydoc_line(val), t->name, t->suite);
		err = -1;
	}
	t->series = need_str(y, val, "series", "a tree", &err);
	t->version = dup_or_null(ydoc_str(ydoc_get(y, val, "version")));
	vars = ydoc_get(y, val, "variants");
	if (!vars || vars->type != YAML_MAPPING_NODE) {
		fprintf(stderr, "%s:%d: tree %s needs a 'variants' mapping\n",
			y->path, ydoc_line(val), t->name);
		return -1;
	}
	for (pair = vars->data.mapping.pairs.start;
	     pair < vars->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(&y->doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(&y->doc, pair->value);
		struct variant *var;

		t->variants = realloc(t->variants,
				      (t->nr_variants + 1) * sizeof(*var));
		var = &t->variants[t->nr_variants++];
		memset(var, 0, sizeof(*var));
		var->name = strdup(ydoc_str(k) ? ydoc_str(k) : "?");
		/* "<tree>-<variant>" names a cell's results: split at the last '-'. */
		if (strchr(var->name, '-')) {
			fprintf(stderr, "%s:%d: variant '%s' of tree %s: a variant's name has no '-'\n",
				y->path, ydoc_line(k), var->name, t->name);
			err = -1;
		}
		if (v->type == YAML_MAPPING_NODE) {
			err |= ydoc_check_keys(y, v, "a variant", variant_keys);
			err |= get_list(y, v, "skip_patches",
					&var->skip_patches);
			err |= get_list(y, v, "kconfig", &var->kconfig);
			err |= check_kconfig_lines(y, &var->kconfig);
			/* Whose expected failures apply: a variant that
			 * changes only the config inherits them. */
			var->findings_variant = dup_or_null(
				ydoc_str(ydoc_get(y, v, "findings")));
			if (get_seconds(ydoc_get(y, v, "boot_timeout"),
					&var->boot_timeout)) {
				fprintf(stderr, "%s:%d: variant %s: boot_timeout must be a number of seconds (1 to 86399)\n",
					y->path, ydoc_line(v), var->name);
				err = -1;
			}
		}
	}
	return err;
}

/*
 * One group of a set: lists of trees, variants and cells, each absent for
 * the default run's; "cells: all" for every cell under arches/.
 */
static int load_group(struct ydoc *y, yaml_node_t *g, struct matrix *m,
		      const char *arches_dir, const char *set,
		      struct set_group *out)
{
	const char *s;
	int err = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!g || g->type != YAML_MAPPING_NODE) {
		fprintf(stderr, "%s:%d: set %s: each group is a mapping of trees, variants and cells\n",
			y->path, ydoc_line(g), set);
		return -1;
	}
	if (ydoc_check_keys(y, g, "a set's group", group_keys))
		return -1;
	err |= get_list(y, g, "trees", &out->trees);
	err |= get_list(y, g, "variants", &out->variants);
	s = ydoc_str(ydoc_get(y, g, "cells"));
	if (s && !strcmp(s, "all"))
		out->all_cells = 1;
	else
		err |= get_list(y, g, "cells", &out->cells);
	for (i = 0; i < out->trees.n; i++)
		if (!matrix_tree(m, out->trees.v[i])) {
			fprintf(stderr, "%s:%d: set %s names unknown tree '%s'\n",
				y->path, ydoc_line(g), set, out->trees.v[i]);
			err = -1;
		}
	for (i = 0; i < out->cells.n; i++) {
		struct cell c;

		if (cell_load(&c, arches_dir, out->cells.v[i]))
			err = -1;
		else
			cell_free(&c);
	}
	return err;
}

/* sets: NAME: [group, ...], each a selection (load_group). */
static int load_sets(struct ydoc *y, yaml_node_t *sets, struct matrix *m,
		     const char *arches_dir)
{
	yaml_node_pair_t *pair;
	int err = 0;

	if (!sets)
		return 0;
	if (sets->type != YAML_MAPPING_NODE) {
		fprintf(stderr, "%s:%d: 'sets' maps a set's name to its groups\n",
			y->path, ydoc_line(sets));
		return -1;
	}
	for (pair = sets->data.mapping.pairs.start;
	     pair < sets->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(&y->doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(&y->doc, pair->value);
		struct cell_set *cs;
		yaml_node_item_t *it;

		m->sets = realloc(m->sets, (m->nr_sets + 1) * sizeof(*cs));
		cs = &m->sets[m->nr_sets++];
		memset(cs, 0, sizeof(*cs));
		cs->name = strdup(ydoc_str(k) ? ydoc_str(k) : "?");
		if (v->type != YAML_SEQUENCE_NODE || v->data.sequence.items.start ==
		    v->data.sequence.items.top) {
			fprintf(stderr, "%s:%d: set %s needs a list of groups (trees, variants, cells)\n",
				y->path, ydoc_line(v), cs->name);
			err = -1;
			continue;
		}
		for (it = v->data.sequence.items.start;
		     it < v->data.sequence.items.top; it++) {
			struct set_group *g;

			cs->groups = realloc(cs->groups,
					     (cs->nr_groups + 1) * sizeof(*g));
			g = &cs->groups[cs->nr_groups++];
			err |= load_group(y, yaml_document_get_node(&y->doc, *it),
					  m, arches_dir, cs->name, g);
		}
	}
	return err;
}

struct cell_set *matrix_set(struct matrix *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->nr_sets; i++)
		if (!strcmp(m->sets[i].name, name))
			return &m->sets[i];
	return NULL;
}

int matrix_load(struct matrix *m, const char *path, const char *arches_dir)
{
	yaml_node_t *root, *trees, *run;
	yaml_node_pair_t *pair;
	struct ydoc y;
	size_t i;
	int err = 0;

	memset(m, 0, sizeof(*m));
	if (ydoc_load(&y, path))
		return -1;
	root = ydoc_root(&y);
	if (ydoc_check_keys(&y, root, "matrix.yaml", matrix_keys)) {
		ydoc_free(&y);
		return -1;
	}
	trees = ydoc_get(&y, root, "trees");
	if (!trees || trees->type != YAML_MAPPING_NODE) {
		fprintf(stderr, "%s: needs a 'trees' mapping\n", path);
		ydoc_free(&y);
		return -1;
	}
	for (pair = trees->data.mapping.pairs.start;
	     pair < trees->data.mapping.pairs.top; pair++) {
		struct tree *t;

		m->trees = realloc(m->trees, (m->nr_trees + 1) * sizeof(*t));
		t = &m->trees[m->nr_trees++];
		memset(t, 0, sizeof(*t));
		err |= load_tree(&y,
				 yaml_document_get_node(&y.doc, pair->key),
				 yaml_document_get_node(&y.doc, pair->value),
				 t);
	}
	run = ydoc_get(&y, root, "run");
	if (ydoc_check_keys(&y, run, "run", run_keys)) {
		ydoc_free(&y);
		matrix_free(m);
		return -1;
	}
	err |= get_list(&y, run, "trees", &m->run_trees);
	err |= get_list(&y, run, "variants", &m->run_variants);
	err |= get_list(&y, run, "cells", &m->run_cells);
	err |= get_list(&y, run, "kconfig", &m->kconfig);
	err |= check_kconfig_lines(&y, &m->kconfig);
	m->boot_timeout = 120;
	if (get_seconds(ydoc_get(&y, run, "boot_timeout"), &m->boot_timeout)) {
		fprintf(stderr, "%s: run.boot_timeout must be a number of seconds (1 to 86399)\n",
			path);
		err = -1;
	}
	err |= load_sets(&y, ydoc_get(&y, root, "sets"), m, arches_dir);
	ydoc_free(&y);

	/* Everything named in 'run' must exist. */
	for (i = 0; i < m->run_trees.n; i++)
		if (!matrix_tree(m, m->run_trees.v[i])) {
			fprintf(stderr, "%s: run.trees names unknown tree '%s'\n",
				path, m->run_trees.v[i]);
			err = -1;
		}
	for (i = 0; i < m->run_cells.n; i++) {
		struct cell c;

		if (cell_load(&c, arches_dir, m->run_cells.v[i]))
			err = -1;
		else
			cell_free(&c);
	}
	if (err)
		matrix_free(m);
	return err ? -1 : 0;
}

void matrix_free(struct matrix *m)
{
	size_t i, j;

	for (i = 0; i < m->nr_trees; i++) {
		struct tree *t = &m->trees[i];

		for (j = 0; j < t->nr_variants; j++) {
			free(t->variants[j].name);
			strlist_free(&t->variants[j].skip_patches);
			strlist_free(&t->variants[j].kconfig);
			free(t->variants[j].extra_series);
			free(t->variants[j].findings_variant);
		}
		free(t->variants);
		free(t->name);
		free(t->package);
		free(t->tarball);
		free(t->suite);
		free(t->series_of);
		free(t->series_why);
		free(t->source);
		free(t->version);
		free(t->series);
	}
	free(m->trees);
	strlist_free(&m->run_trees);
	strlist_free(&m->run_variants);
	strlist_free(&m->run_cells);
	for (i = 0; i < m->nr_sets; i++) {
		for (j = 0; j < m->sets[i].nr_groups; j++) {
			strlist_free(&m->sets[i].groups[j].trees);
			strlist_free(&m->sets[i].groups[j].variants);
			strlist_free(&m->sets[i].groups[j].cells);
		}
		free(m->sets[i].groups);
		free(m->sets[i].name);
	}
	free(m->sets);
	strlist_free(&m->kconfig);
	memset(m, 0, sizeof(*m));
}

struct tree *matrix_tree(struct matrix *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->nr_trees; i++)
		if (!strcmp(m->trees[i].name, name))
			return &m->trees[i];
	return NULL;
}

struct variant *tree_variant(struct tree *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nr_variants; i++)
		if (!strcmp(t->variants[i].name, name))
			return &t->variants[i];
	return NULL;
}

int matrix_add_variant(struct matrix *m, const char *name, const char *base,
		       const char *extra_series)
{
	size_t i;

	for (i = 0; i < m->nr_trees; i++) {
		struct tree *t = &m->trees[i];
		struct variant *b = tree_variant(t, base), *v;

		if (tree_variant(t, name)) {
			fprintf(stderr, "nmx: tree %s already has a variant '%s'\n",
				t->name, name);
			return -1;
		}
		if (!b)
			continue;
		t->variants = realloc(t->variants,
				      (t->nr_variants + 1) * sizeof(*v));
		b = tree_variant(t, base);	/* the array may have moved */
		v = &t->variants[t->nr_variants++];
		memset(v, 0, sizeof(*v));
		v->name = strdup(name);
		strlist_add_all(&v->skip_patches, &b->skip_patches);
		strlist_add_all(&v->kconfig, &b->kconfig);
		v->boot_timeout = b->boot_timeout;
		v->extra_series = strdup(extra_series);
		v->findings_variant = strdup(b->findings_variant ?
					     b->findings_variant : base);
	}
	return 0;
}

/* VERSION.PATCHLEVEL.SUBLEVEL of the kernel tree in @dir, or -1. */
static int kernel_version(const char *dir, char *out, size_t size)
{
	char path[4096], line[256];
	long v[3] = { -1, -1, 0 };
	FILE *f;

	snprintf(path, sizeof(path), "%s/Makefile", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		static const char *const keys[] = {
			"VERSION = ", "PATCHLEVEL = ", "SUBLEVEL = "
		};
		char *end;
		int k;

		for (k = 0; k < 3; k++) {
			size_t n = strlen(keys[k]);

			if (strncmp(line, keys[k], n))
				continue;
			v[k] = strtol(line + n, &end, 10);
			if (end == line + n || (*end != '\n' && *end))
				v[k] = -1;
		}
	}
	fclose(f);
	if (v[0] < 0 || v[1] < 0 || v[2] < 0)
		return -1;
	snprintf(out, size, "%ld.%ld.%ld", v[0], v[1], v[2]);
	return 0;
}

/* "7.4" of "7.4.0" into @buf. */
static const char *major_minor(const char *version, char *buf, size_t size)
{
	const char *dot = strchr(version, '.');
	size_t n = dot ? strcspn(dot + 1, ".-") + (size_t)(dot + 1 - version)
		       : strlen(version);

	snprintf(buf, size, "%.*s", (int)n, version);
	return buf;
}

const struct tree *matrix_newest_tree(const struct matrix *m)
{
	const struct tree *best = NULL;
	long best_n = -1, n;
	size_t i;

	for (i = 0; i < m->nr_trees; i++) {
		if (!m->trees[i].version || m->trees[i].source)
			continue;
		n = version_number(m->trees[i].version);
		if (n > best_n) {
			best_n = n;
			best = &m->trees[i];
		}
	}
	return best;
}

int matrix_add_local_tree(struct matrix *m, const char *name, const char *dir,
			  const char *series_of)
{
	char version[64], mm[64], *abs;
	struct tree *base = NULL, *t;
	size_t i, bi;
	int newer = 0;

	if (kernel_version(dir, version, sizeof(version))) {
		fprintf(stderr, "nmx: %s is not a kernel tree (no Makefile with VERSION, PATCHLEVEL and SUBLEVEL)\n",
			dir);
		return -1;
	}
	if (matrix_tree(m, name)) {
		fprintf(stderr, "nmx: matrix.yaml already has a tree '%s'\n", name);
		return -1;
	}
	if (series_of) {
		base = matrix_tree(m, series_of);
		if (!base) {
			fprintf(stderr, "nmx: no tree '%s' to take the series of\n",
				series_of);
			return -1;
		}
	} else {
		for (i = 0; i < m->nr_trees; i++) {
			const char *v = m->trees[i].version;
			size_t n = v ? strlen(v) : 0;

			if (!n || strncmp(version, v, n) || version[n] != '.')
				continue;
			if (base) {
				fprintf(stderr, "nmx: %s is Linux %s; the series of %s and %s are both for it. Name one with --series TREE.\n",
					dir, version, base->name, m->trees[i].name);
				return -1;
			}
			base = &m->trees[i];
		}
		/*
		 * Newer than every series (mainline, linux-next): the newest
		 * series not newer than it, whose patches may or may not
		 * apply (PATCH_FAIL says which hunk did not).
		 */
		if (!base) {
			const struct tree *newest = matrix_newest_tree(m);

			if (newest && version_number(newest->version) <=
				      version_number(major_minor(version, mm, sizeof(mm)))) {
				base = &m->trees[newest - m->trees];
				newer = 1;
			}
		}
		if (!base) {
			fprintf(stderr, "nmx: %s is Linux %s; no series is for it. Series:",
				dir, version);
			for (i = 0; i < m->nr_trees; i++)
				fprintf(stderr, " %s (%s)", m->trees[i].name,
					m->trees[i].version ?
					m->trees[i].version : "no version");
			fprintf(stderr, ". Name one with --series TREE.\n");
			return -1;
		}
	}
	abs = realpath(dir, NULL);
	if (!abs) {
		fprintf(stderr, "nmx: %s: %m\n", dir);
		return -1;
	}
	bi = base - m->trees;
	m->trees = realloc(m->trees, (m->nr_trees + 1) * sizeof(*t));
	base = &m->trees[bi];
	t = &m->trees[m->nr_trees++];
	memset(t, 0, sizeof(*t));
	t->name = strdup(name);
	t->source = abs;
	t->version = strdup(version);
	t->series = strdup(base->series);
	t->series_of = strdup(base->name);
	t->series_why = strdup(series_of ? "named with --series" :
			       newer ? "the newest series, older than the checkout" :
			       "the series for its version");
	t->variants = calloc(base->nr_variants, sizeof(*t->variants));
	t->nr_variants = base->nr_variants;
	for (i = 0; i < base->nr_variants; i++) {
		struct variant *from = &base->variants[i], *to = &t->variants[i];

		to->name = strdup(from->name);
		strlist_add_all(&to->skip_patches, &from->skip_patches);
		strlist_add_all(&to->kconfig, &from->kconfig);
		to->boot_timeout = from->boot_timeout;
		to->extra_series = dup_or_null(from->extra_series);
		to->findings_variant = dup_or_null(from->findings_variant);
	}
	return 0;
}
