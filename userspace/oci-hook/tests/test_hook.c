// SPDX-License-Identifier: GPL-2.0
/*
 * test_hook.c - gpumem-oci-hook against the simulated kernel, with a fake
 * /proc and sysfs (GPUMEM_SYSROOT): the limits it sets (exact values, read
 * back from the fake kernel's state at exit, GM_FAKE_STATE), the starts it
 * refuses and that it leaves no limit behind.
 * (part of test_gpumemctl; see harness.h)
 */
#include <sys/types.h>

#include "harness.h"

static char top[] = "/tmp/gm-hook.XXXXXX";
static char sysroot[128], statef[160];
static uint64_t id_a, id_scope, id_pod;

static int put_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int mkdirs(const char *fmt, const char *arg)
{
	char path[512], *p;

	snprintf(path, sizeof(path), fmt, arg);
	for (p = path + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

/*
 * The fake host: processes 4242 (a container in /kubepods/pod1/ctr-a),
 * 4343 (in the systemd scope of crun's "container" subgroup), 4444 (no
 * cgroup v2); DRM cards 0 and 1 on PCI 0000:00:02.0 and 0000:00:03.0 (the
 * fake kernel's qxl and bochs), card2 a platform device; bundles with
 * config.json naming the cgroup, the scope, and another cgroup.
 */
static int make_host(void)
{
	char d[256], path[512];
	struct stat st;

	if (!mkdtemp(top))
		return -1;
	snprintf(sysroot, sizeof(sysroot), "%s/root", top);
	snprintf(statef, sizeof(statef), "%s/state", top);
	if (mkdirs("%s/proc/4242", sysroot) || mkdirs("%s/proc/4343", sysroot) ||
	    mkdirs("%s/proc/4444", sysroot) || mkdirs("%s/proc/4545", sysroot) ||
	    mkdirs("%s/sys/fs/cgroup/kubepods/pod1/ctr-a", sysroot) ||
	    mkdirs("%s/sys/fs/cgroup/system.slice/libpod-abc.scope/container", sysroot) ||
	    mkdirs("%s/sys/class/drm/card0", sysroot) || mkdirs("%s/sys/class/drm/card1", sysroot) ||
	    mkdirs("%s/sys/class/drm/card2", sysroot) ||
	    mkdirs("%s/sys/class/drm/card0-Virtual-1", sysroot))
		return -1;
	snprintf(d, sizeof(d), "%s/proc", sysroot);
	if (put_file(d, "4242/cgroup", "0::/kubepods/pod1/ctr-a\n") ||
	    put_file(d, "4343/cgroup", "0::/system.slice/libpod-abc.scope/container\n") ||
	    put_file(d, "4444/cgroup", "4:memory:/x\n1:name=systemd:/x\n") ||
	    put_file(d, "4545/cgroup", "0::/\n"))
		return -1;
	snprintf(d, sizeof(d), "%s/sys/class/drm", sysroot);
	snprintf(path, sizeof(path), "%s/card0/device", d);
	if (symlink("../../../devices/pci0000:00/0000:00:02.0", path))
		return -1;
	snprintf(path, sizeof(path), "%s/card1/device", d);
	if (symlink("../../../devices/pci0000:00/0000:00:03.0", path))
		return -1;
	snprintf(path, sizeof(path), "%s/card2/device", d);
	if (symlink("../../../devices/platform/vgem", path))
		return -1;
	snprintf(path, sizeof(path), "%s/sys/fs/cgroup/kubepods/pod1/ctr-a", sysroot);
	if (stat(path, &st))
		return -1;
	id_a = st.st_ino;
	snprintf(path, sizeof(path), "%s/sys/fs/cgroup/kubepods/pod1", sysroot);
	if (stat(path, &st))
		return -1;
	id_pod = st.st_ino;
	snprintf(path, sizeof(path), "%s/sys/fs/cgroup/system.slice/libpod-abc.scope", sysroot);
	if (stat(path, &st))
		return -1;
	id_scope = st.st_ino;
	if (mkdirs("%s/bundle-a", top) || mkdirs("%s/bundle-scope", top) ||
	    mkdirs("%s/bundle-other", top) || mkdirs("%s/bundle-none", top) ||
	    mkdirs("%s/bundle-noprefix", top))
		return -1;
	snprintf(d, sizeof(d), "%s", top);
	if (put_file(d, "bundle-a/config.json",
		     "{\"ociVersion\":\"1.0.2\",\"linux\":{\"cgroupsPath\":\"/kubepods/pod1/ctr-a\"}}") ||
	    put_file(d, "bundle-scope/config.json",
		     "{\"ociVersion\":\"1.0.2\",\"linux\":{\"cgroupsPath\":\"system.slice:libpod:abc\"}}") ||
	    put_file(d, "bundle-noprefix/config.json",
		     "{\"ociVersion\":\"1.0.2\",\"linux\":{\"cgroupsPath\":\"system.slice::libpod-abc\"}}") ||
	    put_file(d, "bundle-other/config.json",
		     "{\"ociVersion\":\"1.0.2\",\"linux\":{\"cgroupsPath\":\"/kubepods/pod1/ctr-b\"}}"))
		return -1;
	return 0;
}

/* run tool (argv: NULL-terminated, argv[0] the tool) with stdin from in_fd */
static void run_stdin(const char *const *argv, int in_fd, struct run *res)
{
	char of[] = "/tmp/gm-hook-out.XXXXXX", ef[] = "/tmp/gm-hook-err.XXXXXX";
	int ofd = mkstemp(of), efd = mkstemp(ef), st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		dup2(in_fd, 0);
		dup2(ofd, 1);
		dup2(efd, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
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

/*
 * Run the hook with state on stdin and GPUMEM_SYSROOT, GM_FAKE_CGROUPS and
 * GM_FAKE_STATE set (the state file emptied first); extra_env "NAME=VALUE"
 * or NULL. Its stdout and stderr in r, the fake kernel's state in st.
 */
static void run_hook(const char *hook, const char *state, const char *extra_env,
		     const char *const *args, struct run *r, char *st, size_t stlen)
{
	char cgroups[128], in[] = "/tmp/gm-hook-in.XXXXXX";
	const char *argv[8] = { hook };
	int fd, i;

	snprintf(cgroups, sizeof(cgroups), "%" PRIu64 ":/kubepods/pod1/ctr-a,%" PRIu64
		 ":/system.slice/libpod-abc.scope,%" PRIu64 ":/kubepods/pod1", id_a, id_scope,
		 id_pod);
	fd = open(statef, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0)
		close(fd);
	fd = mkstemp(in);
	if (fd < 0 || write(fd, state, strlen(state)) != (ssize_t)strlen(state)) {
		r->status = -1;
		return;
	}
	for (i = 0; args && args[i] && i < 6; i++)
		argv[i + 1] = args[i];
	setenv("GPUMEM_SYSROOT", sysroot, 1);
	setenv("GM_FAKE_CGROUPS", cgroups, 1);
	setenv("GM_FAKE_STATE", statef, 1);
	if (extra_env)
		putenv((char *)extra_env);
	lseek(fd, 0, SEEK_SET);
	run_stdin(argv, fd, r);
	close(fd);
	unlink(in);
	if (extra_env) {
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(extra_env, "="), extra_env);
		unsetenv(name);
	}
	unsetenv("GPUMEM_SYSROOT");
	unsetenv("GM_FAKE_CGROUPS");
	unsetenv("GM_FAKE_STATE");
	st[0] = '\0';
	fd = open(statef, O_RDONLY);
	if (fd >= 0) {
		slurp(fd, st, stlen);
		close(fd);
	}
}

/* an OCI state of container ID, process pid, bundle and annotations (JSON members) */
static const char *oci_state(char *buf, size_t len, const char *id, int pid, const char *bundle,
			     const char *ann)
{
	snprintf(buf, len, "{\"ociVersion\":\"1.0.2\",\"id\":\"%s\",\"status\":\"created\","
		 "\"pid\":%d,\"bundle\":\"%s/%s\",\"annotations\":{%s}}", id, pid, top, bundle, ann);
	return buf;
}

/* what the hook said, without the newline, for a test's name */
static const char *said(const struct run *r)
{
	static char buf[sizeof(r->err)];

	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(r->err, "\n"), r->err);
	return buf;
}

/* one line on stderr, naming the container, containing want; nothing on stdout */
static bool refused(const struct run *r, const char *id, const char *want)
{
	char head[128];
	const char *nl = strchr(r->err, '\n');

	snprintf(head, sizeof(head), "gpumem-oci-hook: container %s: ", id);
	return r->status == 1 && r->out[0] == '\0' && strncmp(r->err, head, strlen(head)) == 0 &&
	       nl && nl[1] == '\0' && strstr(r->err, want);
}

/* the fake host's node policy (SYSROOT/etc/gpumem/policy.conf), mode 0644 */
static int put_policy(const char *text)
{
	char d[256], path[512];

	snprintf(d, sizeof(d), "%s/etc/gpumem", sysroot);
	if (mkdirs("%s", d) || put_file(d, "policy.conf", text))
		return -1;
	snprintf(path, sizeof(path), "%s/policy.conf", d);
	return chmod(path, 0644);
}

#define NS_ML "\"io.kubernetes.pod.namespace\":\"ml-team\","

/*
 * The node policy: defaults for containers that ask nothing, per-namespace
 * values from the runtime's namespace annotation, ceilings (refuse, clamp),
 * the pod's limit on the parent cgroup, a mode an annotation may not
 * weaken, and a policy file that is bad or writable by others.
 */
static void test_hook_policy(const char *hook)
{
	static const char policy[] =
		"; the admin's\n"
		"[defaults]\n"
		"vram.max = 1G\n"
		"vram.ceiling = 4G\n"
		"pod-vram.max = 6G\n"
		"\n"
		"[namespace:ml-team]\n"
		"vram.max = 2G\n"
		"vram.ceiling = 8G\n"
		"pod-vram.ceiling = 12G\n";
	char state[2048], st[4096], want[512], path[512];
	struct run r;

	if (put_policy(policy) < 0) {
		result(0, "hook policy: cannot write the policy file: %s", strerror(errno));
		return;
	}
	/* no annotation, no namespace: [defaults] vram.max; no pod limit */
	run_hook(hook, oci_state(state, sizeof(state), "plain", 4242, "bundle-a",
				 "\"io.kubernetes.pod.name\":\"x\""), NULL, NULL, &r, st, sizeof(st));
	snprintf(want, sizeof(want), "set all ok\nlimit %" PRIu64 " all 0 1073741824 - 0\n", id_a);
	result(r.status == 0 && r.err[0] == '\0', "hook policy: no annotation: exit 0 (%s)",
	       said(&r));
	eq_str("hook policy: a container that asks nothing gets [defaults] vram.max", st, want);

	/* the runtime's namespace: its section's default; the pod gets [defaults] pod-vram.max */
	run_hook(hook, oci_state(state, sizeof(state), "ml", 4242, "bundle-a", NS_ML
				 "\"io.kubernetes.pod.name\":\"x\""), NULL, NULL, &r, st, sizeof(st));
	snprintf(want, sizeof(want), "set all ok\nset all ok\n"
		 "limit %" PRIu64 " all 0 2147483648 - 0\nlimit %" PRIu64 " all 0 6442450944 - 0\n",
		 id_a, id_pod);
	eq_str("hook policy: namespace ml-team: its vram.max on the container, pod-vram.max on "
	       "the pod's cgroup", st, want);

	/* an annotation within the ceiling lowers; above it is refused (over-ceiling = refuse) */
	run_hook(hook, oci_state(state, sizeof(state), "ml", 4242, "bundle-a", NS_ML
				 "\"gpumem.io/vram.max\":\"512M\",\"gpumem.io/pod-vram.max\":\"3G\""),
		 NULL, NULL, &r, st, sizeof(st));
	snprintf(want, sizeof(want), "set all ok\nset all ok\n"
		 "limit %" PRIu64 " all 0 536870912 - 0\nlimit %" PRIu64 " all 0 3221225472 - 0\n",
		 id_a, id_pod);
	eq_str("hook policy: annotations below the ceilings: theirs", st, want);
	run_hook(hook, oci_state(state, sizeof(state), "greedy", 4242, "bundle-a", NS_ML
				 "\"gpumem.io/vram.max\":\"9G\""), NULL, NULL, &r, st, sizeof(st));
	result(refused(&r, "greedy", "annotation gpumem.io/vram.max (9663676416 bytes) is above "
			   "the vram.max ceiling of [ml-team] (8589934592 bytes)") && st[0] == '\0',
	       "hook policy: above the namespace's ceiling: refused, no limit (%s)", said(&r));
	run_hook(hook, oci_state(state, sizeof(state), "greedy", 4242, "bundle-a",
				 "\"gpumem.io/vram.max\":\"5G\""), NULL, NULL, &r, st, sizeof(st));
	result(refused(&r, "greedy", "above the vram.max ceiling of [defaults] (4294967296 bytes)"),
	       "hook policy: no namespace: the [defaults] ceiling (%s)", said(&r));
	run_hook(hook, oci_state(state, sizeof(state), "greedy", 4242, "bundle-a", NS_ML
				 "\"gpumem.io/pod-vram.max\":\"13G\""), NULL, NULL, &r, st, sizeof(st));
	result(refused(&r, "greedy", "gpumem.io/pod-vram.max (13958643712 bytes) is above the "
			   "pod-vram.max ceiling of [ml-team]") && st[0] == '\0',
	       "hook policy: a pod annotation above the pod ceiling: refused (%s)", said(&r));

	/* a weaker mode, a namespace the runtime's annotations disagree on */
	run_hook(hook, oci_state(state, sizeof(state), "weak", 4242, "bundle-a",
				 "\"gpumem.io/mode\":\"monitor\""), NULL, NULL, &r, st, sizeof(st));
	result(refused(&r, "weak", "gpumem.io/mode=monitor is weaker than the policy's mode "
			   "enforce") && st[0] == '\0', "hook policy: monitor under enforce: refused (%s)",
	       said(&r));
	run_hook(hook, oci_state(state, sizeof(state), "two", 4242, "bundle-a", NS_ML
				 "\"io.kubernetes.cri.sandbox-namespace\":\"default\""), NULL, NULL,
		 &r, st, sizeof(st));
	result(refused(&r, "two", "disagree on the pod's namespace") && st[0] == '\0',
	       "hook policy: two namespace annotations that differ: refused (%s)", said(&r));

	/* over-ceiling = clamp: lowered, said on stderr, exit 0 */
	if (put_policy("[defaults]\nvram.ceiling = 4G\nover-ceiling = clamp\nmode = enforce\n") < 0)
		result(0, "hook policy: cannot rewrite the policy file");
	run_hook(hook, oci_state(state, sizeof(state), "greedy", 4242, "bundle-a",
				 "\"gpumem.io/vram.max\":\"5G\",\"gpumem.io/mode\":\"monitor\""),
		 NULL, NULL, &r, st, sizeof(st));
	snprintf(want, sizeof(want), "set all ok\nlimit %" PRIu64 " all 0 4294967296 - 0\n", id_a);
	result(r.status == 0 && strstr(r.err, "container greedy: policy: vram.max: the annotation's "
					     "5368709120 bytes lowered to the ceiling of [defaults]"),
	       "hook policy clamp: exit 0, the lowering said on stderr (%d: %s)", r.status, said(&r));
	eq_str("hook policy clamp: max lowered to the ceiling, mode raised to enforce", st, want);
	run_hook(hook, oci_state(state, sizeof(state), "plain", 4242, "bundle-a", "\"a\":\"b\""),
		 NULL, NULL, &r, st, sizeof(st));
	eq_str("hook policy: no default, a ceiling: the ceiling (never unlimited)", st, want);

	/* a pod limit with no pod cgroup above: refused, not set on a shared parent */
	if (put_policy("[defaults]\npod-vram.max = 1G\n") < 0)
		result(0, "hook policy: cannot rewrite the policy file");
	run_hook(hook, oci_state(state, sizeof(state), "abc", 4343, "bundle-scope", NS_ML "\"a\":\"b\""),
		 NULL, NULL, &r, st, sizeof(st));
	result(refused(&r, "abc", "is not a pod's cgroup: a pod limit has nowhere to go") &&
	       st[0] == '\0', "hook policy: pod limit without a pod cgroup: refused (%s)", said(&r));

	/* a CDI spec's hook: --device, the runtime's, wins over gpumem.io/devices */
	if (put_policy("[defaults]\nvram.max = 1G\n") < 0)
		result(0, "hook policy: cannot rewrite the policy file");
	run_hook(hook, oci_state(state, sizeof(state), "cdi", 4242, "bundle-a",
				 "\"gpumem.io/devices\":\"card1\""), NULL,
		 ARGS("--device", "0000:00:02.0"), &r, st, sizeof(st));
	snprintf(want, sizeof(want), "set card0 ok\nlimit %" PRIu64 " card0 0 1073741824 - 0\n",
		 id_a);
	result(r.status == 0, "hook --device: exit 0 (%s)", said(&r));
	eq_str("hook --device PCI: the policy's max on exactly that device", st, want);
	run_hook(hook, oci_state(state, sizeof(state), "cdi", 4242, "bundle-a", "\"a\":\"b\""),
		 NULL, ARGS("--device", "0000:00:09.0"), &r, st, sizeof(st));
	result(refused(&r, "cdi", "no DRM card at PCI address 0000:00:09.0") && st[0] == '\0',
	       "hook --device: a device that is not there: refused (%s)", said(&r));

	/* the policy file itself: bad, writable by others, named and missing */
	if (put_policy("[defaults]\nvram.max = 1G\nvram.maxx = 2G\n") < 0)
		result(0, "hook policy: cannot rewrite the policy file");
	run_hook(hook, oci_state(state, sizeof(state), "p", 4242, "bundle-a", "\"a\":\"b\""),
		 NULL, NULL, &r, st, sizeof(st));
	result(refused(&r, "p", "policy.conf:3: unknown key 'vram.maxx'") && st[0] == '\0',
	       "hook policy: a bad policy file refuses every start, naming file and line (%s)",
	       said(&r));
	if (put_policy("[defaults]\nvram.max = 1G\n") < 0)
		result(0, "hook policy: cannot rewrite the policy file");
	snprintf(path, sizeof(path), "%s/etc/gpumem/policy.conf", sysroot);
	chmod(path, 0666);
	run_hook(hook, oci_state(state, sizeof(state), "p", 4242, "bundle-a", "\"a\":\"b\""),
		 NULL, NULL, &r, st, sizeof(st));
	result(refused(&r, "p", "not a root-owned file writable by root only") && st[0] == '\0',
	       "hook policy: a policy file others may write: refused (%s)", said(&r));
	run_hook(hook, oci_state(state, sizeof(state), "p", 4242, "bundle-a", "\"a\":\"b\""),
		 NULL, ARGS("--policy", "/nonexistent/policy.conf"), &r, st, sizeof(st));
	result(refused(&r, "p", "policy /nonexistent/policy.conf: No such file") && st[0] == '\0',
	       "hook policy: --policy FILE that does not exist: refused (%s)", said(&r));
	unlink(path);

	/*
	 * No policy: a Kubernetes container that got a GPU through CDI (any
	 * --device) with no gpumem.io/ annotation is refused (containerd
	 * without pod_annotations drops the pod's); outside Kubernetes, or
	 * without CDI, it is left alone as before; an annotation is applied.
	 */
	run_hook(hook, oci_state(state, sizeof(state), "k8s", 4242, "bundle-a", NS_ML "\"a\":\"b\""),
		 NULL, ARGS("--device", "0000:00:02.0"), &r, st, sizeof(st));
	result(refused(&r, "k8s", "a Kubernetes container with a GPU through CDI, no node policy") &&
	       strstr(r.err, "pod_annotations") && st[0] == '\0',
	       "hook CDI, no policy, no annotation, Kubernetes: refused (%s)", said(&r));
	run_hook(hook, oci_state(state, sizeof(state), "k8s", 4242, "bundle-a", NS_ML "\"a\":\"b\""),
		 NULL, ARGS("--device", "all"), &r, st, sizeof(st));
	result(refused(&r, "k8s", "no node policy"), "hook CDI all, no policy, Kubernetes: refused (%s)",
	       said(&r));
	run_hook(hook, oci_state(state, sizeof(state), "pm", 4242, "bundle-a", "\"a\":\"b\""),
		 NULL, ARGS("--device", "all"), &r, st, sizeof(st));
	result(r.status == 0 && r.err[0] == '\0' && st[0] == '\0',
	       "hook CDI, no policy, not Kubernetes: left alone (%s)", said(&r));
	run_hook(hook, oci_state(state, sizeof(state), "k8s", 4242, "bundle-a", NS_ML "\"a\":\"b\""),
		 NULL, NULL, &r, st, sizeof(st));
	result(r.status == 0 && r.err[0] == '\0' && st[0] == '\0',
	       "hook without CDI, no policy, Kubernetes, no annotation: left alone (%s)", said(&r));
	run_hook(hook, oci_state(state, sizeof(state), "k8s", 4242, "bundle-a", NS_ML
				 "\"gpumem.io/vram.max\":\"1G\""), NULL, ARGS("--device", "all"),
		 &r, st, sizeof(st));
	snprintf(want, sizeof(want), "set all ok\nlimit %" PRIu64 " all 0 1073741824 - 0\n", id_a);
	result(r.status == 0, "hook CDI all, no policy, an annotation: exit 0 (%s)", said(&r));
	eq_str("hook --device all: one limit on all devices together", st, want);
}

void test_hook(const char *hook)
{
	static const struct { const char *ann, *why; } bad[] = {
		{ "\"gpumem.io/vram.max\":\"8X\"",
		  "annotation gpumem.io/vram.max: invalid size '8X'" },
		{ "\"gpumem.io/vram.max\":\"-1\"",
		  "annotation gpumem.io/vram.max: invalid size '-1' (negative" },
		{ "\"gpumem.io/vram.max\":\"2^70\"",
		  "annotation gpumem.io/vram.max: invalid size '2^70'" },
		{ "\"gpumem.io/vram.max\":\"1180591620717411303424\"",
		  "annotation gpumem.io/vram.max: " },
		{ "\"gpumem.io/vram.max\":\"\"", "annotation gpumem.io/vram.max: empty size" },
		{ "\"gpumem.io/vram.max\":\"0\"", "annotation gpumem.io/vram.max: " },
		{ "\"gpumem.io/vram.max\":\"1.5\"", "annotation gpumem.io/vram.max: " },
		{ "\"gpumem.io/vram.high\":\"1G\",\"gpumem.io/vram.max\":\"512M\"",
		  "gpumem.io/vram.high (1073741824 bytes) is above the container's max" },
		{ "\"gpumem.io/vram.max\":\"1G\",\"gpumem.io/mode\":\"hard\"",
		  "annotation gpumem.io/mode: " },
		{ "\"gpumem.io/mode\":\"monitor\"", "without gpumem.io/vram.max, gpumem.io/vram.high or gpumem.io/pod-vram.max" },
		{ "\"gpumem.io/vram.maxx\":\"1G\"", "unknown annotation gpumem.io/vram.maxx" },
		{ "\"gpumem.io/vram.max\":1073741824", "annotation gpumem.io/vram.max: not a string" },
		{ "\"gpumem.io/vram.max\":\"1G\",\"gpumem.io/devices\":\"card7\"",
		  "annotation gpumem.io/devices: no device card7" },
		{ "\"gpumem.io/vram.max\":\"1G\",\"gpumem.io/devices\":\"0000:00:09.0\"",
		  "annotation gpumem.io/devices: no DRM card at PCI address 0000:00:09.0" },
		{ "\"gpumem.io/vram.max\":\"1G\",\"gpumem.io/devices\":\"gpu0\"",
		  "annotation gpumem.io/devices: " },
		{ "\"gpumem.io/vram.max\":\"1G\",\"gpumem.io/devices\":\"card0,00:02.0\"",
		  "card0 named twice" },
		{ "\"gpumem.io/vram.max\":\"1G\",\"gpumem.io/devices\":\" , \"",
		  "annotation gpumem.io/devices: empty" },
	};
	char state[2048], st[4096], want[512];
	struct run r;
	size_t i;

	if (make_host() < 0) {
		result(0, "hook: the fake host could not be made: %s", strerror(errno));
		return;
	}

	/* limits on all devices: exact values, mode */
	run_hook(hook, oci_state(state, sizeof(state), "ctr-a", 4242, "bundle-a",
				 "\"io.kubernetes.pod.name\":\"x\",\"gpumem.io/vram.max\":\"512M\","
				 "\"gpumem.io/vram.high\":\"256MiB\",\"gpumem.io/mode\":\"monitor\""),
		 NULL, NULL, &r, st, sizeof(st));
	snprintf(want, sizeof(want), "set all ok\nlimit %" PRIu64 " all 0 536870912 268435456 1\n",
		 id_a);
	result(r.status == 0 && r.err[0] == '\0' && r.out[0] == '\0',
	       "hook: good annotations: exit 0, silent (%d: %s)", r.status, said(&r));
	eq_str("hook: max 512M, high 256MiB, monitor on all devices of the container's cgroup", st,
	       want);

	/* per device, by card name and PCI address; mode enforce by default */
	run_hook(hook, oci_state(state, sizeof(state), "ctr-a", 4242, "bundle-a",
				 "\"gpumem.io/vram.max\":\"1G\","
				 "\"gpumem.io/devices\":\"card0, 0000:00:03.0\""),
		 NULL, NULL, &r, st, sizeof(st));
	snprintf(want, sizeof(want), "set card0 ok\nset card1 ok\n"
		 "limit %" PRIu64 " card0 0 1073741824 - 0\nlimit %" PRIu64 " card1 0 1073741824 - 0\n",
		 id_a, id_a);
	result(r.status == 0 && r.err[0] == '\0', "hook: two devices: exit 0 (%s)", said(&r));
	eq_str("hook: one limit per device named (cardN and PCI address), enforce", st, want);

	/* crun's systemd cgroupsPath: the scope is limited, not the subgroup */
	run_hook(hook, oci_state(state, sizeof(state), "abc", 4343, "bundle-scope",
				 "\"gpumem.io/vram.max\":\"64M\""), NULL, NULL, &r, st, sizeof(st));
	snprintf(want, sizeof(want), "set all ok\nlimit %" PRIu64 " all 0 67108864 - 0\n", id_scope);
	result(r.status == 0 && r.err[0] == '\0', "hook: systemd cgroupsPath: exit 0 (%s)", said(&r));
	eq_str("hook: slice:prefix:name limits the prefix-name.scope above the process", st, want);

	run_hook(hook, oci_state(state, sizeof(state), "abc", 4343, "bundle-noprefix",
				 "\"gpumem.io/vram.max\":\"64M\""), NULL, NULL, &r, st, sizeof(st));
	eq_str("hook: slice::name (no prefix) limits name.scope", st, want);

	/* no config.json: the process's cgroup */
	run_hook(hook, oci_state(state, sizeof(state), "ctr-a", 4242, "bundle-none",
				 "\"gpumem.io/vram.high\":\"1K\""), NULL, NULL, &r, st, sizeof(st));
	snprintf(want, sizeof(want), "set all ok\nlimit %" PRIu64 " all 0 - 1024 0\n", id_a);
	eq_str("hook: no config.json: the process's cgroup, high only", st, want);

	/* no gpumem.io/ annotation: nothing asked of gpumem at all */
	run_hook(hook, oci_state(state, sizeof(state), "plain", 4242, "bundle-a",
				 "\"io.kubernetes.pod.name\":\"x\""), NULL, NULL, &r, st, sizeof(st));
	result(r.status == 0 && r.err[0] == '\0' && st[0] == '\0',
	       "hook: no gpumem.io/ annotation: exit 0, no limit (unlimited)");
	run_hook(hook, "{\"ociVersion\":\"1.0.2\",\"id\":\"bare\",\"status\":\"created\",\"pid\":4242}",
		 NULL, NULL, &r, st, sizeof(st));
	result(r.status == 0 && r.err[0] == '\0' && st[0] == '\0',
	       "hook: no annotations at all: exit 0, no limit");

	/* malformed annotations: refused with the reason, no limit */
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		run_hook(hook, oci_state(state, sizeof(state), "bad", 4242, "bundle-a", bad[i].ann),
			 NULL, NULL, &r, st, sizeof(st));
		result(refused(&r, "bad", bad[i].why) && !strstr(st, "limit ") && !strstr(st, "set "),
		       "hook: {%s} refused with '%s', no limit set (%d: %s)", bad[i].ann, bad[i].why,
		       r.status, said(&r));
	}

	/* the second device fails: the first one's limit is removed again */
	run_hook(hook, oci_state(state, sizeof(state), "ctr-a", 4242, "bundle-a",
				 "\"gpumem.io/vram.max\":\"1G\",\"gpumem.io/devices\":\"card0,card1\""),
		 "GM_FAKE_SETFAIL_DEV=1", NULL, &r, st, sizeof(st));
	result(refused(&r, "ctr-a", "cannot set the VRAM limit of cgroup /kubepods/pod1/ctr-a on "
			   "card1: No space left on device: too many limits"),
	       "hook: second device fails: refused, the kernel's reason (%s)", said(&r));
	eq_str("hook: second device fails: card0's limit deleted, none left", st,
	       "set card0 ok\nset card1 No space left on device\ndel card0 ok\n");
	/* the same, fail-open: a warning, exit 0, still no limit left */
	run_hook(hook, oci_state(state, sizeof(state), "ctr-a", 4242, "bundle-a",
				 "\"gpumem.io/vram.max\":\"1G\",\"gpumem.io/devices\":\"card0,card1\""),
		 "GM_FAKE_SETFAIL_DEV=1", ARGS("--fail-open"), &r, st, sizeof(st));
	result(r.status == 0 && strstr(r.err, "too many limits (fail-open: started without a gpumem "
					     "limit)\n"), "hook --fail-open: exit 0, the reason as a warning");
	eq_str("hook --fail-open: no limit left either", st,
	       "set card0 ok\nset card1 No space left on device\ndel card0 ok\n");
	run_hook(hook, oci_state(state, sizeof(state), "bad", 4242, "bundle-a",
				 "\"gpumem.io/vram.max\":\"8X\""), "GPUMEM_HOOK_FAIL_OPEN=1", NULL,
		 &r, st, sizeof(st));
	result(r.status == 0 && strstr(r.err, "invalid size '8X'") && strstr(r.err, "fail-open") &&
	       st[0] == '\0', "hook: GPUMEM_HOOK_FAIL_OPEN=1: a bad annotation is a warning, no limit");

	/* the cgroup cross-check, the process, the state, the module */
	run_hook(hook, oci_state(state, sizeof(state), "ctr-a", 4242, "bundle-other",
				 "\"gpumem.io/vram.max\":\"1G\""), NULL, NULL, &r, st, sizeof(st));
	result(refused(&r, "ctr-a", "the container's cgroup /kubepods/pod1/ctr-a does not match "
			   "linux.cgroupsPath '/kubepods/pod1/ctr-b'") && st[0] == '\0',
	       "hook: cgroupsPath naming another cgroup: refused, no limit (%s)", said(&r));
	run_hook(hook, oci_state(state, sizeof(state), "v1", 4444, "bundle-none",
				 "\"gpumem.io/vram.max\":\"1G\""), NULL, NULL, &r, st, sizeof(st));
	result(refused(&r, "v1", "process 4444 is in no cgroup v2 hierarchy") && st[0] == '\0',
	       "hook: a process without a cgroup v2 path: refused (%s)", said(&r));
	run_hook(hook, oci_state(state, sizeof(state), "root", 4545, "bundle-none",
				 "\"gpumem.io/vram.max\":\"1G\""), NULL, NULL, &r, st, sizeof(st));
	result(refused(&r, "root", "process 4545 is in the root cgroup") && st[0] == '\0',
	       "hook: a process in the root cgroup: refused, the host is never limited (%s)",
	       said(&r));
	run_hook(hook, oci_state(state, sizeof(state), "gone", 4646, "bundle-none",
				 "\"gpumem.io/vram.max\":\"1G\""), NULL, NULL, &r, st, sizeof(st));
	result(refused(&r, "gone", "/proc/4646/cgroup") && st[0] == '\0',
	       "hook: a process that is not there: refused (%s)", said(&r));
	run_hook(hook, "{\"id\":\"nopid\",\"annotations\":{\"gpumem.io/vram.max\":\"1G\"}}", NULL,
		 NULL, &r, st, sizeof(st));
	result(refused(&r, "nopid", "no pid"), "hook: a state without pid: refused (%s)", said(&r));
	run_hook(hook, "{\"id\":\"x\",", NULL, NULL, &r, st, sizeof(st));
	result(refused(&r, "?", "not a JSON object"), "hook: not JSON: refused (%s)", said(&r));
	run_hook(hook, oci_state(state, sizeof(state), "ctr-a", 4242, "bundle-a",
				 "\"gpumem.io/vram.max\":\"1G\""), "GM_FAKE=nomodule", NULL, &r, st,
		 sizeof(st));
	result(refused(&r, "ctr-a", "the gpumem kernel module is not loaded") && st[0] == '\0',
	       "hook: module not loaded: refused (%s)", said(&r));
	run_hook(hook, oci_state(state, sizeof(state), "ctr-\\nx", 4242, "bundle-a",
				 "\"gpumem.io/vram.max\":\"8X\\n\""), NULL, NULL, &r, st, sizeof(st));
	result(r.status == 1 && strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
	       "hook: control characters of the state never split the line");
	run_tool(hook, &r, ARGS("--bogus"));
	result(r.status == 2 && strstr(r.err, "unknown option"), "hook: unknown option: exit 2");

	test_hook_policy(hook);

	{
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
		result(system(cmd) == 0, "hook: fake host removed");
	}
}
