// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "console.h"
#include "kernel_reports.h"
#include "status.h"

/*
 * Inside an NMX-FILE frame the guest prints a file it read: a
 * function-graph trace (" 0)  1.2 us  |  f();", "# tracer: ..."), whose
 * function names must not read as kernel reports. Other lines there
 * (ftracetest's log, or the kernel interleaving its own lines with the
 * dump) are still looked at.
 */
static int is_trace_data(const char *s)
{
	const char *p = s;

	if (*s == '#' || !*s)
		return 1;
	while (*p >= '0' && *p <= '9')
		p++;
	return p > s && *p == ')';
}

/* Length of the valid UTF-8 sequence at @s, or 0. */
static int utf8_len(const unsigned char *s)
{
	int n, i;

	if (*s < 0x80)
		return 1;
	n = (*s & 0xe0) == 0xc0 ? 2 : (*s & 0xf0) == 0xe0 ? 3 :
	    (*s & 0xf8) == 0xf0 ? 4 : 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

long console_clean(char *s, size_t len, int ascii_only)
{
	char *w = s, *end = s + len;
	long bad = 0;

	while (s < end) {
		unsigned char c = *s;
		int n = utf8_len((const unsigned char *)s);

		if (c == '\r') {
			s++;
			continue;
		}
		if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f || !n ||
		    s + n > end || (ascii_only && c >= 0x80)) {
			*w++ = '?';
			s++;
			bad++;
			continue;
		}
		while (n--)
			*w++ = *s++;
	}
	*w = '\0';
	return bad;
}

/* Guest lines start at column 0; tolerate leading blanks only. */
static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static int safe_file_name(const char *s)
{
	if (!*s || *s == '.')
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' &&
		    *s != '.')
			return 0;
	return 1;
}

int directive_is(const char *directive, const char *word)
{
	return directive && !strncasecmp(directive, word, strlen(word));
}

/* Is @s a result line ("ok ...", "not ok ..."), well formed or not? */
static int looks_like_result(const char *s)
{
	if (!strncmp(s, "not ok", 6))
		s += 6;
	else if (!strncmp(s, "ok", 2))
		s += 2;
	else
		return 0;
	return !*s || *s == ' ' || *s == '\t';
}

/*
 * "ok 3 name # directive" / "not ok 3 name"; returns 0 when it is one.
 * As in TAP, the directive is what follows the first "#", blanks
 * skipped ("#SKIP", "# skip reason"); the name is what precedes it.
 */
static int parse_result(const char *s, struct subtest *t)
{
	const char *p = s, *hash;
	size_t name_len;
	char *end;
	long n;

	memset(t, 0, sizeof(*t));
	if (!strncmp(p, "not ok ", 7)) {
		p += 7;
	} else if (!strncmp(p, "ok ", 3)) {
		t->ok = 1;
		p += 3;
	} else {
		return -1;
	}
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	n = strtol(p, &end, 10);
	if (errno || n <= 0 || n > 1000000 ||
	    (*end && *end != ' ' && *end != '\t'))
		return -1;
	t->number = (int)n;
	p = skip_blanks(end);
	hash = strchr(p, '#');
	name_len = hash ? (size_t)(hash - p) : strlen(p);
	while (name_len && (p[name_len - 1] == ' ' || p[name_len - 1] == '\t'))
		name_len--;
	t->name = strndup(p, name_len);
	if (hash)
		t->directive = strdup(skip_blanks(hash + 1));
	return 0;
}

enum ktap_line ktap_line(const char *line, size_t len, struct subtest *t)
{
	char *s = strndup(line, len);
	enum ktap_line kind = KTAP_OTHER;
	const char *p;

	memset(t, 0, sizeof(*t));
	console_clean(s, strlen(s), 1);
	p = skip_blanks(s);
	if (looks_like_result(p))
		kind = parse_result(p, t) ? KTAP_MALFORMED : KTAP_RESULT;
	free(s);
	return kind;
}

void subtest_free(struct subtest *t)
{
	free(t->name);
	free(t->directive);
	free(t->finding);
	strlist_free(&t->diag);
	memset(t, 0, sizeof(*t));
}

static void __attribute__((format(printf, 2, 3)))
set_reason(struct verdict *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->reason, sizeof(v->reason), fmt, ap);
	va_end(ap);
}

