# Thin wrappers around CMake, run where PoCL can be built: natively with an
# LLVM that PoCL 7.1, 7.2 and main accept (18-21), otherwise in a Debian 13
# build root (see README.md and docs/versions.md).

.PHONY: all check bench bench-smoke install uninstall yggdrasil-export shell clean

all:
	@ci/enter.sh ci/build.sh --demo

check:
	@ci/enter.sh ci/check.sh

bench:
	@ci/enter.sh ci/bench.sh

bench-smoke:
	@ci/enter.sh ci/bench.sh --smoke --out build/bench-smoke

# A built prefix copied to PREFIX, and removed again (ci/install.sh; plain
# file copying, no build environment): VARIANT ours (default), stock, tsan,
# asan or linked; VERSION one of build/pocl-versions.txt (default: the main
# build); REGISTER=1 also writes pocl-steal.icd into ICD_VENDORS_DIR
# (default /etc/OpenCL/vendors).  BUILD: the build directory (default build).
install:
	@ci/install.sh install --prefix "$(PREFIX)" --variant "$(VARIANT)" \
	  --version "$(VERSION)" --register "$(REGISTER)" \
	  --vendors-dir "$(ICD_VENDORS_DIR)" --build "$(BUILD)"

uninstall:
	@ci/install.sh uninstall --prefix "$(PREFIX)"

# The series and the driver as patches for Yggdrasil's PoCL recipe, into
# ci/yggdrasil/bundled/patches/pocl, made on the PoCL tree POCL_SOURCE names
# (a 7.2 tree for the 7.2 recipe; YGGDRASIL_AFTER=<dir of the recipe's
# existing patches> numbers them after those).
yggdrasil-export:
	@ci/yggdrasil/export.sh ci/yggdrasil/bundled/patches/pocl $(if $(YGGDRASIL_AFTER),--after $(YGGDRASIL_AFTER))

shell:
	@ci/enter.sh bash

clean:
	rm -rf build
