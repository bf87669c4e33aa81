# examples/plugin: a third-party plugin, built the way its users build it
# (its own Makefile and `pkg-config --cflags muster-plugin`), not by
# automake.  tests/abi/out-of-tree.sh compiles it against the build tree
# and loads it into the real `muster` program; tests/install/installed.sh
# builds and installs it against an installed tree.
EXTRA_DIST += \
	examples/plugin/README.md \
	examples/plugin/Makefile \
	examples/plugin/hostfile.c \
	examples/plugin/hosts.example
