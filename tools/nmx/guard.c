// SPDX-License-Identifier: GPL-2.0
/*
 * nmx guard: run a boot (QEMU) with a time limit, as timeout(1) would,
 * and stop it once the console shows the kernel's panic. Most machines
 * reset after a panic (panic=-1) and QEMU exits (-no-reboot); some cannot
 * (sparc64's sun4u prints "Reboot failed!" forever), and a panic there
 * used to cost the whole boot timeout. The panic is the judge's own key
 * (kernel_reports.c); the grace lets the kernel finish printing it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "kernel_reports.h"

#define GUARD_POLL_MS	200
#define GUARD_KILL_AFTER	5	/* seconds from SIGTERM to SIGKILL, as timeout -k 5 */
/* timeout(1)'s statuses, which boot.sh reads as "timed out". */
#define GUARD_TIMED_OUT		124
#define GUARD_KILLED		137

static volatile sig_atomic_t guard_signal;

static void on_signal(int sig)
{
	guard_signal = sig;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The console as it grows: the panic's line once it is complete. */
struct console_tail {
	const char *path;
	int fd;
	char line[4096];
	size_t len;
	char *panic;		/* malloc'd, or NULL */
};

static void tail_line(struct console_tail *t)
{
	t->line[t->len] = '\0';
	while (t->len && (t->line[t->len - 1] == '\r' || t->line[t->len - 1] == '\n'))
		t->line[--t->len] = '\0';
	if (!t->panic && kernel_report_match(t->line, KR_PANIC))
		t->panic = strdup(t->line);
	t->len = 0;
}

/* Read what the console gained since the last call. */
static void tail_read(struct console_tail *t)
{
	char buf[4096];
	ssize_t n, i;

	if (t->fd < 0) {
		t->fd = open(t->path, O_RDONLY);
		if (t->fd < 0)
			return;		/* QEMU has not made it yet */
	}
	while ((n = read(t->fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++) {
			/* A longer line is judged in pieces: keys are short. */
			if (t->len == sizeof(t->line) - 1)
				tail_line(t);
			t->line[t->len++] = buf[i];
			if (buf[i] == '\n')
				tail_line(t);
		}
	}
}

static int exit_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_INFRA;
}

/*
 * Stop @pid: SIGTERM, then SIGKILL if it is still there after
 * GUARD_KILL_AFTER seconds. Its wait status in @status; 1 if it had to
 * be killed.
 */
static int stop(pid_t pid, int *status)
{
	double until = now() + GUARD_KILL_AFTER;

	kill(pid, SIGTERM);
	while (now() < until) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return 0;
		usleep(GUARD_POLL_MS * 1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	return 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: nmx guard --log BOOT_LOG --timeout SECS [--grace SECS] -- COMMAND [ARG]...\n");
	return EXIT_INFRA;
}

static int parse_seconds(const char *opt, const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || *out <= 0) {
		fprintf(stderr, "nmx guard: %s '%s': not a number of seconds\n", opt, s);
		return -1;
	}
	return 0;
}

int cmd_guard(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "log", required_argument, NULL, 'l' },
		{ "timeout", required_argument, NULL, 't' },
		{ "grace", required_argument, NULL, 'g' },
		{ NULL, 0, NULL, 0 },
	};
	struct console_tail t = { .fd = -1 };
	double timeout = 0, grace = 15, start, panicked_at = 0;
	struct sigaction sa = { .sa_handler = on_signal };
	int c, status = 0, killed, ret;
	pid_t pid;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			t.path = optarg;
			break;
		case 't':
			if (parse_seconds("--timeout", optarg, &timeout))
				return EXIT_INFRA;
			break;
		case 'g':
			if (parse_seconds("--grace", optarg, &grace))
				return EXIT_INFRA;
			break;
		default:
			return usage();
		}
	}
	if (!t.path || !timeout || optind >= argc)
		return usage();

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	start = now();
	pid = fork();
	if (pid < 0) {
		perror("nmx guard: fork");
		return EXIT_INFRA;
	}
	if (!pid) {
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "nmx guard: cannot run %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}

	for (;;) {
		c = waitpid(pid, &status, WNOHANG);
		if (c == pid) {
			ret = exit_status(status);
			break;
		}
		if (c < 0 && errno != EINTR) {
			perror("nmx guard: waitpid");
			ret = EXIT_INFRA;
			break;
		}
		if (guard_signal) {
			/* Ours (matrix.sh stopping the cell): QEMU's too. */
			stop(pid, &status);
			ret = 128 + guard_signal;
			break;
		}
		tail_read(&t);
		if (t.panic && !panicked_at)
			panicked_at = now();
		if (panicked_at && now() - panicked_at >= grace) {
			fprintf(stderr, "nmx guard: the kernel panicked (\"%.200s\"); %s stopped %.0f s later\n",
				t.panic, argv[optind], grace);
			stop(pid, &status);
			ret = exit_status(status);
			break;
		}
		if (now() - start >= timeout) {
			fprintf(stderr, "nmx guard: %s stopped after %.0f s (--timeout)\n",
				argv[optind], timeout);
			killed = stop(pid, &status);
			ret = killed ? GUARD_KILLED : GUARD_TIMED_OUT;
			break;
		}
		usleep(GUARD_POLL_MS * 1000);
	}
	if (t.fd >= 0)
		close(t.fd);
	free(t.panic);
	return ret;
}
