// SPDX-License-Identifier: GPL-2.0
/*
 * gm-nsexec: run a command as another user and/or in new user, cgroup and
 * pid namespaces, as a container runtime or `unshare -U -C -p -f -r` would
 * (busybox's unshare has no cgroup namespace).
 *
 *   gm-nsexec [-u UID] [-U] [-C] [-P] -- CMD [ARGS...]
 *     -u UID  drop to UID (and GID UID) first
 *     -U      a new user namespace, mapping the caller's uid to 0
 *     -C      a new cgroup namespace (its root: the caller's cgroup now)
 *     -P      a new pid namespace: CMD runs in a child, as its pid 1, and
 *             is killed when gm-nsexec dies
 *
 * Exit status 111 when setting up fails (with a message), else CMD's
 * (128 + the signal when it was killed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void fail(const char *what)
{
	fprintf(stderr, "gm-nsexec: %s: %s\n", what, strerror(errno));
	exit(111);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		fail(path);
	close(fd);
}

int main(int argc, char **argv)
{
	int opt, user = 0, cgroup = 0, pidns = 0, status;
	pid_t child;
	long uid = -1;
	char map[64];

	while ((opt = getopt(argc, argv, "+u:UCP")) != -1) {
		switch (opt) {
		case 'u':
			uid = strtol(optarg, NULL, 10);
			break;
		case 'U':
			user = 1;
			break;
		case 'C':
			cgroup = 1;
			break;
		case 'P':
			pidns = 1;
			break;
		default:
			fprintf(stderr,
				"usage: gm-nsexec [-u UID] [-U] [-C] [-P] -- CMD [ARGS...]\n");
			return 111;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "gm-nsexec: no command\n");
		return 111;
	}
	if (uid >= 0 && (setgroups(0, NULL) || setgid(uid) || setuid(uid)))
		fail("dropping to the user");
	/* a uid change makes the task undumpable: /proc/self would be root's */
	if (uid >= 0 && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		fail("PR_SET_DUMPABLE");
	if (user) {
		uid_t me = getuid();
		gid_t mygid = getgid();

		if (unshare(CLONE_NEWUSER))
			fail("unshare(CLONE_NEWUSER)");
		write_file("/proc/self/setgroups", "deny");
		snprintf(map, sizeof(map), "0 %u 1\n", (unsigned int)me);
		write_file("/proc/self/uid_map", map);
		snprintf(map, sizeof(map), "0 %u 1\n", (unsigned int)mygid);
		write_file("/proc/self/gid_map", map);
	}
	if (cgroup && unshare(CLONE_NEWCGROUP))
		fail("unshare(CLONE_NEWCGROUP)");
	if (pidns) {
		if (unshare(CLONE_NEWPID))
			fail("unshare(CLONE_NEWPID)");
		child = fork();
		if (child < 0)
			fail("fork");
		if (child > 0) {
			while (waitpid(child, &status, 0) < 0)
				if (errno != EINTR)
					fail("waitpid");
			return WIFEXITED(status) ? WEXITSTATUS(status) :
						   128 + WTERMSIG(status);
		}
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0))
			fail("PR_SET_PDEATHSIG");
	}
	execvp(argv[optind], argv + optind);
	fail(argv[optind]);
	return 111;
}
