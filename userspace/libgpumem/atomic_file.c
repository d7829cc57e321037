// SPDX-License-Identifier: GPL-2.0
/*
 * atomic_file.c - replace a file whole; see atomic_file.h.
 */
#include "atomic_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int gm_write_file_atomic(const char *path, const char *body, size_t len)
{
	size_t plen = strlen(path), off = 0;
	char *tmp = malloc(plen + 8);
	int fd, err = 0;
	ssize_t n;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, plen + 8, "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = errno;
		free(tmp);
		return -err;
	}
	if (fchmod(fd, 0644) < 0)
		err = errno;
	while (!err && off < len) {
		n = write(fd, body + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			err = n < 0 ? errno : EIO;
		else
			off += (size_t)n;
	}
	if (!err && fsync(fd) < 0)
		err = errno;
	if (close(fd) < 0 && !err)
		err = errno;
	if (!err && rename(tmp, path) < 0)
		err = errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return -err;
}
