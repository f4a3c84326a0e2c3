# t_marshal: unit tests of the pure argument marshalling of the agent.
ATF_PROGS += t_marshal
T_marshal_OBJS := $(B)/libproc-patch/marshal.o