/*
 * The kernel's first report and its panic, quoted, or NULL when it printed
 * neither: a report that led to the panic explains it (a bare stack dump
 * or "cut here" does not: the panic prints those itself).
 */
static const char *kernel_complaint(const struct verdict *v, char *buf,
				    size_t size)
{
	if (v->kernel_error && v->panic && !v->kernel_error_weak)
		snprintf(buf, size, "kernel reported %s: \"%.250s\", then panic: \"%.200s\"",
			 v->kernel_error_class, v->kernel_error, v->panic);
	else if (v->panic)
		snprintf(buf, size, "kernel panic: \"%.300s\"", v->panic);
	else if (v->kernel_error)
		snprintf(buf, size, "kernel reported %s: \"%.300s\"",
			 v->kernel_error_class, v->kernel_error);
	else
		return NULL;
	return buf;
}

static void decide(struct verdict *v, int timed_out)
{
	char failed[600] = "", complaint[600];
	const char *kc = kernel_complaint(v, complaint, sizeof(complaint));
	size_t i, skipped = 0;

	/* What the host could not do says nothing of the kernel. */
	if (v->read_failed || v->write_failed) {
		v->status = status_name(ST_INFRA_FAIL);
		if (v->read_failed)
			set_reason(v, "cannot read the console: %s", v->read_failed);
		else
			set_reason(v, "cannot write the guest's file %s/%s: %s",
				   NMX_GUEST_FILES_DIR, v->write_failed,
				   strerror(v->write_errno));
		return;
	}
	if (v->frame_error) {
		v->status = status_name(v->ktap_seen ? ST_TEST_FAIL : ST_BOOT_FAIL);
		set_reason(v, "console frames refused: %s%s%s", v->frame_error,
			   kc ? "; " : "", kc ? kc : "");
		return;
	}
	if (v->bail_out) {
		v->status = status_name(ST_TEST_FAIL);
		set_reason(v, "the guest bailed out: \"%.300s\"%s%s",
			   v->bail_reason, kc ? "; " : "", kc ? kc : "");
		return;
	}
	if (!v->ktap_seen) {
		v->status = status_name(timed_out ? ST_TIMEOUT : ST_BOOT_FAIL);
		if (v->no_init)
			set_reason(v, "init did not start: %s", v->no_init);
		else if (kc)
			set_reason(v, "before any test, %s", kc);
		else if (timed_out)
			set_reason(v, "no KTAP output before the timeout%s",
				   v->lines ? "" : " (console empty)");
		else
			set_reason(v, "QEMU exited without KTAP output%s",
				   v->lines ? "" : " (console empty)");
		return;
	}
	if (v->planned < 0 || (int)v->nr_tests < v->planned) {
		v->status = status_name(timed_out ? ST_TIMEOUT : ST_TEST_FAIL);
		if (v->planned < 0)
			set_reason(v, "KTAP output has no plan line%s%s",
				   kc ? "; " : "", kc ? kc : "");
		else
			set_reason(v, "KTAP incomplete: %zu of %d results; %s",
				   v->nr_tests, v->planned, kc ? kc :
				   timed_out ? "guest stopped printing" :
				   "log ends early");
		return;
	}
	if (v->malformed || (int)v->nr_tests > v->planned) {
		v->status = status_name(ST_TEST_FAIL);
		set_reason(v, "KTAP results malformed, out of order, duplicated or beyond the plan");
		return;
	}
	for (i = 0; i < v->nr_tests; i++) {
		const struct subtest *t = &v->tests[i];

		if (t->ok && directive_is(t->directive, "SKIP"))
			skipped++;
		if (t->ok && !t->xpass)
			continue;
		if (!t->ok && t->xfail)
			continue;
		if (*failed)
			strncat(failed, " ", sizeof(failed) - strlen(failed) - 1);
		strncat(failed, t->name, sizeof(failed) - strlen(failed) - 1);
		if (t->xpass)
			strncat(failed, " (XPASS: update FINDINGS.md)",
				sizeof(failed) - strlen(failed) - 1);
	}
	if (kc) {
		v->status = status_name(ST_TEST_FAIL);
		set_reason(v, "%s%s%s", kc, *failed ? "; failed: " : "", failed);
		return;
	}
	if (*failed) {
		v->status = status_name(ST_TEST_FAIL);
		set_reason(v, "failed: %s", failed);
		return;
	}
	if (v->nr_markers > 1) {
		v->status = status_name(ST_TEST_FAIL);
		set_reason(v, "%d final markers: the guest must print exactly one",
			   v->nr_markers);
		return;
	}
	/* With expected failures the guest ends with its FAIL marker. */
	if (!(v->nr_xfail ? v->fail_marker : v->marker)) {
		v->status = status_name(ST_TEST_FAIL);
		if (v->fail_marker)
			set_reason(v, "all tests ok, but the guest printed '%s'",
				   NMX_FAIL_MARKER);
		else
			set_reason(v, "all tests ok, but the success marker '%s' is missing",
				   v->nr_xfail ? NMX_FAIL_MARKER : NMX_SUCCESS_MARKER);
		return;
	}
	if (v->after_marker) {
		v->status = status_name(ST_TEST_FAIL);
		set_reason(v, "output after the final marker: \"%.300s\"",
			   v->after_marker);
		return;
	}
	if (timed_out) {
		v->status = status_name(ST_TIMEOUT);
		set_reason(v, "guest passed but QEMU did not exit (power-off failed?)");
		return;
	}
	if (skipped == v->nr_tests) {
		/* A plan of 0, or every subtest skipped: nothing was proved. */
		v->status = status_name(ST_SKIP);
		set_reason(v, "no subtest ran: %zu of %zu skipped", skipped,
			   v->nr_tests);
		return;
	}
	v->status = status_name(ST_PASS);
	if (v->nr_xfail)
		set_reason(v, "%zu tests ok, %d expected failure(s) named in FINDINGS.md",
			   v->nr_tests - v->nr_xfail, v->nr_xfail);
	else if (skipped)
		set_reason(v, "%zu tests ok, %zu skipped", v->nr_tests - skipped,
			   skipped);
	else
		set_reason(v, "%zu tests ok", v->nr_tests);
}

