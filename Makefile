# Thin wrappers around CMake, run where PoCL 7.1 can be built: natively with
# LLVM 17-21, otherwise in a Debian 13 build root (see README.md).

.PHONY: all check shell clean

all:
	@ci/enter.sh ci/build.sh --demo

check:
	@ci/enter.sh ci/check.sh

shell:
	@ci/enter.sh bash

clean:
	rm -rf build
