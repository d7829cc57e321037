// SPDX-License-Identifier: GPL-2.0
/*
 * parse.c - command-line values for gpumemctl. No output of its own: every
 * parser says what is wrong in the caller's buffer.
 */
#include "parse.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <mntent.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <linux/magic.h>

#include "../../uapi/gpumem.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (!is_digit(*s))
			return -1;
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_pid(const char *s, uint32_t *pid, char *err, size_t errlen)
{
	uint64_t v;

	if (!s || !*s)
		return fail(err, errlen, "empty pid");
	if (*s == '-' || parse_uint(s, UINT64_MAX, &v) == 0) {
		if (*s == '-' || v > GM_PID_MAX)
			return fail(err, errlen, "pid %s out of range (0 to %d; 0: in-kernel clients)",
				    s, GM_PID_MAX);
		*pid = (uint32_t)v;
		return 0;
	}
	/* more than 20 digits is out of range as well */
	if (strspn(s, "0123456789") == strlen(s))
		return fail(err, errlen, "pid %s out of range (0 to %d; 0: in-kernel clients)", s,
			    GM_PID_MAX);
	return fail(err, errlen, "invalid pid '%s' (not a number)", s);
}

int parse_count(const char *s, const char *what, uint64_t *n, char *err, size_t errlen)
{
	if (parse_uint(s, UINT32_MAX, n) < 0 || *n == 0)
		return fail(err, errlen, "invalid %s '%s' (a whole number, 1 to %u)",
			    what, s ? s : "", UINT32_MAX);
	return 0;
}

/*
 * A decimal number "123", "1.5", ".5" -> integer part and the fraction as
 * numerator/denominator (up to 9 digits; more are dropped). -1 if not one.
 */
static int parse_decimal(const char *s, size_t len, uint64_t *ip, uint64_t *num, uint64_t *den)
{
	const char *dot = memchr(s, '.', len);
	size_t ilen = dot ? (size_t)(dot - s) : len, i;
	char buf[32];

	*ip = 0;
	*num = 0;
	*den = 1;
	if (len == 0 || (dot && ilen + 1 == len && ilen == 0))
		return -1;
	if (ilen) {
		if (ilen >= sizeof(buf))
			return -1;
		memcpy(buf, s, ilen);
		buf[ilen] = '\0';
		if (parse_uint(buf, UINT64_MAX, ip) < 0)
			return -1;
	}
	if (dot) {
		if (ilen + 1 == len)
			return -1;	/* "1." */
		for (i = ilen + 1; i < len; i++) {
			if (!is_digit(s[i]))
				return -1;
			if (*den < 1000000000) {
				*num = *num * 10 + (uint64_t)(s[i] - '0');
				*den *= 10;
			}
		}
	}
	return 0;
}

int parse_interval(const char *s, unsigned int *ms, char *err, size_t errlen)
{
	uint64_t ip, num, den, v;

	if (!s || parse_decimal(s, strlen(s), &ip, &num, &den) < 0 || ip > 86400)
		goto bad;
	v = ip * 1000 + num * 1000 / den;
	if (v < 100 || v > 86400000)
		goto bad;
	*ms = (unsigned int)v;
	return 0;
bad:
	return fail(err, errlen, "invalid interval '%s' (seconds, 0.1 to 86400, e.g. 2 or 0.5)",
		    s ? s : "");
}

