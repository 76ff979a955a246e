#!/bin/sh
# What `make install` (the top-level Makefile) says at its end: how to build, and for the
# shared library run, against an install that pkg-config or the loader does not search,
# with the install's own paths. Nothing for an install staged under DESTDIR (a
# packager's), nor where both already look.
#
#   sh ffi/install-hint.sh shared|static DESTDIR LIBDIR PKGCONFIGDIR
#
# pkg-config searches $PKG_CONFIG_PATH and its built-in pc_path; the loader
# $LD_LIBRARY_PATH and the folders ldconfig is configured with (`ldconfig -v -N -X`),
# whose cache ldconfig must refresh before a new library there is found. Folders are
# compared by their real paths (`pwd -P`), so /lib and /usr/lib are one folder where
# they are. The Makefile refuses paths with characters the shell would read.
set -u
kind=$1 destdir=$2 libdir=$3 pkgconfigdir=$4

[ -z "$destdir" ] || exit 0

# The real path of folder $1, or nothing when it does not exist.
real() { (cd "$1" 2>/dev/null && pwd -P); }

# Whether folder $1 is one of the folders of the ':'-separated list $2.
among() {
  want=$(real "$1")
  [ -n "$want" ] || return 1
  old_ifs=$IFS
  IFS=:
  set -f
  for dir in $2; do
    if [ -n "$dir" ] && [ "$(real "$dir")" = "$want" ]; then
      IFS=$old_ifs
      set +f
      return 0
    fi
  done
  IFS=$old_ifs
  set +f
  return 1
}

pc_path=$(pkg-config --variable pc_path pkg-config 2>/dev/null)
if ! among "$pkgconfigdir" "${PKG_CONFIG_PATH:-}:$pc_path"; then
  echo "make install: pkg-config does not search $pkgconfigdir; to build against this install:"
  echo "  export PKG_CONFIG_PATH=$pkgconfigdir\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}"
fi

[ "$kind" = shared ] || exit 0
among "$libdir" "${LD_LIBRARY_PATH:-}" && exit 0
ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
configured=$("$ldconfig" -v -N -X 2>/dev/null | sed -n 's|^\(/[^:]*\):.*|\1|p' | tr '\n' ':')
if among "$libdir" "$configured"; then
  echo "make install: the loader finds libagentloop.so in $libdir once ldconfig has refreshed its cache: run ldconfig (as root)."
else
  echo "make install: the loader does not search $libdir; to run programs linked with libagentloop.so:"
  echo "  export LD_LIBRARY_PATH=$libdir\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
  echo "  (or link them with -Wl,-rpath,$libdir)"
fi
