/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * seccomp_check.c: the checker of seccomp filters, the interpreter that
 * runs them on a planned call, and the kernel's rule for combining their
 * results (seccomp_check.h says what each does, and on which facts).
 */
#include <string.h>
#include <linux/seccomp.h>

#include "agent/seccomp_check.h"

/* The codes of every instruction a seccomp filter may have. */
#define	OP_LD_W_ABS	(BPF_LD | BPF_W | BPF_ABS)
#define	OP_LD_H_ABS	(BPF_LD | BPF_H | BPF_ABS)	/* sc_run only */
#define	OP_LD_B_ABS	(BPF_LD | BPF_B | BPF_ABS)	/* sc_run only */
#define	OP_LD_W_LEN	(BPF_LD | BPF_W | BPF_LEN)
#define	OP_LDX_W_LEN	(BPF_LDX | BPF_W | BPF_LEN)
#define	OP_LD_IMM	(BPF_LD | BPF_IMM)
#define	OP_LDX_IMM	(BPF_LDX | BPF_IMM)
#define	OP_LD_MEM	(BPF_LD | BPF_MEM)
#define	OP_LDX_MEM	(BPF_LDX | BPF_MEM)
#define	OP_ST		(BPF_ST)
#define	OP_STX		(BPF_STX)
#define	OP_TAX		(BPF_MISC | BPF_TAX)
#define	OP_TXA		(BPF_MISC | BPF_TXA)
#define	OP_RET_K	(BPF_RET | BPF_K)
#define	OP_RET_A	(BPF_RET | BPF_A)
#define	OP_NEG		(BPF_ALU | BPF_NEG)
#define	OP_JA		(BPF_JMP | BPF_JA)

/* Does a code name an ALU operation on A with K or X that seccomp has? */
static int
is_alu2(uint16_t code)
{
	if (BPF_CLASS(code) != BPF_ALU ||
	    (code & ~(uint16_t)(0x07 | 0xf0 | BPF_X)) != 0)
		return (0);
	switch (BPF_OP(code)) {
	case BPF_ADD:
	case BPF_SUB:
	case BPF_MUL:
	case BPF_DIV:
	case BPF_AND:
	case BPF_OR:
	case BPF_XOR:
	case BPF_LSH:
	case BPF_RSH:
		return (1);
	default:
		return (0);
	}
}

/* A conditional jump, with K or X? */
static int
is_jcond(uint16_t code)
{
	if (BPF_CLASS(code) != BPF_JMP ||
	    (code & ~(uint16_t)(0x07 | 0xf0 | BPF_X)) != 0)
		return (0);
	switch (BPF_OP(code)) {
	case BPF_JEQ:
	case BPF_JGT:
	case BPF_JGE:
	case BPF_JSET:
		return (1);
	default:
		return (0);
	}
}

static int
fault(sc_fault_t *f, int code, size_t pc)
{
	if (f != NULL) {
		f->sf_code = code;
		f->sf_pc = (uint32_t)pc;
		f->sf_steps = 0;
	}
	return (code);
}

/* The end of a run, after steps instructions. */
static int
stop(sc_fault_t *f, int code, size_t pc, size_t steps)
{
	(void) fault(f, code, pc);
	if (f != NULL)
		f->sf_steps = (uint32_t)steps;
	return (code);
}

const char *
sc_strerror(int code)
{
	switch (code) {
	case SC_OK:
		return ("no fault");
	case SC_UNKNOWN:
		return ("it looks at an argument not known before the call");
	case SC_ELEN:
		return ("not 1 to 4096 instructions long");
	case SC_EINSN:
		return ("an instruction a seccomp filter cannot have");
	case SC_ELOAD:
		return ("a load outside the system call's data, or unaligned");
	case SC_EMEM:
		return ("a scratch word out of range, or read before written");
	case SC_EDIV:
		return ("a division by zero");
	case SC_ESHIFT:
		return ("a shift by 32 bits or more");
	case SC_EJUMP:
		return ("a jump out of the program");
	case SC_ENORET:
		return ("no return at its end");
	case SC_ESTEPS:
		return ("more steps than instructions");
	default:
		return ("an unknown fault");
	}
}

