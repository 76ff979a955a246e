# Builds libagentloop and installs it as a C library: the header (and agentloop.hpp, the
# C++ wrapper beside it), the shared library
# (libagentloop.so.<N>.<MINOR>.<PATCH>, its SONAME link libagentloop.so.<N> and the
# development link libagentloop.so), the static library, and agentloop.pc and
# agentloop-static.pc for pkg-config.
#
#   make                                  cargo build --release -p agentloop-ffi
#   make install PREFIX=/usr/local        then `ldconfig` when PREFIX is a system one
#   make install DESTDIR=/tmp/stage PREFIX=/usr LIBDIR=/usr/lib/x86_64-linux-gnu
#   make uninstall PREFIX=/usr/local      the same PREFIX, LIBDIR, DESTDIR … as install
#
# install-shared and install-static install one kind of library (each with the header
# and its .pc file). The install targets run cargo only when a library is missing: build
# as yourself, install as root. Installed (not staged under DESTDIR) where pkg-config or
# the loader does not look, they say what to set (ffi/install-hint.sh). pc-in-place
# regenerates c-examples/agentloop.pc and c-examples/agentloop-static.pc.
#
# Where things come from, so nothing is said twice: the SONAME is read from the built
# libagentloop.so (ffi/build.rs sets it), MINOR and PATCH from the package version in
# Cargo.toml, and the .pc files from ffi/*.pc.in. ELF platforms (Linux, the
# BSDs) only. Why a Makefile rather than cargo-c: docs/c-api.md, "Build and link".

ROOT       := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))

CARGO      ?= cargo
CARGOFLAGS ?=
# Cargo's profile (release, debug, or a custom one) and where its output is.
PROFILE    ?= release
TARGET_DIR ?= $(or $(CARGO_TARGET_DIR),$(ROOT)/target)
ARTIFACTS  ?= $(TARGET_DIR)/$(PROFILE)

PREFIX       ?= /usr/local
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DESTDIR      ?=
INSTALL      ?= install
READELF      ?= readelf

SHARED := $(ARTIFACTS)/libagentloop.so
STATIC := $(ARTIFACTS)/libagentloop.a
HEADER := $(ROOT)/include/agentloop.h
HEADER_CPP := $(ROOT)/include/agentloop.hpp
PC_IN  := $(ROOT)/ffi/agentloop.pc.in
PC_STATIC_IN := $(ROOT)/ffi/agentloop-static.pc.in
IN_PLACE_PC ?= $(ROOT)/c-examples/agentloop.pc
IN_PLACE_STATIC_PC ?= $(ROOT)/c-examples/agentloop-static.pc

# The version of the workspace's packages (agentloop-ffi inherits it).
VERSION := $(shell sed -n '/^\[workspace\.package\]/,/^\[/s/^version *= *"\([^"]*\)".*/\1/p' '$(ROOT)/Cargo.toml')
MINOR    = $(word 2,$(subst ., ,$(VERSION)))
PATCH    = $(word 3,$(subst ., ,$(VERSION)))

# A directory as agentloop.pc gives it: under ${prefix} when it is under PREFIX.
pc_dir = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
# The template $(5) (agentloop.pc.in or agentloop-static.pc.in) for prefix $(1), libdir
# $(2) and includedir $(3), with the comment line $(4) saying which copy it is, to
# standard output.
render_pc = sed -e 's|@PREFIX@|$(1)|g' -e 's|@LIBDIR@|$(2)|g' -e 's|@INCLUDEDIR@|$(3)|g' \
	-e 's|@VERSION@|$(VERSION)|g' -e 's|@WHICH@|$(4)|g' '$(5)'
# Writes the template $(1) for the install's paths to $(2) in PKGCONFIGDIR.
install_pc_file = $(INSTALL) -d "$(DESTDIR)$(PKGCONFIGDIR)" && \
	$(call render_pc,$(PREFIX),$(call pc_dir,$(LIBDIR)),$(call pc_dir,$(INCLUDEDIR)),Installed by `make install`.,$(1)) \
	  > "$(DESTDIR)$(PKGCONFIGDIR)/$(2).tmp" && \
	mv -f "$(DESTDIR)$(PKGCONFIGDIR)/$(2).tmp" "$(DESTDIR)$(PKGCONFIGDIR)/$(2)"
# What to set to build (and, for $(1) = shared, run) against LIBDIR when pkg-config or
# the loader does not look there; nothing when staged under DESTDIR.
install_hint = sh '$(ROOT)/ffi/install-hint.sh' $(1) '$(DESTDIR)' '$(LIBDIR)' '$(PKGCONFIGDIR)'

.PHONY: all build install install-shared install-static install-header install-pc \
	install-static-pc shared-files static-files uninstall check-install-paths \
	check-version pc-in-place

all: build

build:
	$(CARGO) build $(CARGOFLAGS) -p agentloop-ffi --profile $(if $(filter debug,$(PROFILE)),dev,$(PROFILE))

# Built only when missing: `make install` does not rebuild.
$(SHARED) $(STATIC):
	$(CARGO) build $(CARGOFLAGS) -p agentloop-ffi --profile $(if $(filter debug,$(PROFILE)),dev,$(PROFILE))

install: shared-files static-files
	@$(call install_hint,shared)

install-shared: shared-files
	@$(call install_hint,shared)

install-static: static-files
	@$(call install_hint,static)

