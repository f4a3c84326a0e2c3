# SPDX-License-Identifier: BSD-2-Clause
# pfiles for Linux: libproc, pfiles(1), fixtures, the kyua suite, fuzzing.
#
#   make            build everything into $(B)
#   make check      build, then run the kyua suite (SANITIZE=1: ASan+UBSan)
#   make demo       pfiles on a live node.js process with 100 connections
#   make bench      pfiles against lsof, lsfd and ss (not part of check)
#   make soak       pfiles over and over at self-checking targets for
#                   SOAK_MINUTES, every CPU busy, judged by a watchdog
#   make fuzz       AFL++ on every harness for FUZZ_SECONDS each
#   make check-kernels  the kernel-dependent tests inside Debian's 6.1 and
#                   6.12 kernels under qemu (KERNELS="pkg ..." to choose)
#   make check-kernels-arm64  the same in Debian's arm64 kernels, with the
#                   cross build (build-aarch64) in an arm64 userland
#   make install    PREFIX=/usr/local DESTDIR= (BINDIR LIBDIR INCLUDEDIR
#                   MANDIR PKGCONFIGDIR BASHCOMPDIR DATADIR PFILESDATADIR;
#                   CPPFLAGS CFLAGS LDFLAGS are added to the project's
#                   flags)
#   make deb        the Debian packages pfiles, libproc1, libproc-dev
#   make deps-T     the Debian packages target T needs (demo, check, fuzz,
#                   bench, soak; each of those runs its own first)

CC	?= cc
SANITIZE ?= 0
TOP	:= $(abspath .)

# The version, written once (VERSION), and the project's name: pfiles
# --version, LIBPROC_VERSION, libproc.pc and the Debian packages.
VERSION	:= $(shell cat $(TOP)/VERSION)
PROJECT	:= pfiles-linux

# Where make install puts things (GNU's names); DESTDIR is a staging root.
PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
LIBDIR	?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR	?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DATADIR	?= $(PREFIX)/share
PFILESDATADIR ?= $(DATADIR)/pfiles
DESTDIR	?=

ifeq ($(SANITIZE),1)
B	:= $(TOP)/build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	    -fno-sanitize-recover=all
else
B	:= $(TOP)/build
SANFLAGS :=
endif

# The machine the agent and the kernel's constants are written for: one
# folder of libproc-patch/libproc/isa/ each (x86_64, aarch64).  Asked
# of the compiler here, but refused only once something is to be built
# (the rule of $(CONFIG), below): on a machine without a compiler, make
# deps-demo and the other deps-T targets must still run, to install one.
ISA	:= $(firstword $(subst -, ,$(shell $(CC) -dumpmachine 2>/dev/null)))
ISA_DIR	:= $(TOP)/libproc-patch/libproc/isa/$(ISA)
# The machine make runs on: a build for another ISA is a cross build.
HOST_ISA := $(shell uname -m)
ifeq ($(ISA),)
CC_REFUSED = $(CC): no C compiler runs by that name (make deps-demo, as \
	root, installs $(CC_PKGS))
else ifeq ($(wildcard $(ISA_DIR)/isa.h),)
CC_REFUSED = $(CC) builds for $(ISA): the agent and the kernel's \
	constants are written for $(notdir $(wildcard \
	$(TOP)/libproc-patch/libproc/isa/*)) only (libproc-patch/libproc/isa/)
endif

# The build's configuration, recorded as kbuild records command lines:
# $(CONFIG) holds, one line each, what the objects and programs are made
# with (the compiler, its flags, whether the bpf program is in), and is
# rewritten only when that changes.  Every rule that runs $(CC) names it
# among its prerequisites (recipes take their inputs by $< or
# $(filter %.o %.a,$^)), so that a build made before clang, bpftool and
# libbpf-dev were installed gains --via=bpf at the next make, and make
# CC=clang after a gcc build builds again.  When bpf is left out, the
# build says so, and why, as it records that.
CONFIG	:= $(B)/config

