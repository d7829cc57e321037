// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_export.c - `gpumemctl export --prometheus`: per-process and
 * per-device metrics in the Prometheus text exposition format 0.0.4, for
 * node_exporter's textfile collector.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fields.h"
#include "gpumemctl.h"
#include "output.h"
#include "query.h"
#include "quota.h"

static const char help[] =
	"Usage: gpumemctl export --prometheus [-H] [-o FILE]\n"
	"\n"
	"Print gpumem's numbers in the Prometheus text exposition format 0.0.4:\n"
	"  gpumem_process_bytes{pid,comm,cgroup,device,region}\n"
	"  gpumem_process_shared_bytes, gpumem_process_owned_bytes (with -H),\n"
	"  gpumem_process_buffers{pid,comm,cgroup,device}\n"
	"  gpumem_device_capacity_bytes, gpumem_device_used_bytes,\n"
	"  gpumem_device_free_bytes{device,driver,pci,region}\n"
	"  gpumem_cgroup_usage_bytes{cgroup,device,region}\n"
	"  gpumem_cgroup_limit_bytes{cgroup,device,region,kind=\"max\"|\"high\"}\n"
	"(all gauges; a device value that is not known is left out; device=\"all\"\n"
	"is the total over all devices, not to be added to the others; the cgroup\n"
	"families are left out when the loaded module has no quota support).\n"
	"\n"
	"  -P, --prometheus   the format (required; the only one so far)\n"
	"  -H, --held         process figures from the held view (a walk: every\n"
	"                     region and driver, shared and owned bytes) instead\n"
	"                     of the charged view (VRAM/GTT counters, regions vram\n"
	"                     and gtt only); see gpumemctl ps --help\n"
	"  -o, --output FILE  write FILE atomically (a temporary file in the same\n"
	"                     directory, renamed), e.g. for the textfile collector:\n"
	"                     -o /var/lib/prometheus/node-exporter/gpumem.prom;\n"
	"                     a character device or FIFO (/dev/stdout) is written\n"
	"                     in place; a symbolic link is never replaced: it is\n"
	"                     written through only to such a device or FIFO\n";

/* What is exported: cgroups is NULL when the module cannot tell. */
struct metrics {
	const struct gm_dev_row *dev_rows;	/* a device's region each */
	size_t ndev_rows;
	const struct gm_proc_list *procs;
	const struct gm_limit_list *cgroups;
	bool held;	/* process figures from the held view */
	bool dmem;	/* some device region has a dmem region */
};

static void write_metrics(FILE *f, const struct metrics *m)
{
	const struct gm_proc_list *procs = m->procs;
	/* the process families: ps's fields that are metrics (proc_fields.c) */
	struct gm_fields fs = gm_proc_fieldset(m->held, true);
	/* the device families: devices' fields that are metrics (dev_fields.c) */
	struct gm_fields dfs = gm_dev_fieldset_dmem(true, m->dmem);

	gm_fields_prom(f, &fs, procs->v, procs->n, sizeof(*procs->v));
	gm_fields_prom(f, &dfs, m->dev_rows, m->ndev_rows, sizeof(*m->dev_rows));
	if (m->cgroups)
		gm_limits_prom(f, m->cgroups);
}

/* Write through a temporary file in FILE's directory and rename it. */
static int write_file(const char *path, const struct metrics *m)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + 8);
	FILE *f;
	int fd, err = 0;

	if (!tmp)
		return gm_error("out of memory");
	snprintf(tmp, len + 8, "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = errno;
		gm_error("cannot create a temporary file for %s: %s", path, strerror(err));
		free(tmp);
		return GM_EXIT_ERROR;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		goto fail;
	}
	fchmod(fd, 0644);
	write_metrics(f, m);
	if (fflush(f) != 0 || ferror(f) || fsync(fd) < 0)
		err = errno ? errno : EIO;
	if (fclose(f) != 0 && !err)
		err = errno;
	if (!err && rename(tmp, path) < 0)
		err = errno;
	if (!err) {
		free(tmp);
		return GM_EXIT_OK;
	}
fail:
	unlink(tmp);
	free(tmp);
	return gm_error("cannot write %s: %s", path, strerror(err));
}

/*
 * Write a character device or FIFO in place (PATH, or what a symbolic link
 * PATH leads to). What was opened is checked again, so that a file put in
 * its place meanwhile is not written either.
 */
