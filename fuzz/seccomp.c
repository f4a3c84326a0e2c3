/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * seccomp.c: fuzzing harness of the checker of seccomp filters
 * (seccomp_check.c): the validator, the interpreter and the combination
 * of several filters' results.
 *
 * Input: one byte, the number of filters less one (mod 3); two bytes,
 * which words of the input are known (a bit per 32-bit word, little-
 * endian); 64 bytes, the struct seccomp_data; then per filter two bytes,
 * its length in instructions (mod 4100, so that 0 and more than 4096 are
 * tried), and the instructions, 8 bytes each: code (2 bytes), jt, jf, k
 * (4 bytes), little-endian.  A filter cut short by the end of the input
 * is padded with zero bytes.  Each filter is handed over in a buffer of
 * exactly its length, so that a read past it is caught.
 *
 * Checked, for every filter, validated or not:
 *  - sc_validate and sc_run return a code they document; a run takes at
 *    most n steps, and gives a return value only with SC_OK;
 *  - a filter that sc_validate accepts has 1 to 4096 instructions and
 *    ends in a return; run on any input it meets no fault a validated
 *    filter cannot meet: it returns an action (SC_OK), or stops at a word
 *    not known (SC_UNKNOWN) or at a shift by an X of 32 or more
 *    (SC_ESHIFT, which classic BPF leaves undefined);
 *  - the model: for a filter of the subset below, a second evaluator
 *    written here from seccomp_check.h's description alone (recursive,
 *    one instruction per call, its own decoding) gives the same result:
 *    the same return value, or the same kind of fault.  The subset: LD
 *    W ABS, LD and LDX IMM, TAX, TXA, ALU ADD SUB AND OR XOR with K or X,
 *    NEG, JA, JEQ JGT JGE JSET with K or X, RET K and RET A.
 * And for the filters together: sc_judge gives the first fault in order,
 * or exactly sc_combine of the runs; the combined value is one of the
 * runs' values, the first of its action (or SECCOMP_RET_ALLOW itself,
 * where the kernel starts, for ALLOW), and no run's action takes
 * precedence over it (compared here as signed 32-bit numbers, the
 * kernel's way);
 * sc_permits allows only ALLOW, LOG and ERRNO with an errno.
 */
#include <linux/seccomp.h>

#include "fuzz.h"
#include "agent/seccomp_check.h"

#define	MAXFILTERS	3
#define	LENMOD		4100

/* ------------------------------------------------------------------ */
/* The model. */

enum { M_OK, M_LOAD, M_UNKNOWN, M_JUMP, M_END, M_NOTSUBSET };

/* Is ins in the model's subset?  Decoded by its bit fields. */
static int
in_subset(const struct sock_filter *ins)
{
	unsigned cls = ins->code & 0x07, rest = ins->code & ~0x07U;

	switch (cls) {
	case 0x00:	/* LD */
		return (rest == 0x20 || rest == 0x00);	/* W ABS, IMM */
	case 0x01:	/* LDX */
		return (rest == 0x00);			/* IMM */
	case 0x04:	/* ALU: ADD 0x00 SUB 0x10 OR 0x40 AND 0x50 XOR 0xa0 */
		if (rest == 0x80)
			return (1);			/* NEG */
		rest &= ~0x08U;				/* K or X */
		return (rest == 0x00 || rest == 0x10 || rest == 0x40 ||
		    rest == 0x50 || rest == 0xa0);
	case 0x05:	/* JMP: JA 0x00, JEQ 0x10 JGT 0x20 JGE 0x30 JSET 0x40 */
		if (rest == 0x00)
			return (1);
		rest &= ~0x08U;
		return (rest >= 0x10 && rest <= 0x40);
	case 0x06:	/* RET: K 0x00, A 0x10 */
		return (rest == 0x00 || rest == 0x10);
	case 0x07:	/* MISC: TAX 0x00, TXA 0x80 */
		return (rest == 0x00 || rest == 0x80);
	default:
		return (0);
	}
}

/* One instruction at pc with A and X; recursion, at most n deep. */
static int
model_at(const struct sock_filter *p, size_t n, size_t pc, uint32_t a,
    uint32_t x, const sc_input_t *in, uint32_t *retp)
{
	const struct sock_filter *ins;
	unsigned cls, op;
	uint32_t v;
	uint64_t target;
	int yes;

	if (pc >= n)
		return (M_END);
	ins = &p[pc];
	if (!in_subset(ins))
		return (M_NOTSUBSET);
	cls = ins->code & 0x07;
	op = ins->code & 0xf0;
	v = (ins->code & 0x08) ? x : ins->k;
	switch (cls) {
	case 0x00:
		if ((ins->code & 0xe0) == 0x20) {
			uint32_t k = ins->k;

			if (k > 60 || k % 4 != 0)
				return (M_LOAD);
			if (((in->si_known >> (k / 4)) & 1) == 0)
				return (M_UNKNOWN);
			a = (uint32_t)in->si_data[k] |
			    (uint32_t)in->si_data[k + 1] << 8 |
			    (uint32_t)in->si_data[k + 2] << 16 |
			    (uint32_t)in->si_data[k + 3] << 24;
		} else {
			a = ins->k;
		}
		break;
	case 0x01:
		x = ins->k;
		break;
	case 0x04:
		if (op == 0x00)
			a = a + v;
		else if (op == 0x10)
			a = a - v;
		else if (op == 0x40)
			a = a | v;
		else if (op == 0x50)
			a = a & v;
		else if (op == 0xa0)
			a = a ^ v;
		else
			a = ~a + 1;	/* NEG */
		break;
	case 0x05:
		if (op == 0x00) {
			target = (uint64_t)pc + 1 + ins->k;
		} else {
			yes = op == 0x10 ? a == v : op == 0x20 ? a > v :
			    op == 0x30 ? a >= v : (a & v) != 0;
			target = (uint64_t)pc + 1 + (yes ? ins->jt : ins->jf);
		}
		if (target >= n)
			return (M_JUMP);
		return (model_at(p, n, (size_t)target, a, x, in, retp));
	case 0x06:
		*retp = (ins->code & 0x10) ? a : ins->k;
		return (M_OK);
	default:
		if (ins->code & 0x80)
			a = x;
		else
			x = a;
		break;
	}
	return (model_at(p, n, pc + 1, a, x, in, retp));
}

/* Does a run's code say what the model's does? */
static int
same_kind(int model, int code)
{
	switch (model) {
	case M_OK:
		return (code == SC_OK);
	case M_LOAD:
		return (code == SC_ELOAD);
	case M_UNKNOWN:
		return (code == SC_UNKNOWN);
	case M_JUMP:
		return (code == SC_EJUMP);
	default:	/* M_END */
		return (code == SC_ENORET);
	}
}

/* ------------------------------------------------------------------ */

static int
known_code(int code)
{
	return (code >= SC_OK && code <= SC_ESTEPS &&
	    strcmp(sc_strerror(code), "an unknown fault") != 0);
}

/* Check one filter on its own; its run's code and return value. */
static int
check_filter(const struct sock_filter *p, size_t n, const sc_input_t *in,
    uint32_t *retp)
{
	sc_fault_t vf, rf;
	uint32_t ret = 0xdeadbeefU, mret = 0;
	int valid, code, model;

	valid = sc_validate(p, n, &vf);
	FUZZ_CHECK(known_code(valid) && valid != SC_UNKNOWN &&
	    valid != SC_ESTEPS);
	if (valid == SC_OK) {
		FUZZ_CHECK(n >= 1 && n <= SC_MAXINSNS);
		FUZZ_CHECK(p[n - 1].code == (BPF_RET | BPF_K) ||
		    p[n - 1].code == (BPF_RET | BPF_A));
	} else if (n >= 1 && n <= SC_MAXINSNS) {
		FUZZ_CHECK(vf.sf_pc < n);
	}

	code = sc_run(p, n, in, &ret, &rf);
	FUZZ_CHECK(known_code(code) && code != SC_ESTEPS);
	FUZZ_CHECK(rf.sf_code == code);
	FUZZ_CHECK(rf.sf_steps <= n);
	if (code != SC_OK)
		FUZZ_CHECK(ret == 0);
	if (code != SC_ELEN)
		FUZZ_CHECK(rf.sf_pc < n && rf.sf_steps >= 1);
	if (valid == SC_OK)
		FUZZ_CHECK(code == SC_OK || code == SC_UNKNOWN ||
		    code == SC_ESHIFT);

	/* The model, on the subset. */
	if (n >= 1 && n <= SC_MAXINSNS) {
		model = model_at(p, n, 0, 0, 0, in, &mret);
		if (model != M_NOTSUBSET) {
			FUZZ_CHECK(same_kind(model, code));
			if (model == M_OK)
				FUZZ_CHECK(ret == mret);
		}
	}
	*retp = ret;
	return (code);
}

/* The precedence, the kernel's way: signed order of the action. */
static int
before(uint32_t x, uint32_t y)
{
	return ((int32_t)(x & SECCOMP_RET_ACTION_FULL) <
	    (int32_t)(y & SECCOMP_RET_ACTION_FULL));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct sock_filter *prog[MAXFILTERS];
	sc_prog_t progs[MAXFILTERS];
	uint32_t rets[MAXFILTERS], comb, jret;
	int codes[MAXFILTERS], jcode, first_bad = -1;
	sc_fault_t jf;
	size_t nf, which, found;
	sc_input_t in;
	fuzz_in_t fi;

	if (len > FUZZ_MAXLEN)
		return (0);
	fuzz_in_init(&fi, data, len);
	nf = 1 + fuzz_u8(&fi) % MAXFILTERS;
	memset(&in, 0, sizeof (in));
	in.si_known = fuzz_u16(&fi);
	(void) fuzz_take(&fi, in.si_data, sizeof (in.si_data));

	for (size_t f = 0; f < nf; f++) {
		size_t n = fuzz_u16(&fi) % LENMOD;

		/* Exactly n instructions: a read past them is caught. */
		if ((prog[f] = malloc(n * sizeof (struct sock_filter))) ==
		    NULL && n > 0)
			abort();
		for (size_t i = 0; i < n; i++) {
			prog[f][i].code = fuzz_u16(&fi);
			prog[f][i].jt = fuzz_u8(&fi);
			prog[f][i].jf = fuzz_u8(&fi);
			prog[f][i].k = fuzz_u32(&fi);
		}
		progs[f].sp_insns = prog[f];
		progs[f].sp_len = n;
		codes[f] = check_filter(prog[f], n, &in, &rets[f]);
		if (codes[f] != SC_OK && first_bad < 0)
			first_bad = (int)f;
	}

	/* Together: the first fault, or the kernel's combination. */
	jcode = sc_judge(progs, nf, &in, &jret, &jf, &which);
	if (first_bad >= 0) {
		FUZZ_CHECK(jcode == codes[first_bad]);
		FUZZ_CHECK(which == (size_t)first_bad);
		FUZZ_CHECK(jret == 0);
	} else {
		comb = sc_combine(rets, nf);
		FUZZ_CHECK(jcode == SC_OK && jret == comb);
		for (size_t f = 0; f < nf; f++)
			FUZZ_CHECK(!before(rets[f], comb));
		/*
		 * Ties: the first (most recent) filter of that action; the
		 * kernel starts from SECCOMP_RET_ALLOW itself, so an ALLOW
		 * with data never replaces it.
		 */
		if ((comb & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ALLOW) {
			FUZZ_CHECK(comb == SECCOMP_RET_ALLOW);
		} else {
			for (found = 0; found < nf && rets[found] != comb;
			    found++)
				FUZZ_CHECK((rets[found] &
				    SECCOMP_RET_ACTION_FULL) != (comb &
				    SECCOMP_RET_ACTION_FULL));
			FUZZ_CHECK(found < nf);
		}
		FUZZ_CHECK(sc_combine(rets, 0) == SECCOMP_RET_ALLOW);
		for (int eok = 0; eok < 2; eok++) {
			sc_action_t act = sc_action(comb);

			if (sc_permits(comb, eok))
				FUZZ_CHECK(act == SC_ACT_ALLOW ||
				    act == SC_ACT_LOG || (eok &&
				    act == SC_ACT_ERRNO &&
				    (comb & SECCOMP_RET_DATA) != 0));
			FUZZ_CHECK(sc_action_name(act) != NULL);
		}
	}
	for (size_t f = 0; f < nf; f++)
		free(prog[f]);
	return (0);
}
