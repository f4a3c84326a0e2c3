# The agent (issue 3): argument marshalling (pure; fuzzed by fuzz/), the
# ptrace agent with Psyscall and its batches, illumos' pr_* wrappers, and
# the socket-facts source that uses the agent.  Included by Makefile.inc.
LIBPROC_SRCS += marshal.c agent.c pr_calls.c sock_agent.c sock_agent_pass.c