WARN	:= -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	   -Wmissing-prototypes -Wno-unused-parameter
CFLAGS	?= -O2 -g
# The environment's CPPFLAGS, CFLAGS and LDFLAGS (dpkg-buildflags'
# hardening) are added to the project's own, never in their place.
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -pthread $(WARN) $(CPPFLAGS) $(CFLAGS) \
	   $(SANFLAGS) -fPIC -fno-semantic-interposition \
	   -DLIBPROC_VERSION='"$(VERSION)"' -DLIBPROC_PROJECT='"$(PROJECT)"' \
	   -I$(TOP)/libproc-patch/libproc -I$(ISA_DIR)
ALL_LDFLAGS := -pthread $(SANFLAGS) $(LDFLAGS)

ALL	:=
CLEAN	:=

.PHONY: all check demo demo-build bench fuzz install build-install clean deps
all: build-all

include libproc-patch/Makefile.inc
include fixtures/Makefile.inc
include preadcount/Makefile.inc
include atf/Makefile.inc
-include fuzz/Makefile.inc
-include bench/Makefile.inc
-include soak/Makefile.inc

build-all: $(ALL)

# A target by its path from the top (make build/pfiles) is the same file
# as the absolute one the rules name.
REL_ALL := $(patsubst $(TOP)/%,%,$(filter $(TOP)/%,$(ALL)))
.PHONY: $(REL_ALL)
$(REL_ALL): %: $(TOP)/%
	@:

$(B)/%.o: $(TOP)/%.c $(CONFIG)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# (not in the kernels' caches: unpacked packages, whose /etc has rc2.d/)
-include $(shell find $(B) -name 'kernels*' -prune -o -name '*.d' -type f \
	-print 2>/dev/null)

# $(CONFIG)'s lines, each quoted for the shell.
shq = '$(subst ','\'',$(1))'
CONFIG_LINES := $(call shq,CC=$(CC)) $(call shq,ISA=$(ISA)) \
	$(call shq,CFLAGS=$(ALL_CFLAGS)) $(call shq,LDFLAGS=$(ALL_LDFLAGS)) \
	$(call shq,HAVE_BPF=$(HAVE_BPF)) $(call shq,BPF_CLANG=$(BPF_CLANG)) \
	$(call shq,TOP=$(TOP)) $(call shq,PFILESDATADIR=$(PFILESDATADIR))

# Run by every make that builds something; writes only what changed (a
# tree shared read-only stays so).
.PHONY: FORCE
$(CONFIG): FORCE
	$(if $(CC_REFUSED),@echo $(call shq,make: $(CC_REFUSED)) >&2; exit 1)
	@printf '%s\n' $(CONFIG_LINES) | cmp -s - $@ || { \
	    mkdir -p $(dir $@) && printf '%s\n' $(CONFIG_LINES) >$@ && \
	    $(if $(BPF_LEFT_OUT),echo $(call shq,$(BPF_NOTE));) :; }

# The Debian packages each target needs, one list per target: deps-T hands
# DEPS_T to .ci/deps.sh, which installs the missing ones when run as root
# and otherwise prints the exact apt-get line and fails.  demo, check, fuzz
# and bench run theirs before building anything.
#
# The compiler's packages follow CC: clang and its sanitizer runtimes when
# CC names clang (make check CC=clang), gcc otherwise; libc6-dev either way
# (gcc only recommends it).
ifneq ($(findstring clang,$(notdir $(firstword $(CC)))),)
CC_PKGS := clang libclang-rt-dev libc6-dev
else
CC_PKGS := gcc libc6-dev
endif
# pfiles, libpreadcount.so, node for fixtures/sockets.js (scripts/demo.sh)
DEPS_demo := make $(CC_PKGS) nodejs
# the suite: kyua and ATF, node, the tools the tests run (strace, mandoc,
# setpriv, nm and readelf) or compare with, Debian's python3 with
# jsonschema (the validator of pfiles -J), and what builds the bpf
# source's program (clang, bpftool, libbpf's headers)
DEPS_check := make $(CC_PKGS) kyua libatf-dev nodejs binutils strace \
	mandoc util-linux lsof iproute2 procps python3 python3-jsonschema \
	$(BPF_PKGS) pkg-config
