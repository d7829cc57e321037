# SPDX-License-Identifier: GPL-2.0
# gpumem: `make` builds gpumem.ko against the running kernel; `make KDIR=...`
# against any other kernel's build tree; `make check` adds W=1 and sparse.
# `make userspace` builds gpumemctl, `make userspace-check` runs its unit
# tests (userspace/Makefile has install, PREFIX, DESTDIR).
KDIR ?= /lib/modules/$(shell uname -r)/build
PWD := $(shell pwd)

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(PWD) modules

clean:
	$(MAKE) -C $(KDIR) M=$(PWD) clean

check:
	$(MAKE) -C $(KDIR) M=$(PWD) W=1 C=2 modules

userspace:
	$(MAKE) -C userspace

userspace-check:
	$(MAKE) -C userspace check

.PHONY: all modules clean check userspace userspace-check