static void apply_xfails(struct verdict *v, const struct xfails *xfail)
{
	size_t i, k;

	for (i = 0; xfail && i < v->nr_tests; i++) {
		struct subtest *t = &v->tests[i];

		for (k = 0; k < xfail->name.n; k++)
			if (!strcmp(xfail->name.v[k], t->name))
				break;
		if (k == xfail->name.n)
			continue;
		if (k < xfail->why.n && *xfail->why.v[k] && !t->finding)
			t->finding = strdup(xfail->why.v[k]);
		if (t->ok) {
			t->xpass = 1;
		} else {
			t->xfail = 1;
			v->nr_xfail++;
		}
	}
}

static void add_test(struct verdict *v, struct subtest *t,
		     struct strlist *pending)
{
	if (t->number != (int)v->nr_tests + 1)
		v->malformed = 1;
	t->diag = *pending;
	memset(pending, 0, sizeof(*pending));
	/* The guest prints its clock before each result. */
	t->seconds = -1;
	if (v->uptime_mark >= 0 && v->uptime_last >= 0)
		t->seconds = v->uptime_mark - v->uptime_last;
	if (v->uptime_mark >= 0)
		v->uptime_last = v->uptime_mark;
	v->uptime_mark = -1;
	v->tests = realloc(v->tests, (v->nr_tests + 1) * sizeof(*t));
	if (!v->tests) {
		perror("nmx");
		exit(2);
	}
	v->tests[v->nr_tests++] = *t;
}

/* Close a file the guest framed; remember the first that did not write. */
static void close_file(struct verdict *v, FILE **file)
{
	int err;

	if (!*file)
		return;
	err = fflush(*file) | ferror(*file);
	err |= fclose(*file);
	*file = NULL;
	if (err && !v->write_failed) {
		v->write_errno = errno;
		v->write_failed = strdup(v->files.n ? v->files.v[v->files.n - 1] : "?");
	}
}

static void __attribute__((format(printf, 2, 3)))
frame_refused(struct verdict *v, const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	if (v->frame_error)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	v->frame_error = strdup(buf);
}

void guest_file_path(char *buf, size_t size, const char *dir, const char *name)
{
	snprintf(buf, size, "%s/%s/%s", dir, NMX_GUEST_FILES_DIR, name);
}

/*
 * A frame begins: open its file under @out_dir's guest directory, or
 * refuse it. A refused frame's lines are still the frame's (data, never
 * console text): only its file is not written.
 */
