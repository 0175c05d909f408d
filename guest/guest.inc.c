/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every test of the guest shares: KTAP reporting and tracefs access.
 * The guest is one translation unit (init.c includes the .inc.c files),
 * as the header-only nolibc it is built with wants: one static binary.
 */
#ifndef NMX_GUEST_H
#define NMX_GUEST_H

#include "fgraph.h"
#include "protocol.h"

/*
 * nolibc's raw system call macros: my_syscallN up to 6.x, renamed
 * __nolibc_syscallN by 7.2. The guest builds against each tree's own.
 */
#if !defined(my_syscall1) && defined(__nolibc_syscall1)
#define my_syscall1 __nolibc_syscall1
#define my_syscall3 __nolibc_syscall3
#define my_syscall4 __nolibc_syscall4
#endif

#define TRACEFS "/tracing/"
/* Captures taken again when an interrupt lands in the traced window. */
#define ATTEMPTS 5

/* nolibc in 6.1 has neither memchr() nor strstr(). */
static const char *find_byte(const char *s, char c, size_t n)
{
	for (; n; n--, s++)
		if (*s == c)
			return s;
	return 0;
}

static int contains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (!strncmp(hay, needle, n))
			return 1;
	return 0;
}

/* @v in decimal at the end of @buf (no division: BE8 has no libgcc). */
static void append_uint(char *buf, size_t size, unsigned int v)
{
	static const unsigned int powers[] = { 1000000000, 100000000, 10000000,
		1000000, 100000, 10000, 1000, 100, 10, 1 };
	char digits[12];
	int n = 0;
	size_t k;

	for (k = 0; k < sizeof(powers) / sizeof(powers[0]); k++) {
		char d = '0';

		while (v >= powers[k]) {
			v -= powers[k];
			d++;
		}
		if (d != '0' || n || powers[k] == 1)
			digits[n++] = d;
	}
	digits[n] = '\0';
	strlcat(buf, digits, size);
}

/* How many times @word occurs in @text. */
static int count_of(const char *text, const char *word)
{
	size_t n = strlen(word);
	int count = 0;

	for (; *text; text++)
		if (!strncmp(text, word, n))
			count++;
	return count;
}

static int nr_test;
static int nr_failed;
static int failed_writes;
static int tracefs_ready;

static void print_uptime(const char *when);

static void ktap_result(int ok, const char *name, const char *directive)
{
	print_uptime(NMX_UPTIME_TEST);
	nr_test++;
	if (!ok)
		nr_failed++;
	printf("%s %d %s%s%s\n", ok ? "ok" : "not ok", nr_test, name,
	       directive ? " # " : "", directive ? directive : "");
}

/*
 * One step of the guest: what it runs and how many KTAP results it
 * prints; or a table of steps of its own (sub). The KTAP plan is the sum
 * over init.c's table, and run_steps() checks that every step printed
 * what its entry says, so no count is kept by hand anywhere else.
 */
struct guest_step {
	const char *name;
	void (*run)(void);
	int results;
	const struct guest_step *sub;	/* ends with an entry without a name */
	int setup;			/* runs once, whatever is selected */
};

/*
 * A step that prints @results KTAP results; one the others need; a step
 * of sub-steps.
 */
#define STEP(fn, results) { #fn, fn, results, 0, 0 }
#define SETUP(fn, results) { #fn, fn, results, 0, 1 }
#define STEPS(name, table) { name, 0, 0, table, 0 }
#define END_OF_STEPS { 0, 0, 0, 0, 0 }

static int nr_step_bugs;

/*
 * A failure that comes at random is caught by running its step alone,
 * again and again, in one boot: "nmx_only=STEP[,STEP...]" and
 * "nmx_repeat=N" on the kernel command line (boot.sh --kernel-args),
 * which the kernel hands to PID 1 as its environment. A table's name
 * selects all of its steps; SETUP steps, and steps that print no result,
 * run once whatever is selected. Each round after the first frames its
 * files as "roundN.NAME": the host refuses a name framed twice, and more
 * than 128 frames.
 */
#define STEP_ROUNDS_MAX 64

static const char *only_steps;	/* NULL: every step */
static int step_rounds = 1;
static int guest_round;		/* 0 in a step's first round */

