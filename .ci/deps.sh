#!/bin/sh
# deps.sh PKG...: make sure the Debian packages the suite needs are present.
# As root, install the missing ones; otherwise print the exact command.
missing=
for p in "$@"; do
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
if [ "$(id -u)" = 0 ]; then
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null && apt-get install -y -q $missing >/dev/null ||
	    { echo "deps: apt-get install$missing failed" >&2; exit 1; }
else
	echo "deps: missing Debian packages; run as root:" >&2
	echo "    apt-get install -y$missing" >&2
	exit 1
fi
