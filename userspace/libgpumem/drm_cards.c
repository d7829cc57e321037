// SPDX-License-Identifier: GPL-2.0
/*
 * drm_cards.c - the DRM cards sysfs lists and their devices' bus ids; see
 * drm_cards.h.
 */
#include "drm_cards.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool gm_is_pci_address(const char *s)
{
	static const char shape[] = "xxxx:xx:xx.x";
	size_t i;

	if (strlen(s) != sizeof(shape) - 1)
		return false;
	for (i = 0; shape[i]; i++)
		if (shape[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != shape[i])
			return false;
	return true;
}

int gm_drm_cards(const char *root, struct gm_drm_card *cards, size_t max, size_t *n)
{
	char dir[PATH_MAX], link[PATH_MAX + 300], target[PATH_MAX];
	struct dirent *e;
	DIR *d;

	*n = 0;
	snprintf(dir, sizeof(dir), "%s/sys/class/drm", root);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((e = readdir(d)) && *n < max) {
		const char *base;
		char *end;
		ssize_t len;
		long card;

		if (strncmp(e->d_name, "card", 4) != 0 || !isdigit((unsigned char)e->d_name[4]))
			continue;
		card = strtol(e->d_name + 4, &end, 10);
		if (*end || card > INT_MAX)	/* card0-VGA-1: a connector */
			continue;
		snprintf(link, sizeof(link), "%s/%s/device", dir, e->d_name);
		len = readlink(link, target, sizeof(target) - 1);
		if (len < 0)
			continue;
		target[len] = '\0';
		base = strrchr(target, '/');
		base = base ? base + 1 : target;
		if (strlen(base) >= sizeof(cards[*n].bus))
			continue;	/* no bus id is that long */
		cards[*n].card = (int)card;
		memcpy(cards[*n].bus, base, strlen(base) + 1);
		(*n)++;
	}
	closedir(d);
	return 0;
}
