# NOVA for Linux: top-level build, test and demo entry points.
#
#   make deps     install build and test dependencies (apt-get, as root)
#   make          build module/nova.ko and the userspace programs
#   make module-test  the test build of the module, build/module-test/nova.ko
#                 (NOVA_TEST_HOOKS: crash points, corruption injector);
#                 make test and make crashtest load it into the guest
#   make test     host checks + unit tests + guest tests; summary line last
#   make test-6.12  the 6.12 lane: make deps KERNEL=6.12, then the build
#                 for every installed kernel and the guest tests CI runs on
#                 Debian 12's 6.12 kernel (T612, docs/testing.md)
#   make test-debug  the debug lane: qemu/deps.sh --debug, then builds (or
#                 reuses, cached in $NOVA_CACHE/debug-kernel) a 6.1 kernel
#                 with KASAN, lockdep, UBSAN, KFENCE, builds nova.ko against
#                 it and runs the guest suite (or T=) on it (docs/testing.md)
#   make crashtest  long crash tests: NOVA_CRASH_POINTS (default 200) crash
#                 points, 100k-file recovery time (docs/recovery.md), and
#                 the persistence checker's full mode, NOVA_PCHECK_STATES
#                 (default 1250) crash states per workload, of every workload
#                 or those in NOVA_PCHECK_WORKLOADS (docs/testing.md)
#   make demo     boot the guest and show NOVA at work
#   make bench    NOVA vs ext4-dax and xfs-dax in the guest (BENCH_ARGS=--full,
#                 --icount, --fs LIST); report in bench/results/
#   make shell    interactive guest shell with the fresh build shared in
#   make fstests  fstests' generic quick group in the guest (hours under TCG;
#                 FSTESTS_FS=ext4-dax for the reference, FSTESTS_ARGS for
#                 tests/fstests/run.sh options); results in build/fstests-results/
#   make fstests-build  build fstests from ../shared/fstests/ into build/fstests
#   make clean
#
# KVER defaults to the ABI named by the linux-headers-amd64 meta package;
# KERNEL=6.12 takes it from linux-headers-6.12-amd64 instead (Debian 12's
# bookworm-security 6.12 series; make deps KERNEL=6.12 installs it).
# KERNEL=debug is the debug lane's kernel (qemu/build-debug-kernel.sh).
# Override with KVER=6.1.0-NN-amd64. T= selects tests for make test.

KVER	?= $(shell KERNEL='$(KERNEL)' bash -c '. qemu/lib.sh && nova_kver')
ifeq ($(KERNEL),debug)
KDIR	?= $(shell bash -c '. qemu/lib.sh && nova_debug_dir')/obj
else
KDIR	?= /lib/modules/$(KVER)/build
endif
BUILD	:= $(CURDIR)/build
export KVER KERNEL BUILD

# Userspace directories (those with a Makefile), built in this order.
USER_DIRS := $(patsubst %/Makefile,%,$(wildcard $(addsuffix /Makefile,lib novactl novad tools tests/unit tests/guest/progs bench)))

.PHONY: fstests fstests-build
# module-test is phony too: Kbuild decides what to rebuild.
.PHONY: all module module-test user deps test test-6.12 test-debug demo bench shell check clean install install-module uninstall dkms-source crashtest

all: module user

