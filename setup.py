"""The extension module muster._muster for `pip install .` (pyproject.toml
holds the rest): python/ext/*.c compiled against the libmuster that
`pkg-config muster` finds, and linked to it with its directory as the
run-time path.  muster.reserve's part only when that libmuster has
<muster/reserve.h> (it was built with the spark backend).  The autotools
build (`make install`) does not use this file."""
import glob
import os
import shlex
import subprocess

from setuptools import Extension, setup


def pkg_config(*args):
    try:
        return shlex.split(subprocess.run(["pkg-config", *args, "muster"], check=True,
                                          capture_output=True, text=True).stdout)
    except FileNotFoundError:
        raise SystemExit("muster: pkg-config is not installed (Debian: apt-get install pkg-config)")
    except subprocess.CalledProcessError as e:
        raise SystemExit("muster: pkg-config finds no libmuster (%s): install it first "
                         "(./configure && make && make install) and set PKG_CONFIG_PATH to "
                         "its lib/pkgconfig" % e.stderr.strip())


def split(flags, prefix):
    """(the values of the flags that start with `prefix`, the other flags)"""
    return ([f[len(prefix):] for f in flags if f.startswith(prefix)],
            [f for f in flags if not f.startswith(prefix)])


include_dirs, cflags = split(pkg_config("--cflags"), "-I")
library_dirs, libs = split(pkg_config("--libs"), "-L")
libraries, ldflags = split(libs, "-l")
reserve = any(os.path.isfile(os.path.join(d, "muster", "reserve.h"))
              for d in include_dirs + ["/usr/local/include", "/usr/include"])
sources = sorted(f for f in glob.glob("python/ext/*.c")
                 if reserve or os.path.basename(f) != "reserve.c")

setup(
    version=pkg_config("--modversion")[0],
    ext_modules=[Extension(
        "muster._muster", sources,
        include_dirs=include_dirs, extra_compile_args=cflags,
        define_macros=[("MUSTER_PYTHON_RESERVE", None)] if reserve else [],
        library_dirs=library_dirs, runtime_library_dirs=library_dirs,
        libraries=libraries, extra_link_args=ldflags)],
)
