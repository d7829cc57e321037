// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_cdi.c - `gpumemctl cdi generate`: a Container Device Interface spec
 * (kind gpumem.io/gpu) with one device per PCI GPU, named by its stable PCI
 * address, and "all": each adds the DRM nodes and gpumem-oci-hook as a
 * createRuntime hook that limits exactly those devices. Runtimes that read
 * CDI (Podman, containerd with enable_cdi, CRI-O) then apply the node
 * policy to a container that gets gpumem.io/gpu=<pci> however it was asked
 * for (podman --device, a device plugin's CDI response, CDI annotations).
 * Reads sysfs only (GPUMEM_SYSROOT for the unit tests); needs no module.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json.h>

#include "atomic_file.h"
#include "drm_cards.h"
#include "gpumemctl.h"

#define CDI_VERSION "0.5.0"
#define CDI_KIND "gpumem.io/gpu"
#define HOOK_PATH "/usr/local/libexec/gpumem/gpumem-oci-hook"
#define MAX_CARDS 64

static const char help[] =
	"Usage: gpumemctl cdi generate [-o FILE] [--hook PATH]\n"
	"\n"
	"Print a Container Device Interface spec (kind " CDI_KIND ") for this\n"
	"node's PCI GPUs: one device per GPU, named by its PCI address\n"
	"(" CDI_KIND "=0000:03:00.0), and " CDI_KIND "=all. Each adds the GPU's\n"
	"DRM nodes (/dev/dri/cardN, renderDN) and runs gpumem-oci-hook at\n"
	"createRuntime with --device PCI-ADDRESS (all: --device all, one limit on\n"
	"all devices together), so the container's limit from the node policy and its\n"
	"annotations is set on exactly the devices it got.\n"
	"Card numbers can change at boot: generate the spec at boot (it is read\n"
	"from /etc/cdi or /var/run/cdi by Podman, containerd and CRI-O).\n"
	"\n"
	"  -o, --output FILE  write FILE atomically (e.g. /var/run/cdi/gpumem.json)\n"
	"  --hook PATH        gpumem-oci-hook's path (default " HOOK_PATH ")\n";

struct card {
	int card;		/* N of /dev/dri/cardN */
	int render;		/* N of /dev/dri/renderDN, -1 if none */
	char pci[32];		/* its PCI address */
};

/* The render node of cardN's device (its drm/renderDM), -1 if none. */
static int render_of(const char *root, int card)
{
	char dir[PATH_MAX];
	struct dirent *e;
	int found = -1;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/sys/class/drm/card%d/device/drm", root, card);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strncmp(e->d_name, "renderD", 7) == 0 && isdigit((unsigned char)e->d_name[7]))
			found = atoi(e->d_name + 7);
	closedir(d);
	return found;
}

static int by_pci(const void *a, const void *b)
{
	return strcmp(((const struct card *)a)->pci, ((const struct card *)b)->pci);
}

/* The PCI GPUs with a DRM card, in PCI address order; -1 with errno. */
static int find_cards(const char *root, struct card *cards, size_t *n)
{
	struct gm_drm_card all[MAX_CARDS];
	size_t nall, i;

	*n = 0;
	if (gm_drm_cards(root, all, MAX_CARDS, &nall) < 0)
		return -1;
	for (i = 0; i < nall; i++) {
		if (!gm_is_pci_address(all[i].bus))
			continue;	/* a platform or virtual device: no stable name */
		cards[*n].card = all[i].card;
		cards[*n].render = render_of(root, all[i].card);
		snprintf(cards[*n].pci, sizeof(cards[*n].pci), "%s", all[i].bus);
		(*n)++;
	}
	qsort(cards, *n, sizeof(*cards), by_pci);
	return 0;
}

static void add_nodes(struct json_object *nodes, const struct card *c)
{
	char path[64];
	struct json_object *node;

	snprintf(path, sizeof(path), "/dev/dri/card%d", c->card);
	node = json_object_new_object();
	json_object_object_add(node, "path", json_object_new_string(path));
	json_object_array_add(nodes, node);
	if (c->render >= 0) {
		snprintf(path, sizeof(path), "/dev/dri/renderD%d", c->render);
		node = json_object_new_object();
		json_object_object_add(node, "path", json_object_new_string(path));
		json_object_array_add(nodes, node);
	}
}

/*
 * One CDI device: name, its cards' nodes, the hook; per_device: the hook
 * limits each of the cards (--device), else all devices together.
 */
static struct json_object *cdi_device(const char *name, const struct card *cards, size_t n,
				      bool per_device, const char *hook)
{
	struct json_object *dev = json_object_new_object(), *edits = json_object_new_object();
	struct json_object *nodes = json_object_new_array(), *hooks = json_object_new_array();
	struct json_object *h = json_object_new_object(), *args = json_object_new_array();
	size_t i;

	for (i = 0; i < n; i++)
		add_nodes(nodes, &cards[i]);
	json_object_array_add(args, json_object_new_string("gpumem-oci-hook"));
	for (i = 0; per_device && i < n; i++) {
		json_object_array_add(args, json_object_new_string("--device"));
		json_object_array_add(args, json_object_new_string(cards[i].pci));
	}
	/* all: no device of its own, but the hook knows the container got GPUs */
	if (!per_device) {
		json_object_array_add(args, json_object_new_string("--device"));
		json_object_array_add(args, json_object_new_string("all"));
	}
	json_object_object_add(h, "hookName", json_object_new_string("createRuntime"));
	json_object_object_add(h, "path", json_object_new_string(hook));
	json_object_object_add(h, "args", args);
	json_object_object_add(h, "timeout", json_object_new_int(60));
	json_object_array_add(hooks, h);
	json_object_object_add(edits, "deviceNodes", nodes);
	json_object_object_add(edits, "hooks", hooks);
	json_object_object_add(dev, "name", json_object_new_string(name));
	json_object_object_add(dev, "containerEdits", edits);
	return dev;
}

/* The spec's text: no "\/", as CDI parses specs as YAML 1.1, which has no such escape. */
static const char *spec_text(struct json_object *spec)
{
	return json_object_to_json_string_ext(spec, JSON_C_TO_STRING_PRETTY |
					      JSON_C_TO_STRING_SPACED |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
}

static int cdi_generate(int argc, char **argv, struct gm_opts *o)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "hook", required_argument, NULL, 'k' },
		GM_COMMON_LONGOPTS, { NULL, 0, NULL, 0 }
	};
	const char *root = getenv("GPUMEM_SYSROOT"), *out = NULL, *hook = HOOK_PATH;
	struct card cards[MAX_CARDS];
	struct json_object *spec, *devs;
	size_t n, i;
	int c, ret;

	while ((c = getopt_long(argc, argv, GM_COMMON_SHORTOPTS "o:", opts, NULL)) != -1) {
		if (c == 'o') {
			out = optarg;
			continue;
		}
		if (c == 'k') {
			if (optarg[0] != '/')
				return gm_usage_error("cdi generate", "--hook: an absolute path, not "
						      "'%s'", optarg);
			hook = optarg;
			continue;
		}
		ret = gm_common_opt(c, "cdi generate", argv, o, help);
		if (ret != GM_OPT_NEXT)
			return ret;
	}
	ret = gm_no_operands("cdi generate", argc, argv);
	if (ret != GM_OPT_NEXT)
		return ret;
	if (find_cards(root ? root : "", cards, &n) < 0)
		return gm_error("cannot read %s/sys/class/drm: %s", root ? root : "",
				strerror(errno));
	if (!n)
		return gm_error("no PCI GPU with a DRM card in /sys/class/drm: no CDI device "
				"to describe");
	spec = json_object_new_object();
	devs = json_object_new_array();
	json_object_object_add(spec, "cdiVersion", json_object_new_string(CDI_VERSION));
	json_object_object_add(spec, "kind", json_object_new_string(CDI_KIND));
	for (i = 0; i < n; i++)
		json_object_array_add(devs, cdi_device(cards[i].pci, &cards[i], 1, true, hook));
	json_object_array_add(devs, cdi_device("all", cards, n, false, hook));
	json_object_object_add(spec, "devices", devs);
	if (out) {
		const char *text = spec_text(spec);
		size_t len = strlen(text);
		char *line = malloc(len + 2);
		int err = -ENOMEM;

		if (line) {
			memcpy(line, text, len);
			memcpy(line + len, "\n", 2);
			err = gm_write_file_atomic(out, line, len + 1);
			free(line);
		}
		ret = err ? gm_error("cannot write %s: %s", out, strerror(-err)) : GM_EXIT_OK;
	} else {
		puts(spec_text(spec));
		ret = fflush(stdout) ? gm_error("cannot write: %s", strerror(errno)) : GM_EXIT_OK;
	}
	json_object_put(spec);
	return ret;
}

int cmd_cdi(int argc, char **argv, struct gm_opts *o)
{
	if (argc < 2)
		return gm_usage_error("cdi", "which subcommand? (generate)");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(help, stdout);
		return GM_EXIT_OK;
	}
	if (strcmp(argv[1], "generate") != 0)
		return gm_usage_error("cdi", "unknown subcommand '%s' (generate)", argv[1]);
	return cdi_generate(argc - 1, argv + 1, o);
}