/* Is @name an item of the comma-separated @list? */
static int listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	while (*list) {
		if (!strncmp(list, name, n) && (list[n] == ',' || !list[n]))
			return 1;
		list = strchr(list, ',');
		if (!list)
			break;
		list++;
	}
	return 0;
}

static int step_selected(const struct guest_step *step, int parent)
{
	return parent || !only_steps || listed(only_steps, step->name);
}

/* Runs once in place: a table, a SETUP step, a step that prints nothing. */
static int runs_once(const struct guest_step *step)
{
	return step->sub || step->setup || !step->results;
}

static int steps_planned_of(const struct guest_step *step, int parent)
{
	int n = 0, sel;

	for (; step->name; step++) {
		sel = step_selected(step, parent);
		if (step->sub)
			n += steps_planned_of(step->sub, sel);
		else if (runs_once(step) || sel)
			n += step->results * (runs_once(step) ? 1 : step_rounds);
	}
	return n;
}

static int steps_planned(const struct guest_step *step)
{
	return steps_planned_of(step, 0);
}

static int step_exists(const struct guest_step *step, const char *name,
		       size_t len)
{
	for (; step->name; step++)
		if ((strlen(step->name) == len &&
		     !strncmp(step->name, name, len)) ||
		    (step->sub && step_exists(step->sub, name, len)))
			return 1;
	return 0;
}

/* 6.1's nolibc leaves environ to the program: read main()'s envp. */
static const char *env_value(char **envp, const char *name)
{
	size_t n = strlen(name);

	for (; envp && *envp; envp++)
		if (!strncmp(*envp, name, n) && (*envp)[n] == '=')
			return *envp + n + 1;
	return 0;
}

/*
 * Read nmx_only and nmx_repeat; on a bad value say why in @why (main()
 * prints it after the plan, as "Bail out!") and return -1.
 */
static int select_steps(const struct guest_step *steps, char **envp,
			char *why, size_t size)
{
	const char *only = env_value(envp, "nmx_only");
	const char *rounds = env_value(envp, "nmx_repeat");
	const char *item, *end;
	int n = 0;

	if (rounds) {
		for (end = rounds; *end >= '0' && *end <= '9' &&
		     n <= STEP_ROUNDS_MAX; end++)
			n = n * 10 + *end - '0';
		if (*end || n < 1 || n > STEP_ROUNDS_MAX) {
			strlcpy(why, "nmx_repeat wants a number from 1 to ",
				size);
			append_uint(why, size, STEP_ROUNDS_MAX);
			strlcat(why, ", not ", size);
			strlcat(why, rounds, size);
			return -1;
		}
		step_rounds = n;
	}
	if (!only)
		return 0;
	if (!*only) {
		strlcpy(why, "nmx_only is empty", size);
		return -1;
	}
	for (item = only; *item; item = *end ? end + 1 : end) {
		end = strchr(item, ',');
		if (!end)
			end = item + strlen(item);
		if (!step_exists(steps, item, end - item)) {
			strlcpy(why, "nmx_only names no step of the guest: ",
				size);
			strlcat(why, only, size);
			return -1;
		}
	}
	only_steps = only;
	return 0;
}

static void run_step(const struct guest_step *step, int want)
{
	int before = nr_test;

	step->run();
	if (nr_test - before != want) {
		printf("# BUG: step %s printed %d result(s), its table entry says %d\n",
		       step->name, nr_test - before, want);
		nr_step_bugs++;
	}
}

/*
 * The steps between two that run once form a block, and each round runs
 * the block's selected steps in order: a failure that needs the step
 * before it is repeated with it (nmx_only=test_migrate,test_irq).
 */
static void run_steps_of(const struct guest_step *step, int parent)
{
	const struct guest_step *s;
	int round;

	while (step->name) {
		if (step->sub) {
			if (step->run)
				step->run();
			run_steps_of(step->sub, step_selected(step, parent));
			step++;
			continue;
		}
		if (runs_once(step)) {
			run_step(step, step->results);
			step++;
			continue;
		}
		for (round = 0; round < step_rounds; round++) {
			guest_round = round;
			for (s = step; s->name && !runs_once(s); s++) {
				if (!step_selected(s, parent))
					continue;
				if (round)
					printf("# %s: round %d of %d\n",
					       s->name, round + 1, step_rounds);
				run_step(s, s->results);
			}
		}
		guest_round = 0;
		while (step->name && !runs_once(step))
			step++;
	}
}