void
sc_input_make(sc_input_t *in, int nr, uint32_t arch, uint64_t ip,
    const uint64_t args[6], unsigned argknown)
{
	memset(in, 0, sizeof (*in));
	memcpy(in->si_data + 0, &nr, sizeof (nr));
	memcpy(in->si_data + 4, &arch, sizeof (arch));
	memcpy(in->si_data + 8, &ip, sizeof (ip));
	in->si_known = 0xfU;		/* nr, arch, ip: words 0 to 3 */
	for (unsigned i = 0; i < 6; i++) {
		memcpy(in->si_data + 16 + 8 * i, &args[i], sizeof (args[i]));
		if (argknown & (1U << i))
			in->si_known |= (uint16_t)(3U << (4 + 2 * i));
	}
}

/* ------------------------------------------------------------------ */
/* The kernel's checks. */

/* One instruction on its own; SC_OK or what is wrong with it. */
static int
check_insn(const struct sock_filter *ins, size_t pc, size_t n)
{
	uint16_t code = ins->code;

	if (is_alu2(code)) {
		if (BPF_SRC(code) == BPF_K && BPF_OP(code) == BPF_DIV &&
		    ins->k == 0)
			return (SC_EDIV);
		if (BPF_SRC(code) == BPF_K && (BPF_OP(code) == BPF_LSH ||
		    BPF_OP(code) == BPF_RSH) && ins->k >= 32)
			return (SC_ESHIFT);
		return (SC_OK);
	}
	if (is_jcond(code)) {
		/* pc < n, jt and jf < 256: no overflow. */
		return (pc + 1 + ins->jt >= n || pc + 1 + ins->jf >= n ?
		    SC_EJUMP : SC_OK);
	}
	switch (code) {
	case OP_LD_W_ABS:
		return (ins->k >= SC_DATALEN || (ins->k & 3) != 0 ?
		    SC_ELOAD : SC_OK);
	case OP_LD_MEM:
	case OP_LDX_MEM:
	case OP_ST:
	case OP_STX:
		return (ins->k >= SC_MEMWORDS ? SC_EMEM : SC_OK);
	case OP_JA:
		return ((uint64_t)ins->k >= (uint64_t)(n - pc - 1) ?
		    SC_EJUMP : SC_OK);
	case OP_LD_W_LEN:
	case OP_LDX_W_LEN:
	case OP_LD_IMM:
	case OP_LDX_IMM:
	case OP_TAX:
	case OP_TXA:
	case OP_NEG:
	case OP_RET_K:
	case OP_RET_A:
		return (SC_OK);
	default:
		return (SC_EINSN);
	}
}

/*
 * The kernel's rule for scratch memory: a word read on a path must have
 * been written before on every path to it.  Its bookkeeping, exactly:
 * the words known written flow to the next instruction, and each jump
 * leaves at its targets only the words written on every way there; after
 * a jump the next instruction is reached by jumps only.  Jumps are known
 * to stay inside the program.
 */
static int
check_memory(const struct sock_filter *prog, size_t n, size_t *pcp)
{
	uint16_t masks[SC_MAXINSNS], valid = 0;

	for (size_t pc = 0; pc < n; pc++)
		masks[pc] = 0xffffU;
	for (size_t pc = 0; pc < n; pc++) {
		const struct sock_filter *ins = &prog[pc];

		valid &= masks[pc];
		switch (ins->code) {
		case OP_ST:
		case OP_STX:
			valid |= (uint16_t)(1U << ins->k);
			break;
		case OP_LD_MEM:
		case OP_LDX_MEM:
			if (!(valid & (1U << ins->k))) {
				*pcp = pc;
				return (SC_EMEM);
			}
			break;
		case OP_JA:
			masks[pc + 1 + ins->k] &= valid;
			valid = 0xffffU;
			break;
		default:
			if (is_jcond(ins->code)) {
				masks[pc + 1 + ins->jt] &= valid;
				masks[pc + 1 + ins->jf] &= valid;
				valid = 0xffffU;
			}
			break;
		}
	}
	return (SC_OK);
}

