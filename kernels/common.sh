# SPDX-License-Identifier: BSD-2-Clause
# common.sh: shared helpers sourced by the kernels/ scripts (fetch.sh,
# initramfs.sh, boot.sh): repository root, cache directory, package checks.

# The repository root is the parent of the folder this file lives in.
KERNELS_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$KERNELS_SRC/.." && pwd)
KERNELS_DIR=${KERNELS_DIR:-$REPO_ROOT/build/kernels}
# The meta-packages fetched when none is named.
DEFAULT_KERNEL_PKGS="linux-image-amd64 linux-image-6.12-amd64"

die() {
	echo "kernels: $*" >&2
	exit 1
}

say() {
	echo "kernels: $*" >&2
}

# need_pkgs PKG...: make sure the Debian packages are installed.  As root,
# install the missing ones; otherwise print the exact apt-get line and fail.
need_pkgs() {
	local missing="" p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "kernels: missing packages; run as root:" >&2
		echo "apt-get install -y$missing" >&2
		exit 1
	fi
	say "installing$missing"
	DEBIAN_FRONTEND=noninteractive apt-get install -y $missing >&2 ||
		die "apt-get install -y$missing failed"
}
