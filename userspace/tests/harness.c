// SPDX-License-Identifier: GPL-2.0
/*
 * harness.c - test_gpumemctl's harness: "ok N"/"not ok N" results, memory
 * FILEs, and running gpumemctl (or the simulated gpumemctl-fake) as a child
 * process (see harness.h).
 */
#include "harness.h"

int npass, nfail, ntest;

void result(int ok, const char *fmt, ...)
{
	va_list ap;

	ntest++;
	if (ok)
		npass++;
	else
		nfail++;
	printf("%s %d - ", ok ? "ok" : "not ok", ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

void skip(const char *what, const char *why)
{
	printf("# skip %s: %s\n", what, why);
}

void eq_str(const char *what, const char *got, const char *want)
{
	int ok = got && want ? strcmp(got, want) == 0 : got == want;

	result(ok, "%s", what);
	if (!ok)
		printf("#   got  '%s'\n#   want '%s'\n", got ? got : "(null)", want ? want : "(null)");
}

void eq_u64(const char *what, uint64_t got, uint64_t want)
{
	result(got == want, "%s", what);
	if (got != want)
		printf("#   got %" PRIu64 ", want %" PRIu64 "\n", got, want);
}

/* A memory FILE whose contents the check reads. */

FILE *mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	return m->f;
}

char *mem_close(struct mem *m)
{
	fclose(m->f);
	return m->buf;
}


void slurp(int fd, char *buf, size_t size)
{
	size_t o = 0;
	ssize_t n;

	while (o + 1 < size && (n = read(fd, buf + o, size - 1 - o)) > 0)
		o += (size_t)n;
	buf[o] = '\0';
}

/* Run the tool with args (NULL-terminated), stdout/stderr to temp files. */
void run_tool(const char *tool, struct run *res, const char *const *args)
{
	run_tool_sig(tool, res, args, 0, 0);
}

/* The same; with sig, send it to the tool after_ms milliseconds in. */
void run_tool_sig(const char *tool, struct run *res, const char *const *args,
			 int sig, unsigned int after_ms)
{
	char of[] = "/tmp/gmctl-out.XXXXXX", ef[] = "/tmp/gmctl-err.XXXXXX";
	const char *argv[16] = { tool };
	int ofd = mkstemp(of), efd = mkstemp(ef), st = 0, i;
	pid_t pid;

	for (i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);

		dup2(nul, 0);
		dup2(ofd, 1);
		dup2(efd, 2);
		execv(tool, (char *const *)argv);
		_exit(127);
	}
	if (sig) {
		/* once the tool catches sig (SigCgt), or after 5 s, plus after_ms */
		char path[64], line[256];
		int tries;

		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
		for (tries = 0; tries < 500; tries++) {
			FILE *f = fopen(path, "r");
			unsigned long long caught = 0;

			while (f && fgets(line, sizeof(line), f))
				if (sscanf(line, "SigCgt: %llx", &caught) == 1)
					break;
			if (f)
				fclose(f);
			if (caught & (1ULL << (sig - 1)))
				break;
			usleep(10000);
		}
		usleep(after_ms * 1000);
		kill(pid, sig);
	}
	waitpid(pid, &st, 0);
	res->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	lseek(ofd, 0, SEEK_SET);
	lseek(efd, 0, SEEK_SET);
	slurp(ofd, res->out, sizeof(res->out));
	slurp(efd, res->err, sizeof(res->err));
	close(ofd);
	close(efd);
	unlink(of);
	unlink(ef);
}

void run_fake(const char *fake, const char *mode, struct run *r, const char *const *args)
{
	if (mode)
		setenv("GM_FAKE", mode, 1);
	run_tool(fake, r, args);
	unsetenv("GM_FAKE");
}

void golden(const char *fake, const char *const *args, const char *want)
{
	char what[160], *p = what;
	const char *const *a;
	struct run r;

	p += sprintf(p, "output of");
	for (a = args; *a; a++)
		p += snprintf(p, sizeof(what) - (size_t)(p - what) - 1, " %s", *a);
	run_fake(fake, NULL, &r, args);
	result(r.status == 0 && r.err[0] == '\0', "%s: exit 0, nothing on stderr", what);
	eq_str(what, r.out, want);
}

/* out without the "YYYY-MM-DD HH:MM:SS " that starts each line (malloc'ed) */
char *strip_times(const char *out)
{
	char *r = malloc(strlen(out) + 1), *o = r;
	const char *p = out;

	while (r && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p + 1) : strlen(p);

		if (n > 20 && p[4] == '-' && p[7] == '-' && p[10] == ' ' && p[13] == ':' &&
		    p[16] == ':' && p[19] == ' ') {
			p += 20;
			n -= 20;
		}
		memcpy(o, p, n);
		o += n;
		p += n;
	}
	if (r)
		*o = '\0';
	return r;
}

long long mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

