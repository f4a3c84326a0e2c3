ATF_PROGS += t_docs