int
sc_validate(const struct sock_filter *prog, size_t n, sc_fault_t *f)
{
	size_t pc;
	int err;

	if (prog == NULL || n == 0 || n > SC_MAXINSNS)
		return (fault(f, SC_ELEN, 0));
	for (pc = 0; pc < n; pc++) {
		if ((err = check_insn(&prog[pc], pc, n)) != SC_OK)
			return (fault(f, err, pc));
	}
	if (prog[n - 1].code != OP_RET_K && prog[n - 1].code != OP_RET_A)
		return (fault(f, SC_ENORET, n - 1));
	if ((err = check_memory(prog, n, &pc)) != SC_OK)
		return (fault(f, err, pc));
	return (fault(f, SC_OK, 0));
}

/* ------------------------------------------------------------------ */
/* The interpreter. */

/* A load of size bytes at k of the input into *vp. */
static int
load(const sc_input_t *in, uint32_t k, uint32_t size, uint32_t *vp)
{
	if (k >= SC_DATALEN || size > SC_DATALEN - k || k % size != 0)
		return (SC_ELOAD);
	/* Aligned to its size, a load lies inside one word. */
	if (!(in->si_known & (1U << (k / 4))))
		return (SC_UNKNOWN);
	if (size == 4) {
		uint32_t w;

		memcpy(&w, in->si_data + k, sizeof (w));
		*vp = w;
	} else if (size == 2) {
		uint16_t h;

		memcpy(&h, in->si_data + k, sizeof (h));
		*vp = h;
	} else {
		*vp = in->si_data[k];
	}
	return (SC_OK);
}

/*
 * A ALU-op v.  SC_OK, or SC_ESHIFT, SC_EDIV; *endp is set when a
 * division by an X of 0 ends the program (with 0, as in the kernel).
 */
static int
alu(uint16_t code, uint32_t *a, uint32_t v, int *endp)
{
	switch (BPF_OP(code)) {
	case BPF_ADD:
		*a += v;
		break;
	case BPF_SUB:
		*a -= v;
		break;
	case BPF_MUL:
		*a *= v;
		break;
	case BPF_DIV:
		if (v == 0) {
			if (BPF_SRC(code) == BPF_K)
				return (SC_EDIV);
			*endp = 1;
			break;
		}
		*a /= v;
		break;
	case BPF_AND:
		*a &= v;
		break;
	case BPF_OR:
		*a |= v;
		break;
	case BPF_XOR:
		*a ^= v;
		break;
	case BPF_LSH:
		if (v >= 32)
			return (SC_ESHIFT);
		*a <<= v;
		break;
	default:	/* BPF_RSH: is_alu2() let no other through */
		if (v >= 32)
			return (SC_ESHIFT);
		*a >>= v;
		break;
	}
	return (SC_OK);
}

/* Is a conditional jump taken? */
static int
taken(uint16_t code, uint32_t a, uint32_t v)
{
	switch (BPF_OP(code)) {
	case BPF_JEQ:
		return (a == v);
	case BPF_JGT:
		return (a > v);
	case BPF_JGE:
		return (a >= v);
	default:	/* BPF_JSET */
		return ((a & v) != 0);
	}
}

/* A run's state: the program, its registers and scratch memory. */
typedef struct sc_vm {
	const struct sock_filter *vm_prog;
	size_t		vm_n;		/* instructions in vm_prog */
	const sc_input_t *vm_in;
	uint32_t	vm_a, vm_x;
	uint32_t	vm_mem[SC_MEMWORDS];
	uint16_t	vm_written;	/* the words of vm_mem stored to */
	size_t		vm_next;	/* the pc after this instruction */
	int		vm_end;		/* the program has ended */
	uint32_t	vm_ret;		/* with this value */
} sc_vm_t;

