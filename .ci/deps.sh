#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# deps.sh PKG...: make sure the Debian packages a make target needs are
# present (the lists are in the top Makefile, DEPS_<target>).  As root,
# install the missing ones; otherwise print the exact apt-get line and fail.
# Silent, exit 0, when nothing is missing.

# Not Debian: nothing to ask; say what is needed and let the build try.
if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "deps: no dpkg-query, not checking for:" "$@" >&2
	exit 0
fi

missing=
for p in "$@"; do
	case " $missing " in *" $p "*) continue ;; esac
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
	case "$st" in
	*"install ok installed"*) ;;
	*)
		# node may come from elsewhere than Debian's nodejs package
		if [ "$p" = nodejs ] && command -v node >/dev/null 2>&1; then
			continue
		fi
		missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages; run as root:" >&2
	echo "    apt-get install -y$missing" >&2
	exit 1
fi

echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp "${TMPDIR:-/tmp}/deps.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT
# Wait for another apt (unattended-upgrades on a new VM) rather than fail.
apt_install() {
	apt-get install -y -q -o DPkg::Lock::Timeout=300 $missing >>"$log" 2>&1
}
# From the package lists there are; when that fails (none yet on a fresh
# container, or stale ones), update them and try again.  A failed update
# (one unreachable repository) is not fatal by itself.
if ! apt_install; then
	: >"$log"
	apt-get update -q -o DPkg::Lock::Timeout=300 >>"$log" 2>&1 ||
	    echo "deps: apt-get update failed; installing anyway" >&2
	if ! apt_install; then
		tail -n 15 "$log" >&2
		echo "deps: apt-get install -y$missing failed" >&2
		exit 1
	fi
fi