# afl-clang-fast and afl-fuzz; clang for fuzz-libfuzzer; CC for mkseeds
DEPS_fuzz := make $(CC_PKGS) afl++ clang libclang-rt-dev
# what bench/bench.sh times: lsof, lsfd (util-linux), ss (iproute2); node
DEPS_bench := make $(CC_PKGS) nodejs lsof util-linux iproute2 strace \
	$(BPF_PKGS)
# the soak: pfiles with every source it has (bpf's build needs), and the
# targets and watchdog (soak/), which need nothing more
DEPS_soak := make $(CC_PKGS) $(BPF_PKGS)

# check-kernels: the suite's, and what boots Debian's kernels under qemu
# and builds their initramfs (kernels/), and reads their BTF (btfcheck.sh)
DEPS_kernels := $(DEPS_check) qemu-system-x86 busybox-static kmod \
	xz-utils zstd

# make deb: debhelper and dpkg-buildpackage, lintian, and the packages'
# Build-Depends (what builds the bpf program); pkg-config for .ci/run's
# check of the installed libproc.pc
DEPS_deb := make $(CC_PKGS) debhelper dpkg-dev lintian pkg-config \
	$(BPF_PKGS)
# make deb DEB_HOST_ARCH=arm64 on another machine: Debian's cross
# toolchain for it (gcc-aarch64-linux-gnu ... libc6-dev-arm64-cross).
ifneq ($(DEB_HOST_ARCH),)
ifneq ($(DEB_HOST_ARCH),$(shell dpkg --print-architecture 2>/dev/null))
DEB_CROSS_GNU := $(subst _,-,$(shell dpkg-architecture \
	-a$(DEB_HOST_ARCH) -qDEB_HOST_GNU_TYPE 2>/dev/null))
DEPS_deb += gcc-$(DEB_CROSS_GNU) binutils-$(DEB_CROSS_GNU) \
	libc6-dev-$(DEB_HOST_ARCH)-cross
endif
endif

# check-kernels-arm64: Debian's cross compiler and libc for the build,
# qemu-system-arm for the guests, qemu-user-static (rootfs.sh's ldconfig,
# check.sh's listing of cases), depmod, and what btfcheck.sh uses
DEPS_kernels-arm64 := make gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
	libatf-dev qemu-system-arm qemu-user-static kmod $(BPF_PKGS) \
	pkg-config

DEPS_TARGETS := demo check fuzz bench soak kernels kernels-arm64 deb
.PHONY: $(addprefix deps-,$(DEPS_TARGETS))
$(addprefix deps-,$(DEPS_TARGETS)): deps-%:
	@sh $(TOP)/.ci/deps.sh $(DEPS_$*)

# make deps: what the whole suite needs.
deps: deps-check

# Under make -j, no harness is compiled before afl++ and clang are in.
$(FUZZ_AFL) $(FUZZ_LIBFUZZER): | deps-fuzz

KYUA_RESULTS := $(B)/kyua-results.db

# The packages first; then the build, which needs them.
check: deps-check
	@$(MAKE) --no-print-directory build-all
	@rm -f $(KYUA_RESULTS)
	@cd $(TOP) && kyua test --kyuafile=Kyuafile --build-root=$(B) \
	    --results-file=$(KYUA_RESULTS); st=$$?; \
	kyua report --results-file=$(KYUA_RESULTS) \
	    --results-filter=broken,failed >/dev/null 2>&1; \
	sh $(TOP)/.ci/kyua-count.sh $(KYUA_RESULTS); exit $$st