static int write_in_place(const char *path, const struct metrics *m)
{
	struct stat st;
	FILE *f;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return gm_error("cannot write %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
		close(fd);
		return gm_error("cannot write %s: it changed while it was opened (no longer a "
				"character device or FIFO)", path);
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		return gm_error("cannot write %s: %s", path, strerror(err));
	}
	write_metrics(f, m);
	if (fflush(f) != 0 || ferror(f))
		err = errno ? errno : EIO;
	if (fclose(f) != 0 && !err)
		err = errno;
	if (err)
		return gm_error("cannot write %s: %s", path, strerror(err));
	return GM_EXIT_OK;
}

/*
 * -o FILE: a regular file (or none yet) is replaced atomically; a character
 * device or FIFO is written in place, also through a symbolic link; a
 * symbolic link is never renamed over, whatever it leads to (a regular file
 * behind it would be replaced by a file where the link was); anything else
 * is refused.
 */
static int write_output(const char *path, const struct metrics *m)
{
	struct stat st, target;

	errno = 0;
	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return write_file(path, m);
		return gm_error("cannot write %s: %s", path, strerror(errno));
	}
	if (S_ISREG(st.st_mode))
		return write_file(path, m);
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
		return write_in_place(path, m);
	if (S_ISDIR(st.st_mode))
		return gm_error("cannot write %s: %s", path, strerror(EISDIR));
	if (!S_ISLNK(st.st_mode))
		return gm_error("cannot write %s: not a regular file, character device or FIFO",
				path);
	if (stat(path, &target) == 0 && (S_ISCHR(target.st_mode) || S_ISFIFO(target.st_mode)))
		return write_in_place(path, m);
	return gm_error("cannot write %s: a symbolic link (to a regular file, or to nothing): "
			"not replaced; name the file itself", path);
}

int cmd_export(int argc, char **argv, struct gm_opts *o)
{
	static const struct option opts[] = {
		GM_COMMON_LONGOPTS,
		{ "prometheus", no_argument, NULL, 'P' },
		{ "output", required_argument, NULL, 'o' },
		{ "held", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	struct gm_proc_filter all = { 0 };
	struct gm_limit_list cgroups = { 0 };
	struct gm_proc_list procs;
	struct gm_dev_list devs;
	struct metrics m = { NULL, 0, &procs, &cgroups, false, false };
	struct gm_nl nl = { 0 };
	const char *out = NULL;
	bool prom = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, GM_COMMON_SHORTOPTS "Po:H", opts, NULL)) != -1) {
		switch (c) {
		case 'P':
			prom = true;
			break;
		case 'H':
			m.held = all.held = true;
			break;
		case 'o':
			if (!*optarg)
				return gm_usage_error("export", "empty output file name");
			out = optarg;
			break;
		default:
			ret = gm_common_opt(c, "export", argv, o, help);
			if (ret != GM_OPT_NEXT)
				return ret;
		}
	}
	ret = gm_no_operands("export", argc, argv);
	if (ret != GM_OPT_NEXT)
		return ret;
	if (!prom)
		return gm_usage_error("export", "which format? --prometheus is required");
	if (o->json)
		return gm_usage_error("export", "--json does not go with --prometheus");

	ret = gm_connect(&nl);
	if (ret != GM_OPT_NEXT)
		return ret;
	if (gm_get_devices(&nl, &devs) < 0) {
		ret = gm_report(&nl, "devices");
		gm_nl_close(&nl);
		return ret;
	}
	if (gm_get_procs(&nl, &all, &procs) < 0) {
		ret = gm_report(&nl, "processes");
		gm_dev_list_free(&devs);
		gm_nl_close(&nl);
		return ret;
	}
	if (gm_get_cgroups(&nl, &cgroups) < 0) {
		if (nl.error != EOPNOTSUPP) {	/* EOPNOTSUPP: a module without quotas */
			ret = gm_report(&nl, "cgroups");
			gm_proc_list_free(&procs);
			gm_dev_list_free(&devs);
			gm_nl_close(&nl);
			return ret;
		}
		m.cgroups = NULL;
	}
	gm_nl_close(&nl);
	gm_procs_sort(&procs);
	m.dmem = gm_dmem_enrich(&devs);
	if (m.cgroups)
		gm_dmem_limits(&devs, &cgroups);
	m.dev_rows = gm_dev_rows(&devs, &m.ndev_rows);
	if (!m.dev_rows && devs.n) {
		ret = gm_error("out of memory");
		goto out;
	}

	if (out) {
		ret = write_output(out, &m);
	} else {
		write_metrics(stdout, &m);
		ret = GM_EXIT_OK;
	}
out:
	free((void *)m.dev_rows);
	gm_limit_list_free(&cgroups);
	gm_proc_list_free(&procs);
	gm_dev_list_free(&devs);
	return ret;
}
