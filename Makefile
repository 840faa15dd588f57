# probestick: build the stick image, boot it in QEMU, test it.
# The two commands a fresh Debian 12 machine needs: `make run` and `make test`.

SHELL := /bin/bash
.DEFAULT_GOAL := all

OUT ?= out
PS_CACHE ?= $(HOME)/.cache/probestick
PYTHON := /usr/bin/python3
KCONFIGLIB := /usr/lib/python3/dist-packages
export PS_CACHE OUT

# make deps runs first, on every invocation that builds or tests, so that a
# fresh machine needs nothing else. It is idempotent and quick when all is there.
NODEPS_GOALS := clean distclean help
ifeq ($(filter $(NODEPS_GOALS),$(MAKECMDGOALS)),)
ifneq ($(PS_SKIP_DEPS),1)
$(shell scripts/deps.sh $(PS_CACHE) >&2 || echo deps-failed > $(OUT).deps-failed)
ifneq ($(wildcard $(OUT).deps-failed),)
$(shell rm -f $(OUT).deps-failed)
$(error make deps failed: see the messages above)
endif
endif
endif

KVER := $(shell scripts/kver.sh 2>/dev/null)
KDIR ?= /usr/src/linux-headers-$(KVER)

# ---------------------------------------------------------------- config --
STEP_SRCS := $(sort $(wildcard userland/steps/*.c))
KCONFIG_ENV := srctree=$(CURDIR) KCONFIG_CONFIG=.config PYTHONPATH=$(KCONFIGLIB)

$(OUT)/gen/Kconfig.steps $(OUT)/gen/steps.mk $(OUT)/gen/step_schemas.c &: \
		$(STEP_SRCS) scripts/gather-steps.sh scripts/gather-schemas.py
	@scripts/gather-steps.sh $(OUT)/gen $(STEP_SRCS)

.config: | $(OUT)/gen/Kconfig.steps
	$(KCONFIG_ENV) $(PYTHON) $(KCONFIGLIB)/defconfig.py --kconfig Kconfig configs/defconfig

.PHONY: defconfig olddefconfig menuconfig savedefconfig deps
deps:
	@scripts/deps.sh $(PS_CACHE)
defconfig: $(OUT)/gen/Kconfig.steps
	$(KCONFIG_ENV) $(PYTHON) $(KCONFIGLIB)/defconfig.py --kconfig Kconfig configs/defconfig
olddefconfig: $(OUT)/gen/Kconfig.steps
	$(KCONFIG_ENV) $(PYTHON) $(KCONFIGLIB)/olddefconfig.py Kconfig
menuconfig: $(OUT)/gen/Kconfig.steps
	$(KCONFIG_ENV) $(PYTHON) $(KCONFIGLIB)/menuconfig.py Kconfig
savedefconfig: $(OUT)/gen/Kconfig.steps .config
	$(KCONFIG_ENV) $(PYTHON) $(KCONFIGLIB)/savedefconfig.py --kconfig Kconfig --out configs/defconfig

# The C header and the make fragment follow .config; a stale .config (new
# symbols from a new step) is brought up to date first.
$(OUT)/gen/autoconf.h $(OUT)/gen/config.mk: .config Kconfig $(OUT)/gen/Kconfig.steps
	@mkdir -p $(OUT)/gen
	$(KCONFIG_ENV) $(PYTHON) $(KCONFIGLIB)/olddefconfig.py Kconfig >/dev/null
	$(KCONFIG_ENV) $(PYTHON) $(KCONFIGLIB)/genconfig.py Kconfig \
		--header-path $(OUT)/gen/autoconf.h --config-out $(OUT)/gen/config.mk

-include $(OUT)/gen/config.mk
-include $(OUT)/gen/steps.mk
unquote = $(patsubst "%",%,$(1))

# -------------------------------------------------------------- userland --
CC ?= cc
PKGS := libkmod json-c liburing libmnl libzstd blkid libpci
PS_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter \
	  -Iuserland -Ikmod/uapi -I$(OUT)/gen \
	  $(shell pkg-config --cflags $(PKGS))
LDLIBS += $(shell pkg-config --libs $(PKGS)) -liperf -lm

# Every room of userland/ (docs/design.md) goes into the core archive but
# the steps, which .config chooses through each step file's //kbuild: line,
# and the recorders: both register themselves by a pointer in a section, so
# they are linked as objects (an archive member nobody calls would be dropped).
USERLAND_ROOMS := lib decode cli core report hw engines engines/io engines/net engines/mem engines/stress boot collect
CORE_SRCS := $(filter-out userland/cli/main.c,$(sort $(foreach r,$(USERLAND_ROOMS),$(wildcard userland/$(r)/*.c))))
CORE_OBJS := $(CORE_SRCS:%.c=$(OUT)/obj/%.o) $(OUT)/obj/gen/step_schemas.o
REC_SRCS := $(sort $(wildcard userland/record/*.c))
REC_OBJS := $(REC_SRCS:%.c=$(OUT)/obj/%.o)
STEP_OBJS := $(addprefix $(OUT)/obj/userland/steps/,$(step-y))
MAIN_OBJ := $(OUT)/obj/userland/cli/main.o

# The version string lives in a header rewritten only when it changes, so a
# new commit rebuilds the two files that print it and nothing else.
$(OUT)/gen/version.h: FORCE
	@mkdir -p $(@D)
	@v='#define PS_VERSION "$(PS_VERSION)"'; [ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" >$@
.PHONY: FORCE
FORCE:

$(OUT)/obj/%.o: %.c $(OUT)/gen/autoconf.h | $(OUT)/gen/version.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<
$(OUT)/obj/gen/step_schemas.o: $(OUT)/gen/step_schemas.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<
-include $(shell find $(OUT)/obj -name '*.d' 2>/dev/null)

$(OUT)/libprobestick.a: $(CORE_OBJS)
	@rm -f $@
	$(AR) rcD $@ $^

# Steps and recorders register themselves by a pointer in sections ps_steps
# and ps_recorders; link them as objects, not from the archive, so that none
# is dropped.
$(OUT)/probestick: $(MAIN_OBJ) $(STEP_OBJS) $(REC_OBJS) $(OUT)/libprobestick.a
	$(CC) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(STEP_OBJS) $(REC_OBJS) $(OUT)/libprobestick.a $(LDLIBS)

# The report's schema: docs/report-schema.json with every step's data fragment
# and every setting, as the program's registry knows them (probestick schema).
$(OUT)/gen/report-schema.json: $(OUT)/probestick docs/report-schema.json
	$(OUT)/probestick schema docs/report-schema.json >$@.tmp && mv $@.tmp $@

# ------------------------------------------------------------------ fuzz --
# libFuzzer harnesses (tests/fuzz/README.md): make fuzz-build, make fuzz.
include tests/fuzz/fuzz.mk

# ---------------------------------------------------------------- kernel --
KDEB = $(wildcard $(PS_CACHE)/linux-image-$(KVER)_*_amd64.deb)

$(OUT)/kernel/.stamp: scripts/kernel.sh
	scripts/kernel.sh $(KVER) $(PS_CACHE) $(OUT)/kernel
	@touch $@

$(OUT)/vmlinuz: $(OUT)/kernel/.stamp
	cp $(OUT)/kernel/boot/vmlinuz-$(KVER) $@

KMOD_SRCS := $(wildcard kmod/*.c kmod/*.h kmod/uapi/*.h kmod/wrapper/*.h kmod/Kbuild kmod/Makefile)
$(OUT)/probestick.ko: $(KMOD_SRCS)
	$(MAKE) -C kmod KDIR=$(KDIR) KVER=$(KVER)
	KDIR=$(KDIR) KVER=$(KVER) scripts/mok.sh sign kmod/probestick.ko $@

# make mok: a machine-owner key outside the clone (PS_MOK_DIR, default
# ~/.config/probestick/mok), probestick.ko signed with it, its certificate
# on the stick and the MokManager entry in the UEFI menu (README: Secure Boot).
mok:
	KVER=$(KVER) scripts/mok.sh key
	$(MAKE) module
	KDIR=$(KDIR) KVER=$(KVER) scripts/mok.sh sign kmod/probestick.ko $(OUT)/probestick.ko
	$(MAKE) all

# ------------------------------------------------------- initramfs/image --
INITRAMFS_INPUTS := $(wildcard initramfs/*) $(OUT)/probestick $(OUT)/kernel/.stamp \
	$(OUT)/gen/config.mk $(if $(filter y,$(CONFIG_MODULE)),$(OUT)/probestick.ko)

$(OUT)/initramfs.img: $(INITRAMFS_INPUTS)
	initramfs/build.sh $@

$(OUT)/probestick.img: $(OUT)/vmlinuz $(OUT)/initramfs.img $(wildcard image/*) $(OUT)/gen/config.mk
	image/build.sh $@

# ----------------------------------------------------------------- goals --
.PHONY: all userland module image mok release run test unit kunit boot soak known powercut flash bench realworld netboot fleet-test fleet-load clean distclean help
all: $(OUT)/probestick.img $(OUT)/probestick $(OUT)/gen/report-schema.json
userland: $(OUT)/probestick $(OUT)/gen/report-schema.json
module: $(OUT)/probestick.ko
image: $(OUT)/probestick.img

run: all
	tests/boot/run-quick.sh $(OUT)/probestick.img

unit: $(OUT)/libprobestick.a $(STEP_OBJS) $(REC_OBJS)
	tests/run unit

kunit:
	tests/run kunit

boot: all
	tests/run boot

test: all
	tests/run all

# The tree a DHCP/TFTP/HTTP server serves to boot a rack (scripts/netboot.sh,
# README "A fleet"); NETBOOT_CFG= and NETBOOT_CA= put a site's probestick.cfg
# and its collector's CA into it (site.img).
netboot: $(OUT)/vmlinuz $(OUT)/initramfs.img $(OUT)/probestick
	NETBOOT_CFG="$(NETBOOT_CFG)" NETBOOT_CA="$(NETBOOT_CA)" NETBOOT_APPEND="$(NETBOOT_APPEND)" \
		scripts/netboot.sh $(OUT)/netboot

# After make test (.ci/run): two machines boot the netboot tree over the
# network in a namespace of the test's own and report to nginx and rsyslog
# there (tests/fleet/run).
fleet-test: all netboot
	tests/fleet/run

# Not a test: the collector's load with FLEET_N (20) machines sending at once.
FLEET_N ?= 20
fleet-load: $(OUT)/probestick
	tests/fleet/load.sh $(FLEET_N)

# Not part of make test: the quick plan booted SOAK_N times (30), counting
# hangs and failures (tests/boot/soak.sh).
soak: all
	tests/boot/soak.sh

# Not part of make test: the power cut POWERCUT_N (20) times at random moments
# of the quick plan, on one stick, each cut checked (tests/boot/powercut.sh).
POWERCUT_N ?= 20
powercut: all
	tests/boot/powercut.sh $(OUT)/powercut measure $(foreach i,$(shell seq 1 $(POWERCUT_N)),random) final

# Not part of make test (a small fixed sample of it is): every recorded real
# machine and drive replayed through the judgments (tests/realworld/README.md).
realworld: $(OUT)/probestick
	tests/realworld/run --all

# Not part of make test: reproducers of known issues outside probestick
# (tests/known/, docs/design.md).
known: all
	tests/known/tracepoint-toggle || [ $$? -eq 77 ]
	tests/known/tcg-site-rewrite || [ $$? -eq 77 ]

flash: all
	scripts/flash.sh $(OUT)/probestick.img "$(DEV)"

# The file users download: the image, xz-compressed (one thread: the same
# bytes on every machine), and its checksum.
release: $(OUT)/probestick.img.xz
$(OUT)/probestick.img.xz: $(OUT)/probestick.img
	xz -9 -T1 -c $< >$@.tmp && mv $@.tmp $@
	cd $(OUT) && sha256sum probestick.img.xz >probestick.img.xz.sha256
	@echo "release: $@ ($$(stat -c %s $@) bytes), $@.sha256"

# Not a test: probestick against the reference tools, in a QEMU guest and natively
# (tests/bench/run.sh; README.md, Benchmarks).
bench: $(OUT)/vmlinuz $(OUT)/initramfs.img $(OUT)/probestick.ko
	tests/bench/run.sh

clean:
	rm -rf $(OUT)
	-$(MAKE) -C kmod clean KDIR=$(KDIR) >/dev/null 2>&1

distclean: clean
	rm -f .config .config.old

help:
	@echo 'make           build out/probestick.img, out/vmlinuz, out/initramfs.img,'
	@echo '               out/probestick.ko and out/probestick'
	@echo 'make run       build, boot the image in QEMU, run the quick plan, print the report'
	@echo 'make test      every test: unit, KUnit, build and boot tests, PS_JOBS at a'
	@echo '               time (the CPU count, at most 4; PS_JOBS=1: one by one)'
	@echo 'make unit|kunit|boot   one family of tests'
	@echo 'make soak      the quick plan booted SOAK_N=30 times; hangs and failures counted'
	@echo 'make realworld every recorded real machine and drive through the judgments,'
	@echo '               agreement per judgment (tests/realworld/)'
	@echo 'make known     the known-issue reproducers (tests/known/; not in make test)'
	@echo 'make powercut  the power cut POWERCUT_N=20 times at random moments of the plan'
	@echo 'make defconfig|menuconfig|olddefconfig|savedefconfig'
	@echo 'make netboot   out/netboot: the tree a DHCP/TFTP/HTTP server serves (NETBOOT_CFG=,'
	@echo '               NETBOOT_CA=: a site probestick.cfg and the collector'"'"'s CA)'
	@echo 'make fleet-test  two machines boot the netboot tree and report to a collector'
	@echo 'make fleet-load  the collector'"'"'s load with FLEET_N=20 machines sending at once'
	@echo 'make flash DEV=/dev/sdX   write the image to a real stick (asks first), grow'
	@echo '               its FAT partition to the whole stick'
	@echo 'make release   out/probestick.img.xz and its .sha256: the file users download'
	@echo 'make mok       sign probestick.ko with your own key (made once, outside the'
	@echo '               clone) and put its certificate on the stick, for Secure Boot'
	@echo 'make bench     probestick against fio, likwid-bench and iperf3, and the probes'
	@echo '               on/off, in QEMU and natively, each judged above/below/undecided'
	@echo '               on alternating pairs; the probes cost per event (not a test)'
	@echo 'make fuzz      every libFuzzer harness for FUZZ_S seconds (600), one at a time;'
	@echo '               FUZZ="report config" for some of them'
