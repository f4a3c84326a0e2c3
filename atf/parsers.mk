ATF_PROGS += t_parsers
T_parsers_OBJS := $(B)/libproc-patch/pfiles_fmt.o
