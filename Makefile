# SPDX-License-Identifier: GPL-2.0
# gpumem: `make` builds gpumem.ko against the running kernel; `make KDIR=...`
# against any other kernel's build tree; `make check` adds W=1 and sparse.
# `make userspace` builds gpumemctl, `make userspace-check` runs its unit
# tests (userspace/Makefile has install, PREFIX, DESTDIR).
# `make dkms-install` registers the module with DKMS (docs/node.md, "DKMS"):
# its sources go to $(DKMS_SRC), then dkms add + install for the running
# kernel (DKMS_KERNEL=<release> for another); `make dkms-remove` undoes it.
# `make dkms-source DKMS_SRC=DIR` only copies the sources.
KDIR ?= /lib/modules/$(shell uname -r)/build
PWD := $(shell pwd)
TOP := $(dir $(lastword $(MAKEFILE_LIST)))
# The one version of gpumem (dkms.conf and gpumemctl --version read it too)
VERSION := $(shell cat $(TOP)VERSION)
DKMS ?= dkms
DKMS_SRC ?= /usr/src/gpumem-$(VERSION)
DKMS_KERNEL ?= $(shell uname -r)

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(PWD) modules

clean:
	$(MAKE) -C $(KDIR) M=$(PWD) clean

check:
	$(MAKE) -C $(KDIR) M=$(PWD) W=1 C=2 modules

userspace:
	$(MAKE) -C userspace VERSION=$(VERSION)

userspace-check:
	$(MAKE) -C userspace check

# What DKMS gets: the module's sources only (no KUnit, no gpumemctl)
dkms-source:
	rm -rf '$(DKMS_SRC)'
	mkdir -p '$(DKMS_SRC)'
	cd '$(TOP)' && cp --parents Kbuild Makefile VERSION dkms.conf \
		kmod/*.[ch] uapi/* '$(DKMS_SRC)/'

# (a version already added is removed first: it installs this tree)
dkms-install: dkms-source
	if [ -n "$$($(DKMS) status -m gpumem -v $(VERSION))" ]; then \
		$(DKMS) remove -m gpumem -v $(VERSION) --all; fi
	$(DKMS) add -m gpumem -v $(VERSION)
	$(DKMS) install -m gpumem -v $(VERSION) -k $(DKMS_KERNEL)

dkms-remove:
	if [ -n "$$($(DKMS) status -m gpumem -v $(VERSION))" ]; then \
		$(DKMS) remove -m gpumem -v $(VERSION) --all; fi
	rm -rf '$(DKMS_SRC)'

.PHONY: all modules clean check userspace userspace-check \
	dkms-source dkms-install dkms-remove