static FILE *open_frame(struct verdict *v, const char *out_dir,
			const char *name)
{
	char path[4096];
	FILE *file;

	if (++v->nr_frames > NMX_MAX_FRAMES) {
		frame_refused(v, "more than %d frames", NMX_MAX_FRAMES);
		return NULL;
	}
	if (!safe_file_name(name) || strlen(name) > 200) {
		frame_refused(v, "unsafe file name \"%.100s\"", name);
		return NULL;
	}
	if (strlist_has(&v->files, name)) {
		frame_refused(v, "file %s framed twice", name);
		return NULL;
	}
	strlist_add(&v->files, name);
	if (!out_dir)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", out_dir, NMX_GUEST_FILES_DIR);
	if (mkdir(path, 0755) && errno != EEXIST) {
		v->write_errno = errno;
		v->write_failed = strdup(name);
		return NULL;
	}
	guest_file_path(path, sizeof(path), out_dir, name);
	file = fopen(path, "w");
	if (!file && !v->write_failed) {
		v->write_errno = errno;
		v->write_failed = strdup(name);
	}
	return file;
}

/* Remember the first panic, complaint and init failure the kernel printed. */
static void note_kernel_report(struct verdict *v, const char *s)
{
	const struct kernel_report *r;

	if (!v->panic && kernel_report_match(s, KR_PANIC))
		v->panic = strdup(s);
	if (!v->no_init && kernel_report_match(s, KR_NO_INIT))
		v->no_init = strdup(s);
	r = kernel_report_match(s, KR_ERROR);
	if (!r)
		return;
	if (!v->nr_kernel_errors++ || (v->kernel_error_weak && !r->weak)) {
		free(v->kernel_error);
		v->kernel_error = strdup(s);
		v->kernel_error_class = r->class;
		v->kernel_error_weak = r->weak;
	}
}

int console_ended(const char *log_path)
{
	struct verdict v;
	int ended;

	if (judge_console(log_path, NULL, 0, NULL, &v))
		return -1;	/* judge_console() said why */
	ended = v.nr_markers > 0;
	verdict_free(&v);
	return ended;
}

int judge_console(const char *log_path, const char *out_dir, int timed_out,
		  const struct xfails *xfail, struct verdict *v)
{
	FILE *log = fopen_regular(log_path);

	memset(v, 0, sizeof(*v));
	if (!log)
		return -1;
	judge_stream(log, out_dir, timed_out, xfail, v);
	fclose(log);
	return 0;
}

