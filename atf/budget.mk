# t_budget: pfiles' reads and writes per socket under libpreadcount.so,
# on fixtures/sockets.js at N and 4N connections, against each --via's
# budget; and the checker itself, caught by seedlike (atf/seedlike.c), a
# test-only program that reads /proc/self like the seed's pfiles.
ATF_PROGS += t_budget
T_budget_OBJS := $(B)/atf/pcount.o

ALL += $(B)/atf/seedlike

$(B)/atf/seedlike: $(B)/atf/seedlike.o
	$(CC) $(ALL_LDFLAGS) -o $@ $<