# The paths go into shell words and sed expressions unquoted by anything but "…" and
# '…': refuse the characters that would change their meaning, and relative paths,
# which agentloop.pc cannot use.
check-install-paths:
	@for p in 'PREFIX=$(PREFIX)' 'LIBDIR=$(LIBDIR)' 'INCLUDEDIR=$(INCLUDEDIR)' \
	    'PKGCONFIGDIR=$(PKGCONFIGDIR)' 'DESTDIR=$(DESTDIR)'; do \
	  name=$${p%%=*}; value=$${p#*=}; \
	  case "$$name:$$value" in \
	    DESTDIR:) ;; \
	    *:*[!A-Za-z0-9._+@=:,/-]*) echo "make: $$name '$$value' holds a character other than letters, digits and . _ + @ = : , / -" >&2; exit 1 ;; \
	    DESTDIR:*) ;; \
	    *:/*) ;; \
	    *) echo "make: $$name '$$value' is not an absolute path" >&2; exit 1 ;; \
	  esac; \
	done

check-version:
	@printf '%s\n' '$(VERSION)' | grep -Eqx '[0-9]+\.[0-9]+\.[0-9]+' || { \
	  echo "make: the package version '$(VERSION)' (Cargo.toml, [workspace.package]) is not MAJOR.MINOR.PATCH" >&2; \
	  exit 1; }

install-header: check-install-paths
	$(INSTALL) -d "$(DESTDIR)$(INCLUDEDIR)"
	$(INSTALL) -m 644 '$(HEADER)' "$(DESTDIR)$(INCLUDEDIR)/agentloop.h"
	$(INSTALL) -m 644 '$(HEADER_CPP)' "$(DESTDIR)$(INCLUDEDIR)/agentloop.hpp"

install-pc: check-install-paths check-version
	$(call install_pc_file,$(PC_IN),agentloop.pc)

install-static-pc: check-install-paths check-version
	$(call install_pc_file,$(PC_STATIC_IN),agentloop-static.pc)

static-files: $(STATIC) install-header install-pc install-static-pc
	$(INSTALL) -d "$(DESTDIR)$(LIBDIR)"
	$(INSTALL) -m 644 '$(STATIC)' "$(DESTDIR)$(LIBDIR)/libagentloop.a"

# The file under its full version, the SONAME link the loader follows and the
# development link the linker's -lagentloop finds.
shared-files: $(SHARED) install-header install-pc
	@set -e; \
	soname=$$(LC_ALL=C $(READELF) -d '$(SHARED)' | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p'); \
	if ! printf '%s\n' "$$soname" | grep -Eqx 'libagentloop\.so\.[0-9]+'; then \
	  echo "make: $(SHARED) has the SONAME '$$soname' ($(READELF) -d), not libagentloop.so.<N>" >&2; exit 1; \
	fi; \
	real=$$soname.$(MINOR).$(PATCH); \
	echo "installing $$real, $$soname -> $$real, libagentloop.so -> $$soname in $(DESTDIR)$(LIBDIR)"; \
	$(INSTALL) -d "$(DESTDIR)$(LIBDIR)"; \
	$(INSTALL) -m 755 '$(SHARED)' "$(DESTDIR)$(LIBDIR)/$$real"; \
	ln -sfn "$$real" "$(DESTDIR)$(LIBDIR)/$$soname"; \
	ln -sfn "$$soname" "$(DESTDIR)$(LIBDIR)/libagentloop.so"

# Removes what install put there, the shared library by following the installed links
# (so it needs no build): libagentloop.so -> libagentloop.so.<N> -> the file.
uninstall: check-install-paths
	@set -e; \
	lib="$(DESTDIR)$(LIBDIR)"; \
	if [ -L "$$lib/libagentloop.so" ]; then \
	  soname=$$(readlink "$$lib/libagentloop.so"); \
	  if printf '%s\n' "$$soname" | grep -Eqx 'libagentloop\.so\.[0-9]+' && [ -L "$$lib/$$soname" ]; then \
	    real=$$(readlink "$$lib/$$soname"); \
	    if printf '%s\n' "$$real" | grep -Eqx 'libagentloop\.so\.[0-9]+\.[0-9]+\.[0-9]+'; then \
	      rm -f "$$lib/$$real"; \
	    fi; \
	    rm -f "$$lib/$$soname"; \
	  fi; \
	fi; \
	rm -f "$$lib/libagentloop.so" "$$lib/libagentloop.a" \
	  "$(DESTDIR)$(INCLUDEDIR)/agentloop.h" "$(DESTDIR)$(INCLUDEDIR)/agentloop.hpp" \
	  "$(DESTDIR)$(PKGCONFIGDIR)/agentloop.pc" "$(DESTDIR)$(PKGCONFIGDIR)/agentloop-static.pc"

# c-examples/agentloop.pc and agentloop-static.pc: the library in place in a source
# checkout (the release build).
in_place_pc = $(call render_pc,$${pcfiledir}/..,$${prefix}/target/release,$${prefix}/include,This copy describes the release build in place (PKG_CONFIG_PATH=c-examples).,$(1)) \
	  > '$(2).tmp' && mv -f '$(2).tmp' '$(2)'
pc-in-place: check-version
	$(call in_place_pc,$(PC_IN),$(IN_PLACE_PC))
	$(call in_place_pc,$(PC_STATIC_IN),$(IN_PLACE_STATIC_PC))
