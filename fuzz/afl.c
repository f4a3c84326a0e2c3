/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * afl.c: the AFL++ driver, persistent mode with shared-memory test cases.
 * afl-clang-fast defines the __AFL_* macros; built any other way this
 * file does not compile, on purpose.
 *
 * One process runs many inputs (__AFL_LOOP), each copied from AFL's
 * shared buffer into a malloc'd buffer of exactly its length: AFL's
 * buffer is larger than the input, so a read past the end of the input
 * would otherwise go unnoticed by AddressSanitizer.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

#ifndef	__AFL_FUZZ_TESTCASE_LEN
#error	"build with afl-clang-fast (or afl-clang-lto)"
#endif

__AFL_FUZZ_INIT();

int
main(void)
{
	const unsigned char *shm;
	uint8_t *copy;
	size_t len;

#ifdef	__AFL_HAVE_MANUAL_CONTROL
	__AFL_INIT();
#endif
	shm = __AFL_FUZZ_TESTCASE_BUF;	/* only after __AFL_INIT() */
	while (__AFL_LOOP(100000)) {
		len = (size_t)__AFL_FUZZ_TESTCASE_LEN;
		if ((copy = malloc(len)) == NULL)
			abort();
		memcpy(copy, shm, len);
		(void) LLVMFuzzerTestOneInput(copy, len);
		free(copy);
	}
	return (0);
}
