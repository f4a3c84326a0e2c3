# pfiles for Linux: libproc, pfiles(1), fixtures, the kyua suite, fuzzing.
#
#   make            build everything into $(B)
#   make check      build, then run the kyua suite (SANITIZE=1: ASan+UBSan)
#   make demo       pfiles on a live node.js process with 100 connections
#   make bench      pfiles against lsof, lsfd and ss (not part of check)
#   make fuzz       AFL++ on every harness for FUZZ_SECONDS each
#   make install    PREFIX=/usr/local DESTDIR=

CC	?= cc
PREFIX	?= /usr/local
DESTDIR	?=
SANITIZE ?= 0
TOP	:= $(abspath .)

ifeq ($(SANITIZE),1)
B	:= $(TOP)/build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	    -fno-sanitize-recover=all
else
B	:= $(TOP)/build
SANFLAGS :=
endif

WARN	:= -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	   -Wmissing-prototypes -Wno-unused-parameter
CFLAGS	?= -O2 -g
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -pthread $(WARN) $(CFLAGS) $(SANFLAGS) -fPIC \
	   -I$(TOP)/libproc-patch/libproc
ALL_LDFLAGS := -pthread $(SANFLAGS) $(LDFLAGS)

ALL	:=
CLEAN	:=

.PHONY: all check demo bench fuzz install clean deps
all: build-all

include libproc-patch/Makefile.inc
include fixtures/Makefile.inc
include preadcount/Makefile.inc
include atf/Makefile.inc
-include fuzz/Makefile.inc
-include bench/Makefile.inc

build-all: $(ALL)

$(B)/%.o: $(TOP)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# The Debian packages the suite needs; deps installs what is missing when
# run as root, and otherwise names the exact apt-get line.
DEB_PKGS := kyua libatf-dev nodejs lsof util-linux iproute2 strace mandoc \
	    procps gcc make

deps:
	@sh $(TOP)/.ci/deps.sh $(DEB_PKGS)

KYUA_RESULTS := $(B)/kyua-results.db

check: deps
	@$(MAKE) --no-print-directory build-all
	@rm -f $(KYUA_RESULTS)
	@cd $(TOP) && kyua test --kyuafile=Kyuafile --build-root=$(B) \
	    --results-file=$(KYUA_RESULTS); st=$$?; \
	kyua report --results-file=$(KYUA_RESULTS) \
	    --results-filter=broken,failed >/dev/null 2>&1; \
	sh $(TOP)/.ci/kyua-count.sh $(KYUA_RESULTS); exit $$st

clean:
	rm -rf $(TOP)/build $(TOP)/build-san $(CLEAN)

demo: build-all
	@sh $(TOP)/scripts/demo.sh $(B)
