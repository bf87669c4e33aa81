# python_preload EXT: let this shell's python processes load the extension
# EXT (tests/python/lib.sh, tests/install/installed.sh); sets $asan to the
# runtime preloaded, empty for a build without sanitizers.
#
# The sanitizer build: the extension is linked to libasan, the interpreter
# is not, and ASan must be the first library in the process, so its runtime
# is preloaded (LD_PRELOAD, the very file the extension names), with
# libstdc++ after it so that ASan finds __cxa_throw for C++ libraries loaded
# later (PyTorch's; without it their first throw aborts in ASan's CHECK).  Python's
# own allocations at exit are not ours to report: detect_leaks=0 (the tests
# check reference counts and RSS instead).
python_preload() {
	asan=$(ldd "$1" 2>/dev/null | sed -n 's/^[[:space:]]*libasan[^ ]* => \([^ ]*\) .*/\1/p')
	[ -n "$asan" ] || return 0
	cxx=$(ldd "$1" 2>/dev/null | sed -n 's/^[[:space:]]*libstdc++[^ ]* => \([^ ]*\) .*/\1/p')
	[ -n "$cxx" ] || cxx=$(${CXX:-g++} -print-file-name=libstdc++.so 2>/dev/null)
	LD_PRELOAD=$asan${cxx:+:$cxx}${LD_PRELOAD:+:$LD_PRELOAD}
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	export LD_PRELOAD ASAN_OPTIONS
}
