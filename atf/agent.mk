# t_agent: the agent, Psyscall and its batches, the pr_* wrappers, against
# fixtures/agent_target (its own view of itself) and through
# fixtures/agent_driver (a controller watched with strace, or killed).
ATF_PROGS += t_agent
ALL += $(B)/agent_target $(B)/agent_driver

$(B)/agent_target: $(B)/fixtures/agent_target.o
	$(CC) $(ALL_LDFLAGS) -o $@ $^

$(B)/agent_driver: $(B)/fixtures/agent_driver.o $(B)/libproc.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^