/* A load from or store to the scratch memory: SC_OK or SC_EMEM. */
static int
mem_op(sc_vm_t *vm, const struct sock_filter *ins)
{
	if (ins->k >= SC_MEMWORDS)
		return (SC_EMEM);
	switch (ins->code) {
	case OP_LD_MEM:
	case OP_LDX_MEM:
		if (!(vm->vm_written & (1U << ins->k)))
			return (SC_EMEM);
		if (ins->code == OP_LD_MEM)
			vm->vm_a = vm->vm_mem[ins->k];
		else
			vm->vm_x = vm->vm_mem[ins->k];
		break;
	default:	/* OP_ST, OP_STX */
		vm->vm_mem[ins->k] = ins->code == OP_ST ? vm->vm_a : vm->vm_x;
		vm->vm_written |= (uint16_t)(1U << ins->k);
		break;
	}
	return (SC_OK);
}

/* An instruction neither ALU nor conditional jump, at pc. */
static int
other_op(sc_vm_t *vm, size_t pc, const struct sock_filter *ins)
{
	switch (ins->code) {
	case OP_LD_W_ABS:
	case OP_LD_H_ABS:
	case OP_LD_B_ABS:
		return (load(vm->vm_in, ins->k,
		    BPF_SIZE(ins->code) == BPF_W ? 4 :
		    BPF_SIZE(ins->code) == BPF_H ? 2 : 1, &vm->vm_a));
	case OP_LD_W_LEN:
		vm->vm_a = SC_DATALEN;
		break;
	case OP_LDX_W_LEN:
		vm->vm_x = SC_DATALEN;
		break;
	case OP_LD_IMM:
		vm->vm_a = ins->k;
		break;
	case OP_LDX_IMM:
		vm->vm_x = ins->k;
		break;
	case OP_LD_MEM:
	case OP_LDX_MEM:
	case OP_ST:
	case OP_STX:
		return (mem_op(vm, ins));
	case OP_TAX:
		vm->vm_x = vm->vm_a;
		break;
	case OP_TXA:
		vm->vm_a = vm->vm_x;
		break;
	case OP_NEG:
		vm->vm_a = 0U - vm->vm_a;
		break;
	case OP_JA:
		if ((uint64_t)ins->k >= (uint64_t)(vm->vm_n - pc - 1))
			return (SC_EJUMP);
		vm->vm_next = pc + 1 + ins->k;
		break;
	case OP_RET_K:
	case OP_RET_A:
		vm->vm_ret = ins->code == OP_RET_K ? ins->k : vm->vm_a;
		vm->vm_end = 1;
		break;
	default:
		return (SC_EINSN);
	}
	return (SC_OK);
}

/* The instruction at pc: SC_OK (vm_end set when it ended the run). */
static int
step(sc_vm_t *vm, size_t pc)
{
	const struct sock_filter *ins = &vm->vm_prog[pc];
	uint32_t v = BPF_SRC(ins->code) == BPF_X ? vm->vm_x : ins->k;
	size_t off;

	vm->vm_next = pc + 1;
	if (is_alu2(ins->code)) {
		/* A division by an X of 0 ends the run, with 0. */
		return (alu(ins->code, &vm->vm_a, v, &vm->vm_end));
	}
	if (is_jcond(ins->code)) {
		off = taken(ins->code, vm->vm_a, v) ? ins->jt : ins->jf;
		if (off >= vm->vm_n - pc - 1)
			return (SC_EJUMP);
		vm->vm_next = pc + 1 + off;
		return (SC_OK);
	}
	return (other_op(vm, pc, ins));
}

