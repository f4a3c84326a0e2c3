# t_preadcount: libpreadcount.so (preadcount/Makefile.inc) counts exactly.
ATF_PROGS += t_preadcount
T_preadcount_OBJS := $(B)/atf/pcount.o
$(B)/atf/t_preadcount.o: ATF_CFLAGS += -DPC_SANITIZE=$(SANITIZE)

# The victim, a program with known numbers of each counted call, built
# four ways; each build must call its own set of libc entries (the
# victims_import_expected case checks with nm).  The victims are built
# without sanitizers, so that the entries are the ones the flags choose;
# SANITIZE=1 adds a fifth, instrumented build, as pfiles is then.
PC_VICTIM_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -g -U_FORTIFY_SOURCE \
	-U_FILE_OFFSET_BITS
PC_VICTIM_SRC := $(TOP)/atf/pc_victim.c
PC_VICTIMS := plain fortify fob64 fortify64
ifeq ($(SANITIZE),1)
PC_VICTIMS += san
endif
ALL += $(addprefix $(B)/atf/pc_victim_,$(PC_VICTIMS))

$(B)/atf/pc_victim_plain: $(PC_VICTIM_SRC)
	@mkdir -p $(dir $@)
	$(CC) $(PC_VICTIM_CFLAGS) -O0 -o $@ $< -pthread

$(B)/atf/pc_victim_fortify: $(PC_VICTIM_SRC)
	@mkdir -p $(dir $@)
	$(CC) $(PC_VICTIM_CFLAGS) -O2 -D_FORTIFY_SOURCE=2 -o $@ $< -pthread

$(B)/atf/pc_victim_fob64: $(PC_VICTIM_SRC)
	@mkdir -p $(dir $@)
	$(CC) $(PC_VICTIM_CFLAGS) -O0 -D_FILE_OFFSET_BITS=64 -o $@ $< -pthread

$(B)/atf/pc_victim_fortify64: $(PC_VICTIM_SRC)
	@mkdir -p $(dir $@)
	$(CC) $(PC_VICTIM_CFLAGS) -O2 -D_FORTIFY_SOURCE=2 \
	    -D_FILE_OFFSET_BITS=64 -o $@ $< -pthread

$(B)/atf/pc_victim_san: $(PC_VICTIM_SRC)
	@mkdir -p $(dir $@)
	$(CC) $(PC_VICTIM_CFLAGS) -O1 $(SANFLAGS) -o $@ $< -pthread
