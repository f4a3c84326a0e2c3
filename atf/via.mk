ATF_PROGS += t_via
T_via_OBJS := $(B)/atf/pcount.o $(B)/atf/seccomp_deny

$(B)/atf/seccomp_deny: $(B)/atf/seccomp_deny.o
	$(CC) $(ALL_LDFLAGS) -o $@ $^