int
sc_run(const struct sock_filter *prog, size_t n, const sc_input_t *in,
    uint32_t *retp, sc_fault_t *f)
{
	sc_vm_t vm;
	size_t pc = 0, steps = 0;
	int err;

	*retp = 0;
	memset(&vm, 0, sizeof (vm));
	vm.vm_prog = prog;
	vm.vm_n = n;
	vm.vm_in = in;
	if (prog == NULL || n == 0 || n > SC_MAXINSNS)
		return (stop(f, SC_ELEN, 0, 0));
	/*
	 * Every instruction moves pc forward by at least one, so the loop
	 * runs at most n times; steps only proves it.
	 */
	for (;;) {
		if (pc >= n)
			return (stop(f, SC_ENORET, n - 1, steps));
		if (++steps > n)
			return (stop(f, SC_ESTEPS, pc, steps));
		if ((err = step(&vm, pc)) != SC_OK)
			return (stop(f, err, pc, steps));
		if (vm.vm_end) {
			*retp = vm.vm_ret;
			return (stop(f, SC_OK, pc, steps));
		}
		pc = vm.vm_next;
	}
}

/* ------------------------------------------------------------------ */
/* The results. */

sc_action_t
sc_action(uint32_t ret)
{
	switch (ret & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_KILL_PROCESS:
		return (SC_ACT_KILL_PROCESS);
	case SECCOMP_RET_KILL_THREAD:
		return (SC_ACT_KILL_THREAD);
	case SECCOMP_RET_TRAP:
		return (SC_ACT_TRAP);
	case SECCOMP_RET_ERRNO:
		return (SC_ACT_ERRNO);
	case SECCOMP_RET_USER_NOTIF:
		return (SC_ACT_USER_NOTIF);
	case SECCOMP_RET_TRACE:
		return (SC_ACT_TRACE);
	case SECCOMP_RET_LOG:
		return (SC_ACT_LOG);
	case SECCOMP_RET_ALLOW:
		return (SC_ACT_ALLOW);
	default:
		return (SC_ACT_OTHER);
	}
}

const char *
sc_action_name(sc_action_t act)
{
	static const char *const names[] = {
		[SC_ACT_KILL_PROCESS] = "KILL_PROCESS",
		[SC_ACT_KILL_THREAD] = "KILL_THREAD",
		[SC_ACT_TRAP] = "TRAP",
		[SC_ACT_ERRNO] = "ERRNO",
		[SC_ACT_USER_NOTIF] = "USER_NOTIF",
		[SC_ACT_TRACE] = "TRACE",
		[SC_ACT_LOG] = "LOG",
		[SC_ACT_ALLOW] = "ALLOW",
		[SC_ACT_OTHER] = "an unknown action",
	};

	return ((unsigned)act < sizeof (names) / sizeof (names[0]) ?
	    names[act] : "?");
}

/*
 * The precedence of a return value: the order of its action as a signed
 * 32-bit number, lowest first, which is the unsigned order once the sign
 * bit is flipped.
 */
static uint32_t
rank(uint32_t ret)
{
	return ((ret & SECCOMP_RET_ACTION_FULL) ^ 0x80000000U);
}

/* The result so far, and the next (older) filter's. */
static uint32_t
combine2(uint32_t sofar, uint32_t next)
{
	return (rank(next) < rank(sofar) ? next : sofar);
}

uint32_t
sc_combine(const uint32_t *rets, size_t n)
{
	uint32_t ret = SECCOMP_RET_ALLOW;

	for (size_t i = 0; i < n; i++)
		ret = combine2(ret, rets[i]);
	return (ret);
}

int
sc_permits(uint32_t ret, int errno_ok)
{
	switch (sc_action(ret)) {
	case SC_ACT_ALLOW:
	case SC_ACT_LOG:
		return (1);
	case SC_ACT_ERRNO:
		return (errno_ok && (ret & SECCOMP_RET_DATA) != 0);
	default:
		return (0);
	}
}

int
sc_judge(const sc_prog_t *progs, size_t n, const sc_input_t *in,
    uint32_t *retp, sc_fault_t *f, size_t *whichp)
{
	uint32_t ret = SECCOMP_RET_ALLOW, r;
	int err;

	*retp = 0;
	*whichp = 0;
	for (size_t i = 0; i < n; i++) {
		if ((err = sc_run(progs[i].sp_insns, progs[i].sp_len, in, &r,
		    f)) != SC_OK) {
			*whichp = i;
			return (err);
		}
		ret = combine2(ret, r);
	}
	*retp = ret;
	return (fault(f, SC_OK, 0));
}