void judge_stream(FILE *log, const char *out_dir, int timed_out,
		  const struct xfails *xfail, struct verdict *v)
{
	struct strlist pending = { 0 };
	FILE *file = NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int in_frame = 0;
	long frame_bytes = 0;

	memset(v, 0, sizeof(*v));
	v->planned = -1;
	v->uptime_init = v->uptime_done = -1;
	v->uptime_last = v->uptime_mark = -1;
	while ((len = getline(&line, &cap, log)) >= 0) {
		const char *s;

		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		/* NUL bytes included: getline keeps them. */
		v->garbage_bytes += console_clean(line, len, 1);
		v->lines++;
		s = skip_blanks(line);

		if (!in_frame || !is_trace_data(s))
			note_kernel_report(v, s);
		if ((v->marker || v->fail_marker) && !v->after_marker &&
		    !is_poweroff_noise(s))
			v->after_marker = strdup(s);

		if (!strncmp(s, NMX_FILE_BEGIN, NMX_LEN(NMX_FILE_BEGIN))) {
			close_file(v, &file);
			file = open_frame(v, out_dir, s + NMX_LEN(NMX_FILE_BEGIN));
			in_frame = 1;
			frame_bytes = 0;
			continue;
		}
		if (!strncmp(s, NMX_FILE_END, NMX_LEN(NMX_FILE_END))) {
			close_file(v, &file);
			in_frame = 0;
			continue;
		}
		if (in_frame) {
			frame_bytes += len + 1;
			if (frame_bytes > NMX_MAX_FRAME_BYTES) {
				frame_refused(v, "file %s larger than %ld bytes",
					      v->files.n ? v->files.v[v->files.n - 1] : "?",
					      NMX_MAX_FRAME_BYTES);
				close_file(v, &file);
			}
			if (file)
				fprintf(file, "%s\n", line);
			continue;
		}

		if (!strncmp(s, NMX_UPTIME, NMX_LEN(NMX_UPTIME))) {
			const char *when = s + NMX_LEN(NMX_UPTIME);
			const char *secs = strchr(when, ' ');
			size_t n = secs ? (size_t)(secs - when) : 0;

			if (secs && !strncmp(when, NMX_UPTIME_INIT, n) &&
			    n == NMX_LEN(NMX_UPTIME_INIT)) {
				v->uptime_init = v->uptime_last = atof(secs + 1);
				continue;
			}
			if (secs && !strncmp(when, NMX_UPTIME_TEST, n) &&
			    n == NMX_LEN(NMX_UPTIME_TEST)) {
				v->uptime_mark = atof(secs + 1);
				continue;
			}
			if (secs && !strncmp(when, NMX_UPTIME_DONE, n) &&
			    n == NMX_LEN(NMX_UPTIME_DONE)) {
				v->uptime_done = atof(secs + 1);
				continue;
			}
		}
		if (!strcmp(s, NMX_KTAP_HEADER)) {
			v->ktap_seen = 1;
			continue;
		}
		if (!v->ktap_seen)
			continue;
		if (!strncmp(s, "1..", 3) && v->planned < 0) {
			v->planned = atoi(s + 3);
			continue;
		}
		if (!strcmp(s, NMX_SUCCESS_MARKER)) {
			v->marker = 1;
			v->nr_markers++;
			continue;
		}
		if (!strncmp(s, NMX_FAIL_MARKER, strlen(NMX_FAIL_MARKER))) {
			v->fail_marker = 1;
			v->nr_markers++;
			continue;
		}
		if (!strncmp(s, "Bail out!", 9)) {
			if (!v->bail_out++)
				v->bail_reason = strdup(s);
			continue;
		}
		if (!strncmp(s, "# ", 2)) {
			strlist_add(&pending, s + 2);
			continue;
		}
		if (looks_like_result(s)) {
			struct subtest t;

			if (!parse_result(s, &t))
				add_test(v, &t, &pending);
			else
				v->malformed = 1;
		}
	}
	if (ferror(log) && !v->read_failed)
		v->read_failed = strdup(strerror(errno));
	close_file(v, &file);
	free(line);
	strlist_free(&pending);
	apply_xfails(v, xfail);
	decide(v, timed_out);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *verdict_json(const struct verdict *v)
{
	json_t *o = json_object(), *tests = json_array(), *files = json_array();
	size_t i, j;

	for (i = 0; i < v->nr_tests; i++) {
		const struct subtest *t = &v->tests[i];
		json_t *jt = json_object(), *diag = json_array();
		const char *result = t->ok ? "PASS" : "FAIL";

		if (directive_is(t->directive, "SKIP"))
			result = "SKIP";
		if (directive_is(t->directive, "XFAIL"))
			result = "XFAIL";
		if (t->xfail)
			result = "XFAIL";
		if (t->xpass)
			result = "XPASS";
		for (j = 0; j < t->diag.n; j++)
			json_array_append_new(diag, json_string(t->diag.v[j]));
		json_object_set_new(jt, "number", json_integer(t->number));
		json_object_set_new(jt, "name", json_string(t->name));
		json_object_set_new(jt, "result", json_string(result));
		if (t->directive)
			json_object_set_new(jt, "directive",
					    json_string(t->directive));
		if (t->finding)
			json_object_set_new(jt, "finding",
					    json_string(t->finding));
		json_object_set_new(jt, "diagnostics", diag);
		if (t->seconds >= 0)
			json_object_set_new(jt, "seconds",
					    json_real(t->seconds));
		json_array_append_new(tests, jt);
	}
	for (i = 0; i < v->files.n; i++)
		json_array_append_new(files, json_string(v->files.v[i]));

	json_object_set_new(o, "status", json_string(v->status));
	json_object_set_new(o, "reason", json_string(v->reason));
	json_object_set_new(o, "ktap_seen", json_boolean(v->ktap_seen));
	json_object_set_new(o, "planned", json_integer(v->planned));
	json_object_set_new(o, "success_marker", json_boolean(v->marker));
	json_object_set_new(o, "expected_failures", json_integer(v->nr_xfail));
	json_object_set_new(o, "kernel_panic", str_or_null(v->panic));
	json_object_set_new(o, "kernel_errors",
			    json_integer(v->nr_kernel_errors));
	json_object_set_new(o, "first_kernel_error",
			    str_or_null(v->kernel_error));
	json_object_set_new(o, "kernel_error_class",
			    str_or_null(v->kernel_error_class));
	json_object_set_new(o, "final_markers", json_integer(v->nr_markers));
	json_object_set_new(o, "after_final_marker",
			    str_or_null(v->after_marker));
	json_object_set_new(o, "garbage_bytes", json_integer(v->garbage_bytes));
	json_object_set_new(o, "console_lines", json_integer(v->lines));
	if (v->uptime_init >= 0 && v->uptime_done >= v->uptime_init)
		json_object_set_new(o, "guest_uptime",
				    json_pack("{s:f,s:f}", "init", v->uptime_init,
					      "done", v->uptime_done));
	json_object_set_new(o, "subtests", tests);
	json_object_set_new(o, "files", files);
	return o;
}

void verdict_free(struct verdict *v)
{
	size_t i;

	for (i = 0; i < v->nr_tests; i++)
		subtest_free(&v->tests[i]);
	free(v->tests);
	free(v->panic);
	free(v->kernel_error);
	free(v->no_init);
	free(v->after_marker);
	free(v->write_failed);
	free(v->read_failed);
	free(v->frame_error);
	free(v->bail_reason);
	strlist_free(&v->files);
	memset(v, 0, sizeof(*v));
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' ||
			   end[-1] == '\n' || end[-1] == ','))
		*--end = '\0';
	return s;
}

