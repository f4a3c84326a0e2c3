# t_fuzz_replay: the fuzzing corpus replayed through the replay drivers
# (fuzz/Makefile.inc builds them, and makes this program depend on them).
ATF_PROGS += t_fuzz_replay
# The marshal harness exists once the agent's marshal module does.
ifneq ($(wildcard $(TOP)/libproc-patch/marshal.h),)
ifneq ($(wildcard $(TOP)/libproc-patch/marshal.c),)
$(B)/atf/t_fuzz_replay.o: ATF_CFLAGS += -DFUZZ_HAVE_MARSHAL
# Compiled again when the module appears (or changes).
$(B)/atf/t_fuzz_replay.o: $(TOP)/libproc-patch/marshal.h
endif
endif