static void run_steps(const struct guest_step *step)
{
	run_steps_of(step, 0);
}

/*
 * Write @val to a tracefs file and insist the kernel took all of it. The
 * filter files take one token per write(2) and return its length, so a
 * short write is not an error: write the rest, as a shell's echo does.
 */
static int tfs_write(const char *file, const char *val)
{
	char path[128] = TRACEFS;
	size_t len = strlen(val), done = 0;
	ssize_t ret = 0;
	int fd;

	strlcat(path, file, sizeof(path));
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0) {
		printf("# open %s for writing failed: errno %d\n", path, errno);
		failed_writes++;
		return -1;
	}
	while (done < len) {
		ret = write(fd, val + done, len - done);
		if (ret <= 0)
			break;
		done += ret;
	}
	if (done != len) {
		printf("# write \"%s\" to %s stopped after %d byte(s): %d (errno %d)\n",
		       val, path, (int)done, (int)ret, ret < 0 ? errno : 0);
		failed_writes++;
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* Read a whole file into @buf (NUL-terminated); returns length or -1. */
static long read_file(const char *path, char *buf, size_t size)
{
	long len = 0;
	ssize_t ret;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	while (len < (long)size - 1) {
		ret = read(fd, buf + len, size - 1 - len);
		if (ret <= 0)
			break;
		len += ret;
	}
	buf[len] = '\0';
	close(fd);
	return len;
}

/*
 * The guest's clock, for the host to time PID 1's start, each result and
 * the end (the console has no timestamps). Printed as /proc/uptime has
 * it: no arithmetic here.
 */
static void print_uptime(const char *when)
{
	char text[64], *end;

	/* The first call mounts /proc. */
	if (read_file("/proc/uptime", text, sizeof(text)) <= 0) {
		mkdir("/proc", 0555);
		if (mount("proc", "/proc", "proc", 0, 0) ||
		    read_file("/proc/uptime", text, sizeof(text)) <= 0)
			return;
	}
	for (end = text; *end && *end != ' ' && *end != '\n'; end++)
		;
	*end = '\0';
	printf(NMX_UPTIME "%s %s\n", when, text);
}

/* Seconds since boot, from /proc/uptime (whole seconds); -1 if unread. */
static long uptime_seconds(void)
{
	char text[64];
	long sec = 0;
	const char *p;

	if (read_file("/proc/uptime", text, sizeof(text)) <= 0)
		return -1;
	for (p = text; *p >= '0' && *p <= '9'; p++)
		sec = sec * 10 + (*p - '0');
	return sec;
}

/*
 * A tenth of a second's sleep through the 64-bit time system call where
 * the architecture has one: the 32-bit kernels here have no time32 calls
 * (tinyconfig leaves COMPAT_32BIT_TIME out), and those are what nolibc's
 * sleep() and a 32-bit busybox's sleep use.
 */
static void nap(void)
{
#ifdef __NR_clock_nanosleep_time64
	struct { long long sec, nsec; } ts = { 0, 100000000 };

	my_syscall4(__NR_clock_nanosleep_time64, 1 /* MONOTONIC */, 0, &ts, 0);
#else
	struct { long sec, nsec; } ts = { 0, 100000000 };

	my_syscall4(__NR_clock_nanosleep, 1 /* MONOTONIC */, 0, &ts, 0);
#endif
}

/*
 * Run @argv (an absolute path) in a process group of its own and wait for
 * it at most @seconds; then kill the whole group. Returns the wait status,
 * -1 when it could not start, -2 when it was killed for its time.
 */
static int run_limited(char *const argv[], char *const envp[], long seconds)
{
	long start = uptime_seconds();
	int status = -1;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		execve(argv[0], argv, envp);
		printf("# execve %s: errno %d\n", argv[0], errno);
		exit(127);
	}
	if (pid < 0)
		return -1;
	for (;;) {
		long now;

		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		now = uptime_seconds();
		if (start >= 0 && now >= 0 && now - start >= seconds) {
			kill(-pid, 9);
			kill(pid, 9);
			waitpid(pid, &status, 0);
			return -2;
		}
		nap();
	}
}

