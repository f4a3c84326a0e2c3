#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# btfcheck.sh [KVER ...]: the build check of the bpf source's program
# against each kernel's own types.
#
# The program is built from pfiles_ktypes.h, our declarations of the
# kernel's types, and relocated by the running kernel at load (CO-RE).
# This compiles it once more per kernel with PFB_VMLINUX_H naming a
# vmlinux.h made from that kernel's BTF, so that every member the program
# uses without asking whether the kernel has it must exist in that
# kernel, with a type C accepts where the program uses it.  The kernels:
# each KVER fetched by fetch.sh (its BTF is in the vmlinux that the
# package's vmlinuz holds, compressed; arm64's vmlinuz is the Image, whose
# .BTF section lies in it as it is), and the running kernel's
# /sys/kernel/btf/vmlinux when the guests are of the host's architecture.
# KERNELS_ARCH chooses the kernels' cache and libproc's ISA folder
# (common.sh).  Prints one line per kernel and exits 1 when any fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
top=$REPO_ROOT
BPF_CLANG=${BPF_CLANG:-clang}
BPFTOOL=${BPFTOOL:-$(command -v bpftool || echo /usr/sbin/bpftool)}
src=$top/libproc-patch/libproc/src/bpf
isa=$top/libproc-patch/libproc/isa/$ISA

# The vmlinux ELF inside a bzImage: the payload is the first stream of
# the compressor the kernel was built with (Debian: xz for 6.1, zstd for
# 6.12), found by its magic; what follows the stream is not ours.
extract_vmlinux() {	# vmlinuz out
	for fmt in xz zstd gzip; do
		case $fmt in
		xz)	magic='\xfd7zXZ\x00'; cmd="xz -dcq" ;;
		zstd)	magic='\x28\xb5\x2f\xfd'; cmd="zstd -dcq" ;;
		gzip)	magic='\x1f\x8b\x08\x00'; cmd="gzip -dcq" ;;
		esac
		off=$(LC_ALL=C grep -obUaP "$magic" "$1" 2>/dev/null |
		    head -n 1 | cut -d: -f1)
		[ -n "$off" ] || continue
		tail -c +$((off + 1)) "$1" | $cmd >"$2" 2>/dev/null
		# ELF magic: the stream was the kernel
		if [ "$(head -c 4 "$2" | od -An -c | tr -d ' ')" = \
		    "177ELF" ]; then
			return 0
		fi
	done
	return 1
}

# u32 FILE OFFSET: the little-endian 32-bit word at OFFSET.
u32() {
	od -An -j "$2" -N4 -tu4 "$1" | tr -d ' '
}

# The raw BTF blob inside an uncompressed kernel Image: at a magic
# 0xeB9F, version 1, whose header (24 bytes) puts the strings right
# after the types and whose whole is the size of a kernel's (over 1 MB;
# a module's or a stray match is not).
extract_btf() {	# image out
	local off hl toff tlen soff slen
	for off in $(LC_ALL=C grep -obUaP '\x9f\xeb\x01\x00\x18\x00\x00\x00' \
	    "$1" 2>/dev/null | cut -d: -f1); do
		toff=$(u32 "$1" $((off + 8)))
		tlen=$(u32 "$1" $((off + 12)))
		soff=$(u32 "$1" $((off + 16)))
		slen=$(u32 "$1" $((off + 20)))
		hl=24
		[ "$toff" = 0 ] && [ "$soff" = "$tlen" ] || continue
		[ $((tlen + slen)) -gt 1048576 ] || continue
		tail -c +$((off + 1)) "$1" | head -c $((hl + soff + slen)) >"$2"
		return 0
	done
	return 1
}

check_one() {	# name btf-file
	h=$KERNELS_DIR/btfcheck/vmlinux-$1.h
	mkdir -p "$KERNELS_DIR/btfcheck"
	if ! "$BPFTOOL" btf dump file "$2" format c >"$h.tmp" 2>/dev/null; then
		echo "btfcheck: $1: cannot read its BTF"
		return 1
	fi
	mv "$h.tmp" "$h"
	if "$BPF_CLANG" -target bpf -O2 -g -Wall -Wextra -Werror \
	    -I"$src" -I"$isa" -DPFB_VMLINUX_H="\"$h\"" \
	    -c "$src/pfiles.bpf.c" \
	    -o "$KERNELS_DIR/btfcheck/pfiles-$1.bpf.o" \
	    2>"$KERNELS_DIR/btfcheck/$1.log"; then
		echo "btfcheck: $1: the program builds against its types"
		return 0
	fi
	echo "btfcheck: $1: FAILED to build against its types:"
	head -n 20 "$KERNELS_DIR/btfcheck/$1.log"
	return 1
}

rc=0
for kver in "$@"; do
	z=$KERNELS_DIR/$kver/pkg/boot/vmlinuz-$kver
	v=$KERNELS_DIR/btfcheck/vmlinux-$kver
	mkdir -p "$KERNELS_DIR/btfcheck"
	if [ ! -s "$v" ] && ! extract_vmlinux "$z" "$v" &&
	    ! extract_btf "$z" "$v"; then
		echo "btfcheck: $kver: no vmlinux found in $z"
		rc=1
		continue
	fi
	check_one "$kver" "$v" || rc=1
done
if [ -z "$ROOTFS" ] && [ -r /sys/kernel/btf/vmlinux ]; then
	check_one "running-$(uname -r)" /sys/kernel/btf/vmlinux || rc=1
fi
exit $rc
