// SPDX-License-Identifier: GPL-2.0
/* nmx's one way to run a program: see proc.h. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"

/* In the child: its stdin, stdout, stderr and environment, then @argv. */
static void exec_child(char *const argv[], char *const env[],
		       const char *in_path, const int *pipefd, int out_fd,
		       int err_fd)
{
	int in;
	size_t i;

	if (in_path) {
		in = open(in_path, O_RDONLY);
		if (in < 0 || dup2(in, STDIN_FILENO) < 0) {
			fprintf(stderr, "nmx: cannot read %s: %s\n", in_path,
				strerror(errno));
			_exit(127);
		}
	}
	if (pipefd) {
		dup2(pipefd[1], STDOUT_FILENO);
		close(pipefd[0]);
		close(pipefd[1]);
	} else if (out_fd >= 0) {
		dup2(out_fd, STDOUT_FILENO);
	}
	if (err_fd >= 0)
		dup2(err_fd, STDERR_FILENO);
	for (i = 0; env && env[i]; i++)
		putenv(env[i]);
	execvp(argv[0], argv);
	fprintf(stderr, "nmx: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* What the child writes to @fd, to its end, NUL-terminated. */
static char *read_all(int fd)
{
	char buf[65536], *text = NULL;
	size_t len = 0;
	ssize_t n;
	FILE *f = open_memstream(&text, &len);

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (f)
			fwrite(buf, 1, (size_t)n, f);
	if (f)
		fclose(f);
	return text ? text : strdup("");
}

int run_command(char *const argv[], char *const env[], const char *in_path,
		char **out, int out_fd, int err_fd)
{
	int pipefd[2], status;
	pid_t pid;

	if (out && pipe(pipefd))
		return -1;
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "nmx: cannot start %s: %s\n", argv[0], strerror(errno));
		if (out) {
			close(pipefd[0]);
			close(pipefd[1]);
		}
		return -1;
	}
	if (!pid)
		exec_child(argv, env, in_path, out ? pipefd : NULL, out_fd, err_fd);
	if (out) {
		close(pipefd[1]);
		*out = read_all(pipefd[0]);
		close(pipefd[0]);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
