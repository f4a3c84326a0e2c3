ATF_PROGS += t_libproc