/* Is @word one of the comma-separated items of @list? */
static int in_items(char *list, const char *word)
{
	char *save = NULL, *item;

	for (item = strtok_r(list, ",", &save); item;
	     item = strtok_r(NULL, ",", &save))
		if (!strcmp(trim(item), word))
			return 1;
	return 0;
}

/*
 * Does the "on ..." list of an xfail line name @cell? "every cell" is a
 * finding in code all architectures share: a new cell inherits it.
 */
static int names_cell(char *list, const char *cell)
{
	if (!strcmp(trim(list), "every cell"))
		return 1;
	return in_items(list, cell);
}

/*
 * "finding N: TITLE" for the "## N. TITLE" heading of @f, or "finding N"
 * when the file has none (a finding described in an older tree's file).
 */
static char *finding_title(FILE *f, const char *id)
{
	char line[1024], why[1100];
	size_t len = strlen(id);
	long at = ftell(f);

	snprintf(why, sizeof(why), "finding %s", id);
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "## ", 3) || strncmp(line + 3, id, len) ||
		    strncmp(line + 3 + len, ". ", 2))
			continue;
		line[strcspn(line, "\r\n")] = '\0';
		snprintf(why, sizeof(why), "finding %s: %s", id, line + 5 + len);
		break;
	}
	fseek(f, at, SEEK_SET);
	return strdup(why);
}

void xfails_free(struct xfails *x)
{
	strlist_free(&x->name);
	strlist_free(&x->why);
}

int load_xfails(const char *path, const char *cell, const char *variant,
		struct xfails *out)
{
	char line[1024];
	FILE *f = fopen_regular(path);

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *name, *on, *open, *close, *finding, *why = NULL;

		if (strncmp(line, "- xfail ", 8))
			continue;
		name = line + 8;
		on = strstr(name, " on ");
		open = on ? strchr(on, '(') : NULL;
		close = open ? strchr(open, ')') : NULL;
		if (!close) {
			fprintf(stderr, "%s: malformed xfail line: %s", path, line);
			continue;
		}
		*on = *open = *close = '\0';
		if (!names_cell(on + 4, cell) || !in_items(open + 1, variant))
			continue;
		finding = strstr(close + 1, ": finding ");
		if (finding) {
			finding = trim(finding + 10);
			finding[strcspn(finding, " \t")] = '\0';
			if (*finding)
				why = finding_title(f, finding);
		}
		strlist_add(&out->name, trim(name));
		strlist_add(&out->why, why ? why : "");
		free(why);
	}
	if (ferror(f)) {
		fprintf(stderr, "nmx: cannot read %s: %m\n", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}
