# Shared by the known-issue reproducers (sourced after tests/boot/lib.sh).

# kt_initrd DIR: DIR/initrd.img = out/initramfs.img plus a cpio of the guest
# side (tests/known/guest/toggle.sh as /kt/toggle.sh, kc-toggle).
kt_initrd() {
	local dir=$1 out=$PS_TOP/${OUT:-out} root=$1/extra
	case $out in /*) ;; *) out=$PWD/$out ;; esac
	rm -rf "$root"
	mkdir -p "$root/kt"
	cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -static -I"$PS_TOP/kmod/uapi" \
		-o "$root/kt/kc-toggle" "$PS_TOP/tests/known/guest/kc-toggle.c" || return 1
	install -m 755 "$PS_TOP/tests/known/guest/toggle.sh" "$root/kt/toggle.sh"
	# The kernel unpacks concatenated archives; the first is padded to 4 bytes.
	cp "$out/initramfs.img" "$dir/initrd.img"
	truncate -s $((($(stat -c %s "$dir/initrd.img") + 3) / 4 * 4)) "$dir/initrd.img"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) >>"$dir/initrd.img"
}