int parse_size(const char *s, uint64_t *bytes, char *err, size_t errlen)
{
	static const struct { const char *sfx; unsigned int shift; } sfx[] = {
		{ "", 0 }, { "B", 0 },
		{ "K", 10 }, { "k", 10 }, { "KiB", 10 }, { "KB", 10 }, { "kB", 10 },
		{ "M", 20 }, { "MiB", 20 }, { "MB", 20 },
		{ "G", 30 }, { "GiB", 30 }, { "GB", 30 },
		{ "T", 40 }, { "TiB", 40 }, { "TB", 40 },
	};
	uint64_t ip, num, den, mult;
	size_t nlen, i;

	if (!s)
		goto bad;
	nlen = strspn(s, "0123456789.");
	for (i = 0; i < sizeof(sfx) / sizeof(*sfx); i++)
		if (strcmp(s + nlen, sfx[i].sfx) == 0)
			break;
	if (i == sizeof(sfx) / sizeof(*sfx) || parse_decimal(s, nlen, &ip, &num, &den) < 0)
		goto bad;
	mult = (uint64_t)1 << sfx[i].shift;
	if (ip > UINT64_MAX / mult)
		goto bad;
	/* num < den <= 1e9 and mult <= 2^40: the product fits in 64 bits */
	if (ip * mult > UINT64_MAX - num * mult / den)
		goto bad;
	*bytes = ip * mult + num * mult / den;
	return 0;
bad:
	return fail(err, errlen, "invalid size '%s' (bytes, or with a suffix K, M, G, T, e.g. 64K)",
		    s ? s : "");
}

#define LIMIT_SIZE_HINT \
	"a whole number of bytes, or a number with a suffix K, M, G, T (KiB, MiB, GiB, TiB; " \
	"powers of 1024), e.g. 512M or 1.5G"

