# t_pfiles_cli: pfiles' command line: usage errors, exit statuses and
# messages, several pids, the header lines, -n.
ATF_PROGS += t_pfiles_cli