# The whole tree built for aarch64 with Debian's cross compiler, in
# $(XB), beside the host's build: ISA follows the compiler (isa/aarch64),
# and the test programs link arm64's libatf-c (atf/Makefile.inc).
XB	?= $(TOP)/build-aarch64
XCC	?= aarch64-linux-gnu-gcc
.PHONY: cross-aarch64
cross-aarch64:
	$(MAKE) CC='$(XCC)' B=$(XB) build-all

# The kernel matrix (kernels/check.sh): the tests that depend on the
# kernel, inside each kernel of KERNELS (Debian packages; default Debian
# 12's current 6.1 and the 6.12 backport) booted under qemu (KVM once a
# probe has booted a guest with it, else TCG: kernels/README), with the
# host's / shared read-only; and
# the bpf program built against each kernel's own types.  Not part of
# check: about 10 minutes per kernel under TCG.
.PHONY: check-kernels
check-kernels: deps-kernels
	@$(MAKE) --no-print-directory build-all
	@bash $(TOP)/kernels/check.sh

# The same for arm64 (kernels/check.sh, KERNELS_ARCH=arm64): the tree
# cross-built into its own build folder, Debian's arm64 kernels under
# qemu-system-aarch64 (TCG), a chosen list of programs (kernels/README).
# The guests' arm64 root first: the build links the libatf-c it holds.
.PHONY: check-kernels-arm64
check-kernels-arm64: deps-kernels-arm64
	@deb=$$(KERNELS_ARCH=arm64 bash $(TOP)/kernels/rootfs.sh \
	    --deb libatf-c-1) && \
	$(MAKE) --no-print-directory cross-aarch64 ATF_DEB="$$deb"
	@KERNELS_ARCH=arm64 KERNELS_BUILD=$(XB) \
	    bash $(TOP)/kernels/check.sh

clean:
	rm -rf $(TOP)/build $(TOP)/build-san $(XB) $(CLEAN)

# The Debian packages pfiles, libproc1 and libproc-dev, built from a copy
# of the tree in $(B)/deb (scripts/deb.sh), with lintian's report.
# DEB_HOST_ARCH=arm64 cross-builds them with Debian's cross compiler
# (gcc-aarch64-linux-gnu); dpkg-shlibdeps reads the symbols of arm64's
# libc6, unpacked, never installed: LIBC_DEB names its .deb, else
# scripts/cross-deb.sh fetches it.
.PHONY: deb
deb: deps-deb
	@sh $(TOP)/scripts/deb.sh $(TOP) $(B)/deb $(VERSION) \
	    $(DEB_HOST_ARCH) $(LIBC_DEB)

# The packages first, then only what scripts/demo.sh runs: pfiles and the
# read counter (node runs fixtures/sockets.js from the tree); no ATF, no fuzz.
demo: deps-demo
	@$(MAKE) --no-print-directory demo-build
	@sh $(TOP)/scripts/demo.sh $(B)

demo-build: $(B)/pfiles $(B)/libpreadcount.so
	@:

# make mutate: mutation testing of the suite (mutate/mutate.sh applies each
# mutant of mutate/catalogue in a scratch copy of the tree, builds, runs
# the test programs its line names).  Long, so neither check nor .ci/run
# runs it.  Fails below MUTATE_MIN percent of the non-equivalent mutants
# killed, or on a catalogue line whose snippet is gone (stale) or found
# twice.  make mutate-check only checks the catalogue against the tree.
# MUTATE_ONLY=RE runs the lines whose "ID FILE" matches RE.
MUTATE_MIN ?= 90
.PHONY: mutate mutate-check
mutate: deps-check
	@CC="$(CC)" MUTATE_REPORT="$(B)/mutate-report.txt" \
	    sh $(TOP)/mutate/mutate.sh -m $(MUTATE_MIN)

mutate-check:
	@sh $(TOP)/mutate/mutate.sh -n
