#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# deb-check.sh DEBDIR VERSION: install the packages make deb built (run as
# root), use them as a user and a developer would, and remove them again.
#
#  - dpkg -i pfiles, libproc1 and libproc-dev of this machine's
#    architecture (dpkg --print-architecture);
#  - /usr/bin/pfiles --version must say VERSION;
#  - the schema of pfiles -J is installed where pfiles --help says it is,
#    /usr/share/pfiles/pfiles.schema.json, and is a JSON Schema;
#  - the pfiles package's description says that --via=bpf is not
#    available exactly when the command was built without it;
#  - /usr/bin/pfiles on a process of this script's own (a sleep holding a
#    socketpair) must exit 0 and show the socket;
#  - a small program built with `pkg-config --cflags --libs libproc`
#    against the installed header and shared library must run: it prints
#    LIBPROC_VERSION (which must be VERSION) and walks the sleep's fds;
#  - dpkg -r the three, even when a step failed.
# Exits non-zero when a step failed, saying which.
set -u
debdir=$1
version=$2
rc=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/deb-check.XXXXXX") || exit 1
pid=

cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	dpkg -r pfiles libproc-dev libproc1 >/dev/null 2>&1 ||
	    echo "deb-check: dpkg -r failed"
	rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
	echo "deb-check: FAILED: $*"
	rc=1
}

arch=$(dpkg --print-architecture)
if ! dpkg -i "$debdir/pfiles_${version}_$arch.deb" \
    "$debdir/libproc1_${version}_$arch.deb" \
    "$debdir/libproc-dev_${version}_$arch.deb" >"$tmp/dpkg.log" 2>&1; then
	cat "$tmp/dpkg.log"
	fail "dpkg -i"
	exit 1
fi
echo "deb-check: installed:"
dpkg-query -W pfiles libproc1 libproc-dev

got=$(/usr/bin/pfiles --version)
echo "deb-check: /usr/bin/pfiles --version: $got"
[ "$got" = "pfiles from pfiles-linux $version" ] || fail "pfiles --version"

# The schema of -J: where --help says, which is the package's place.
schema=/usr/share/pfiles/pfiles.schema.json
named=$(/usr/bin/pfiles --help |
    sed -n 's|^ *\(/.*/pfiles\.schema\.json\)$|\1|p')
echo "deb-check: pfiles --help names the schema: $named"
[ "$named" = "$schema" ] || fail "pfiles --help names '$named', not $schema"
if [ -s "$schema" ] && grep -q '"\$schema"' "$schema"; then
	echo "deb-check: $schema installed"
else
	fail "$schema is not installed, or is no JSON Schema"
fi

# The description says --via=bpf is not available exactly when the
# command was built without the BPF program.
desc=$(dpkg-query -W -f='${Description}' pfiles)
if grep -aq 'built without BPF support' /usr/bin/pfiles; then
	case $desc in
	*"--via=bpf is not available"*) ;;
	*) fail "built without BPF, and the description does not say so" ;;
	esac
else
	case $desc in
	*"--via=bpf is not available"*)
		fail "the description says there is no BPF program" ;;
	esac
fi

# A process of our own that holds a socketpair: perl, which dpkg needs,
# so it is on every Debian machine.
perl -e 'use Socket; socketpair(my $a, my $b, AF_UNIX, SOCK_STREAM, 0)
    or die; $| = 1; print "ready\n"; sleep 60' >"$tmp/ready" &
pid=$!
for i in 1 2 3 4 5 6 7 8 9 10; do
	grep -q ready "$tmp/ready" 2>/dev/null && break
	sleep 0.2
done
if /usr/bin/pfiles "$pid" >"$tmp/pfiles.out" 2>&1; then
	head -n 3 "$tmp/pfiles.out"
	grep -q 'S_IFSOCK' "$tmp/pfiles.out" || fail "pfiles shows no socket"
	grep -q 'SOCK_STREAM' "$tmp/pfiles.out" ||
	    fail "pfiles shows no socket details"
else
	cat "$tmp/pfiles.out"
	fail "/usr/bin/pfiles $pid"
fi

cat >"$tmp/t.c" <<'EOT'
#include <stdio.h>
#include <stdlib.h>
#include <libproc.h>

static int
count(void *arg, const prfdinfo_t *info)
{
	(void) info;
	(*(int *)arg)++;
	return (0);
}

int
main(int argc, char **argv)
{
	struct ps_prochandle *P;
	int err, n = 0;

	if (argc != 2)
		return (2);
	printf("%s\n", LIBPROC_VERSION);
	if ((P = Pgrab(atoi(argv[1]), PGRAB_RDONLY, &err)) == NULL) {
		fprintf(stderr, "Pgrab: %s\n", Pgrab_error(err));
		return (1);
	}
	if (Pfdinfo_iter(P, count, &n) != 0 || n < 3) {
		fprintf(stderr, "Pfdinfo_iter: %d fds\n", n);
		return (1);
	}
	printf("%d fds\n", n);
	Prelease(P, 0);
	return (0);
}
EOT
flags=$(pkg-config --cflags --libs libproc) || fail "pkg-config libproc"
echo "deb-check: cc \$(pkg-config --cflags --libs libproc): $flags"
# shellcheck disable=SC2086
if cc -o "$tmp/t" "$tmp/t.c" $flags; then
	if "$tmp/t" "$pid" >"$tmp/t.out" 2>&1; then
		cat "$tmp/t.out"
		[ "$(head -n 1 "$tmp/t.out")" = "$version" ] ||
		    fail "LIBPROC_VERSION is not $version"
		ldd "$tmp/t" | grep -q '/libproc\.so\.1 ' ||
		    fail "not linked with the installed libproc.so.1"
	else
		cat "$tmp/t.out"
		fail "the program built with pkg-config"
	fi
else
	fail "cc with pkg-config's flags"
fi
[ $rc = 0 ] && echo "deb-check: ok"
exit $rc
