# pfiles on the sockfix fixture, compared byte for byte with the text
# expect.c computes from the fixture's manifest.
ATF_PROGS += t_pfiles_fixture
T_pfiles_fixture_OBJS := $(B)/atf/expect.o