/* Does @path hold a line that starts with the word @word? Streams the file. */
static int file_has_word(const char *path, const char *word)
{
	static char chunk[4096 + 256];
	size_t wlen = strlen(word), keep = 0;
	int fd, found = 0;
	ssize_t ret;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	while (!found && (ret = read(fd, chunk + keep, 4096)) > 0) {
		const char *line = chunk, *end = chunk + keep + ret, *nl;

		while ((nl = find_byte(line, '\n', end - line))) {
			if ((size_t)(nl - line) >= wlen &&
			    !memcmp(line, word, wlen) &&
			    (line[wlen] == '\n' || line[wlen] == ' ' ||
			     line[wlen] == '\t')) {
				found = 1;
				break;
			}
			line = nl + 1;
		}
		keep = end - line;
		if (keep > 255)
			keep = 0;	/* longer than any symbol: drop */
		memmove(chunk, line, keep);
	}
	close(fd);
	return found;
}

static void print_file(const char *base, const char *text)
{
	char name[80] = "";

	if (guest_round) {
		strlcpy(name, "round", sizeof(name));
		append_uint(name, sizeof(name), guest_round + 1);
		strlcat(name, ".", sizeof(name));
	}
	strlcat(name, base, sizeof(name));
	printf(NMX_FILE_BEGIN "%s\n", name);
	fputs(text, stdout);
	if (*text && text[strlen(text) - 1] != '\n')
		putchar('\n');
	printf(NMX_FILE_END "%s\n", name);
}

/*
 * Read the trace into @text, print it framed as "@base.txt" (or
 * "@base.retryN.txt" for a capture taken again) and parse it into @t.
 * Returns the index of the first interrupt entry in it, -1 when there is
 * none, -2 when the trace cannot be read.
 */
static int capture_trace(const char *base, int attempt, char *text,
			 size_t size, struct fg_trace *t, int cpu)
{
	char name[64];

	if (read_file(TRACEFS "trace", text, size) < 0) {
		printf("# cannot read %strace\n", TRACEFS);
		return -2;
	}
	strlcpy(name, base, sizeof(name));
	if (attempt) {
		strlcat(name, ".retry", sizeof(name));
		append_uint(name, sizeof(name), attempt);
	}
	strlcat(name, ".txt", sizeof(name));
	print_file(name, text);
	fg_parse(t, text, cpu);
	return fg_first_irq_entry(t);
}

/*
 * An interrupt that lands in a traced window adds work that belongs to
 * nothing under test (and on arm64 shows one level too shallow): say so,
 * and whether the capture is to be taken again.
 */
static int capture_again(const struct fg_trace *t, int irq, const char *base,
			 int attempt)
{
	if (irq < 0)
		return 0;
	printf("# %s: interrupt work in the window (%s() at line %d)%s\n",
	       base, t->ev[irq].name, t->ev[irq].line,
	       attempt + 1 < ATTEMPTS ? ", capturing again" :
	       ", no attempt left: judged as it is");
	return attempt + 1 < ATTEMPTS;
}

#define SYSLOG_ACTION_READ_ALL 3

/* The kernel's log buffer as text ("" when unreadable). */
static const char *kernel_log(void)
{
	static char log[128 * 1024];
	int len = my_syscall3(__NR_syslog, SYSLOG_ACTION_READ_ALL, log,
			      sizeof(log) - 1);

	log[len > 0 ? len : 0] = '\0';
	return log;
}

/*
 * Copy the @n-th (from 0) line of @log that contains @word into @line;
 * returns 0 when there is none.
 */
static int log_line_with(const char *log, const char *word, int n,
			 char *line, size_t size)
{
	while (*log) {
		const char *end = log;
		size_t len;

		while (*end && *end != '\n')
			end++;
		len = end - log;
		if (len >= size)
			len = size - 1;
		memcpy(line, log, len);
		line[len] = '\0';
		if (contains(line, word) && n-- == 0)
			return 1;
		log = *end ? end + 1 : end;
	}
	return 0;
}

#endif /* NMX_GUEST_H */
