# t_node: pfiles on fixtures/sockets.js (node) with 100 loopback
# connections, checked against what node says it opened.
ATF_PROGS += t_node