module:
	@test -d "$(KDIR)" || { echo "nova: no headers for $(KVER) at $(KDIR): run 'make deps'" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/module W=1 modules

# The test build: the same sources, linked into build/module-test, built
# with NOVA_TEST_HOOKS=y (module/Kbuild). Only what the tests load.
MODULE_TEST_SRC := $(filter-out %.mod.c,$(wildcard $(CURDIR)/module/*.c)) \
	$(wildcard $(CURDIR)/module/*.h) $(CURDIR)/module/Kbuild
module-test:
	@test -d "$(KDIR)" || { echo "nova: no headers for $(KVER) at $(KDIR): run 'make deps'" >&2; exit 1; }
	@mkdir -p $(BUILD)/module-test
	@find $(BUILD)/module-test -maxdepth 1 -type l -delete
	@ln -s $(MODULE_TEST_SRC) $(BUILD)/module-test/
	$(MAKE) -C $(KDIR) M=$(BUILD)/module-test W=1 NOVA_TEST_HOOKS=y NOVA_UAPI=$(CURDIR)/uapi modules

user:
	@for d in $(USER_DIRS); do $(MAKE) -C $$d BUILD=$(BUILD) || exit 1; done

deps:
	qemu/deps.sh

test: deps
	$(MAKE) all module-test
	tests/run.sh $(T)

# The guest tests of the 6.12 lane (any T= works with KERNEL=6.12 too).
T612 := tests/host/kernels.sh tests/guest/module-load.sh tests/guest/fs-basic.sh \
	tests/guest/fs-posix.sh tests/guest/fs-whiteout.sh tests/guest/fs-fiemap.sh \
	tests/guest/fs-label.sh tests/guest/genl-proto.sh tests/guest/genl-cli.sh \
	tests/guest/snapshot-basic.sh tests/guest/protect-data.sh \
	tests/guest/protect-badblocks.sh tests/guest/fs-freeze-clean.sh \
	tests/guest/fs-freeze-mmap.sh \
	tests/boot/crash-basic.sh

test-6.12:
	KERNEL=6.12 KVER= qemu/deps.sh
	$(MAKE) test KERNEL=6.12 KVER="$$(KERNEL=6.12 KVER= bash -c '. qemu/lib.sh && nova_kver')" T="$(T612)"

# The debug lane's default: every guest-booting test (tests/guest and
# tests/boot); the host checks and unit tests do not involve the kernel.
TDEBUG := $(filter-out tests/guest/lib.sh tests/guest/lib-%.sh,$(wildcard tests/guest/*.sh)) \
	$(wildcard tests/boot/*.sh)

test-debug:
	qemu/deps.sh --debug
	qemu/build-debug-kernel.sh > /dev/null
	$(MAKE) test KERNEL=debug KVER="$$(KERNEL=debug KVER= bash -c '. qemu/lib.sh && nova_kver')" \
		T="$(or $(T),$(TDEBUG))"

crashtest: all module-test
	NOVA_CRASH_POINTS=$${NOVA_CRASH_POINTS:-200} \
	NOVA_PCHECK_STATES=$${NOVA_PCHECK_STATES:-1250} \
		tests/run.sh tests/boot/crash-*.sh tests/guest/pcheck-full.guest

# The demo hides apt's and the compilers' output behind one line; the whole
# log is build/demo-build.log (shown in part if something fails).
demo:
	@mkdir -p $(BUILD)
	@printf 'nova: installing what is missing and building (log: build/demo-build.log) ... '
	@{ $(MAKE) deps && $(MAKE) all; } > $(BUILD)/demo-build.log 2>&1 || \
		{ echo failed; tail -n 30 $(BUILD)/demo-build.log; exit 1; }
	@echo done
	@qemu/demo.sh

bench: all
	bench/run.sh $(BENCH_ARGS)

shell: all
	qemu/run-guest.sh --shell

FSTESTS_FS ?= nova
fstests-build:
	tests/fstests/build.sh

fstests: all fstests-build
	tests/fstests/run.sh --fs $(FSTESTS_FS) $(FSTESTS_ARGS)

check: all
	tests/host/kernel-style.sh

# The userspace layout is mk/install.sh's (DESTDIR, PREFIX (default
# /usr/local) and the directory variables it lists); "make uninstall"
# removes what it installed. On the real root (no DESTDIR) udev rereads
# its rules and the devices already there are probed again.
PREFIX	?= /usr/local
INSTALL_ENV := BUILD=$(BUILD) DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)
install: all install-module
	$(INSTALL_ENV) mk/install.sh install
	@if [ -z "$(DESTDIR)" ] && command -v udevadm > /dev/null; then \
		udevadm control --reload && udevadm trigger --subsystem-match=block --action=change; fi

uninstall:
	$(INSTALL_ENV) mk/install.sh uninstall
	rm -f $(foreach z,.xz .zst .gz,$(DESTDIR)/lib/modules/$(KVER)/updates/nova.ko$(z)) \
		$(DESTDIR)/lib/modules/$(KVER)/updates/nova.ko
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); \
		command -v udevadm > /dev/null && udevadm control --reload || :; \
	elif [ -d "$(DESTDIR)/lib/modules" ]; then cd "$(DESTDIR)" && \
		rmdir -p --ignore-fail-on-non-empty lib/modules/$(KVER)/updates; fi

# nova.ko into /lib/modules/$(KVER)/updates (or under DESTDIR); dkms.conf
# does the same for every installed kernel.
install-module: module
	$(MAKE) -C $(KDIR) M=$(CURDIR)/module INSTALL_MOD_PATH=$(DESTDIR) INSTALL_MOD_DIR=updates modules_install
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi

# The module's sources as DKMS wants them, in $(DESTDIR)/usr/src/nova-VERSION
# (VERSION from dkms.conf): dkms.conf, module/ (Kbuild, *.c, *.h, no build
# products) and uapi/, nothing else (no build/). Then, as root:
#   dkms install nova/VERSION
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
DKMS_DIR      = $(DESTDIR)/usr/src/nova-$(DKMS_VERSION)
DKMS_MODULE  := module/Kbuild $(filter-out %.mod.c,$(wildcard module/*.c)) $(wildcard module/*.h)
dkms-source:
	rm -rf $(DKMS_DIR)
	install -d $(DKMS_DIR)/module $(DKMS_DIR)/uapi/linux
	install -m 0644 dkms.conf $(DKMS_DIR)/
	install -m 0644 $(DKMS_MODULE) $(DKMS_DIR)/module/
	install -m 0644 $(wildcard uapi/*.h) $(DKMS_DIR)/uapi/
	install -m 0644 $(wildcard uapi/linux/*.h) $(DKMS_DIR)/uapi/linux/
	@echo "nova: sources for DKMS in $(DKMS_DIR); then: dkms install nova/$(DKMS_VERSION)"

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/module clean
	@for d in $(USER_DIRS); do $(MAKE) -C $$d BUILD=$(BUILD) clean; done
	rm -rf $(BUILD)/bin $(BUILD)/obj $(BUILD)/test-results $(BUILD)/module-test