int parse_limit_size(const char *s, uint64_t *bytes, char *err, size_t errlen)
{
	static const struct { const char *sfx; unsigned int shift; } sfx[] = {
		{ "", 0 }, { "B", 0 },
		{ "K", 10 }, { "KiB", 10 }, { "KB", 10 },
		{ "M", 20 }, { "MiB", 20 }, { "MB", 20 },
		{ "G", 30 }, { "GiB", 30 }, { "GB", 30 },
		{ "T", 40 }, { "TiB", 40 }, { "TB", 40 },
	};
	unsigned char frac[40];	/* the significant fraction digits (at most shift) */
	const char *dot, *fs;
	uint64_t ip = 0, fb = 0;
	size_t nlen, ilen, flen, i, k;
	unsigned int shift;

	if (!s || !*s)
		return fail(err, errlen, "empty size (" LIMIT_SIZE_HINT ")");
	if (*s == '-')
		return fail(err, errlen, "invalid size '%s' (negative; " LIMIT_SIZE_HINT ")", s);
	nlen = strspn(s, "0123456789.");
	for (i = 0; i < sizeof(sfx) / sizeof(*sfx); i++)
		if (strcasecmp(s + nlen, sfx[i].sfx) == 0)
			break;
	dot = memchr(s, '.', nlen);
	ilen = dot ? (size_t)(dot - s) : nlen;
	flen = dot ? nlen - ilen - 1 : 0;
	if (i == sizeof(sfx) / sizeof(*sfx) || nlen == 0 || (dot && memchr(dot + 1, '.', flen)) ||
	    (dot && flen == 0) || (ilen == 0 && flen == 0))
		return fail(err, errlen, "invalid size '%s' (" LIMIT_SIZE_HINT ")", s);
	shift = sfx[i].shift;

	for (i = 0; i < ilen; i++) {
		if (ip > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			goto overflow;
		ip = ip * 10 + (uint64_t)(s[i] - '0');
	}
	/*
	 * The fraction: without its trailing zeros, k digits are a whole number
	 * of bytes times 2^-shift only if k <= shift (a fraction with a last
	 * digit other than 0 has exactly k decimals; m / 2^shift has at most
	 * shift). Then double it shift times, digit by digit: the carries out
	 * of the first digit are the bytes, and what is left must be 0.
	 */
	fs = dot ? dot + 1 : s + nlen;
	while (flen && fs[flen - 1] == '0')
		flen--;
	if (flen > shift)
		goto fraction;
	for (k = 0; k < flen; k++)
		frac[k] = (unsigned char)(fs[k] - '0');
	for (i = 0; flen && i < shift; i++) {
		unsigned int carry = 0;

		for (k = flen; k-- > 0;) {
			unsigned int d = frac[k] * 2u + carry;

			frac[k] = (unsigned char)(d % 10);
			carry = d / 10;
		}
		fb = fb * 2 + carry;
	}
	for (k = 0; k < flen; k++)
		if (frac[k])
			goto fraction;
	if (shift && ip > UINT64_MAX >> shift)
		goto overflow;
	ip <<= shift;
	if (ip > UINT64_MAX - fb)
		goto overflow;
	*bytes = ip + fb;
	if (*bytes == 0)
		return fail(err, errlen, "invalid size '%s' (must be at least 1 byte)", s);
	if (*bytes == UINT64_MAX)	/* the kernel's "no limit": it refuses it */
		goto overflow;
	return 0;
fraction:
	return fail(err, errlen, "invalid size '%s' (not a whole number of bytes)", s);
overflow:
	return fail(err, errlen, "invalid size '%s' (too large: at most %" PRIu64 " bytes, 16 EiB - 2)",
		    s, UINT64_MAX - 1);
}

int parse_region(const char *s, uint32_t *region, char *err, size_t errlen)
{
	uint32_t i;

	for (i = 0; s && i <= GPUMEM_REGION_MAX; i++)
		if (gm_region_name(i) && strcasecmp(s, gm_region_name(i)) == 0) {
			*region = i;
			return 0;
		}
	return fail(err, errlen, "invalid region '%s' (vram, gtt, system or other)", s ? s : "");
}

int parse_mode(const char *s, uint32_t *mode, char *err, size_t errlen)
{
	if (s && strcasecmp(s, "enforce") == 0) {
		*mode = GPUMEM_LIMIT_MODE_ENFORCE;
		return 0;
	}
	if (s && strcasecmp(s, "monitor") == 0) {
		*mode = GPUMEM_LIMIT_MODE_MONITOR;
		return 0;
	}
	return fail(err, errlen, "invalid mode '%s' (enforce or monitor)", s ? s : "");
}

/* "bb:dd.f" or "dddd:bb:dd.f" in hex -> "dddd:bb:dd.f"; -1 if not a PCI address. */
static int pci_normalize(const char *s, char *out, size_t len)
{
	unsigned int dom = 0, bus, dev, fn;
	int n = -1;

	if (strspn(s, "0123456789abcdefABCDEF:.") != strlen(s))
		return -1;
	if (sscanf(s, "%4x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &n) == 4 && s[n] == '\0')
		goto ok;
	n = -1;
	dom = 0;
	if (sscanf(s, "%2x:%2x.%1x%n", &bus, &dev, &fn, &n) == 3 && s[n] == '\0')
		goto ok;
	return -1;
ok:
	if (dev > 0x1f || fn > 7)
		return -1;
	snprintf(out, len, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return 0;
}

int parse_device(const char *s, struct dev_spec *spec, char *err, size_t errlen)
{
	uint64_t v;
	size_t i;

	memset(spec, 0, sizeof(*spec));
	if (!s || !*s)
		return fail(err, errlen, "empty device name");
	if (parse_uint(strncmp(s, "card", 4) == 0 ? s + 4 : s, UINT32_MAX, &v) == 0) {
		spec->by_id = true;
		spec->id = (uint32_t)v;
		return 0;
	}
	if (pci_normalize(s, spec->name, sizeof(spec->name)) == 0)
		return 0;
	if (strlen(s) >= sizeof(spec->name) || strncmp(s, "card", 4) == 0)
		goto bad;
	for (i = 0; s[i]; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			goto bad;
	snprintf(spec->name, sizeof(spec->name), "%s", s);
	return 0;
bad:
	return fail(err, errlen,
		    "invalid device '%s' (cardN, N or a PCI address like 0000:00:02.0)", s);
}

int resolve_device(const struct dev_spec *spec, const char *arg,
		   const struct gm_dev_list *l, uint32_t *id, char *err, size_t errlen)
{
	size_t i, o = 0;
	char known[128] = "";

	for (i = 0; i < l->n; i++) {
		const struct gm_dev *d = &l->v[i];

		if (spec->by_id ? d->id == spec->id :
		    strcasecmp(d->unique, spec->name) == 0 || strcmp(d->name, spec->name) == 0) {
			*id = d->id;
			return 0;
		}
	}
	for (i = 0; i < l->n && o + 16 < sizeof(known); i++)
		o += (size_t)snprintf(known + o, sizeof(known) - o, "%s%s", o ? " " : "",
				      l->v[i].name[0] ? l->v[i].name : "?");
	if (l->n == 0)
		return fail(err, errlen, "unknown device '%s' (gpumem knows no device)", arg);
	return fail(err, errlen, "unknown device '%s' (devices: %s%s)", arg, known,
		    i < l->n ? " ..." : "");
}

/* 0 and the id if p is a directory on cgroup2; else -errno (-EXDEV: not cgroup2). */
static int cgroup2_dir(const char *p, uint64_t *id)
{
	struct statfs sfs;
	struct stat st;

	if (stat(p, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (statfs(p, &sfs) < 0)
		return -errno;
	if ((unsigned long)sfs.f_type != (unsigned long)CGROUP2_SUPER_MAGIC)
		return -EXDEV;
	*id = st.st_ino;
	return 0;
}

static int cgroup_fail(const char *path, int r, char *err, size_t errlen)
{
	if (r == -EXDEV)
		return fail(err, errlen, "'%s' is not a cgroup v2 directory (not on cgroup2)", path);
	if (r == -ENOTDIR)
		return fail(err, errlen, "'%s' is not a cgroup v2 directory (not a directory)", path);
	if (r == -ENOENT)
		return fail(err, errlen, "no such cgroup '%s'", path);
	return fail(err, errlen, "cgroup '%s': %s", path, strerror(-r));
}

int resolve_cgroup(const char *path, const char *root, uint64_t *id,
		   char *err, size_t errlen)
{
	char below[PATH_MAX];
	size_t rl = strlen(root);
	int r1 = -ENOENT, r2;

	if (!path || !*path)
		return fail(err, errlen, "empty cgroup path");
	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	if (path[0] == '/') {
		r1 = cgroup2_dir(path, id);
		if (r1 == 0)
			return 0;
		/* already below the root: nothing else to try */
		if (rl > 1 && strncmp(path, root, rl) == 0 && (path[rl] == '/' || path[rl] == '\0'))
			return cgroup_fail(path, r1, err, errlen);
	}
	if ((size_t)snprintf(below, sizeof(below), "%.*s%s%s", (int)rl, root,
			     path[0] == '/' || rl == 1 ? "" : "/", path) >= sizeof(below))
		return fail(err, errlen, "cgroup path too long");
	r2 = cgroup2_dir(below, id);
	if (r2 == 0)
		return 0;
	if (path[0] != '/')
		return cgroup_fail(below, r2, err, errlen);
	if (r1 == -ENOENT && r2 == -ENOENT)
		return fail(err, errlen, "no such cgroup '%s' (neither %s nor %s exists)",
			    path, path, below);
	/* report on the one that exists */
	return r1 != -ENOENT ? cgroup_fail(path, r1, err, errlen) : cgroup_fail(below, r2, err, errlen);
}

const char *cgroup2_root(char *buf, size_t len)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	struct mntent *m;

	snprintf(buf, len, "/sys/fs/cgroup");
	if (!f)
		return buf;
	while ((m = getmntent(f)))
		if (strcmp(m->mnt_type, "cgroup2") == 0) {
			snprintf(buf, len, "%s", m->mnt_dir);
			break;
		}
	endmntent(f);
	return buf;
}
