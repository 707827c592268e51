# PoCL v7.1 with pocl-steal's pthread device, as a BinaryBuilder recipe in
# Yggdrasil's conventions.  Before running it, export the patches into
# bundled/ (from the top of pocl-steal):
#
#     ci/yggdrasil/export.sh ci/yggdrasil/bundled/patches/pocl
#
# then, with BinaryBuilder installed:  julia build_tarballs.jl --debug --verbose
#
# The build script below is also what pocl-steal's CI runs, extracted from
# this file, in a shim that stands in for BinaryBuilder (ci/yggdrasil/shim.sh).

using BinaryBuilder, Pkg

name = "pocl"
# Upstream v7.1 plus patches: past the 7.1.3 that Yggdrasil ships, so that
# the two cannot be mistaken for each other.
version = v"7.1.4"
# PoCL 7.1 accepts LLVM 17 to 21; pocl-steal's CI builds against 19.
llvm_version = v"19.1.7"

sources = [
    GitSource("https://github.com/pocl/pocl.git",
              "a6f7e5cc223cdf6254ff62ea1f37a9aa8a52d778"), # tag v7.1
    DirectorySource("./bundled"),
]

script = raw"""
cd ${WORKSPACE}/srcdir/pocl

# Yggdrasil's patches, then pocl-steal's series and driver, in file order.
for p in ${WORKSPACE}/srcdir/patches/pocl/*.patch; do
    atomic_patch -p1 "${p}"
done
install_license COPYING

# The LLVM tools that run during the build (clang for the kernel library):
# BinaryBuilder's native toolchain when there is one, else the build LLVM's.
if [[ -x /opt/${MACHTYPE}/bin/clang ]]; then
    llvm_tools=/opt/${MACHTYPE}/bin
else
    llvm_tools=$(${WORKSPACE}/srcdir/llvm-config --bindir)
fi

flags=(
    -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_INSTALL_PREFIX=${prefix}
    -DCMAKE_TOOLCHAIN_FILE=${CMAKE_TARGET_TOOLCHAIN}
    # llvm-config reporting the target's LLVM (see bundled/llvm-config),
    # linked statically into libpocl
    -DWITH_LLVM_CONFIG=${WORKSPACE}/srcdir/llvm-config
    -DLLVM_BINDIR=${llvm_tools}
    -DSTATIC_LLVM=ON
    # a driver for the ICD loader (OpenCL_jll), all devices linked in
    -DENABLE_ICD=ON
    -DENABLE_LOADABLE_DRIVERS=OFF
    # the cpu device from pocl-steal's driver, added by the patches
    -DPOCL_PTHREAD_DEVICE_DIR=${WORKSPACE}/srcdir/pocl/lib/CL/devices/pthread-steal
    # kernel libraries for a range of CPUs, picked at run time
    -DKERNELLIB_HOST_CPU_VARIANTS=distro
    -DHOST_CPU_ENABLE_STACK_SIZE_CHECK=ON
    -DPOCL_DEBUG_MESSAGES=ON
    -DENABLE_TESTS=OFF
    -DENABLE_EXAMPLES=OFF
)

if [[ "${target}" != "${MACHTYPE}" ]]; then
    # Cross-compiling: PoCL would take the triple and CPU from the build
    # machine's LLVM, and the kernel library needs the target's headers.
    triple=$(${llvm_tools}/clang --target=${target} -print-target-triple)
    flags+=(-DCMAKE_CROSSCOMPILING=ON -DLLVM_HOST_TARGET=${triple} -DLLC_TRIPLE=${triple})
    flags+=("-DEXTRA_KERNEL_C_FLAGS= -I/opt/${target}/${target}/sys-root/usr/include")
fi

cmake -S . -B build -G Ninja "${flags[@]}"
ninja -C build -j ${nproc} install
"""

# Linux and FreeBSD on x86_64 and aarch64.  The driver needs POSIX threads
# and C11 atomics; thread pinning and the NUMA topology (POCL_AFFINITY)
# are Linux-only, elsewhere threads run unpinned with a warning.  Windows is
# left out because the driver uses pthreads directly, macOS because nobody
# has built or tested the driver there.
platforms = [
    Platform("x86_64", "linux"; libc="glibc"),
    Platform("aarch64", "linux"; libc="glibc"),
    Platform("x86_64", "linux"; libc="musl"),
    Platform("aarch64", "linux"; libc="musl"),
    Platform("x86_64", "freebsd"),
    Platform("aarch64", "freebsd"),
]
platforms = expand_cxxstring_abis(platforms)

products = [
    LibraryProduct(["libpocl", "pocl"], :libpocl),
    ExecutableProduct("poclcc", :poclcc),
]

dependencies = [
    # LLVM is linked statically: only needed to build.  The host copy
    # provides an llvm-config that runs on the build machine.
    BuildDependency(PackageSpec(name="LLVM_full_jll", version=llvm_version)),
    HostBuildDependency(PackageSpec(name="LLVM_full_jll", version=llvm_version)),
    Dependency("OpenCL_jll"),
    BuildDependency("OpenCL_Headers_jll"),
    Dependency("Hwloc_jll"),
    Dependency("Zstd_jll"),
]

# Register libpocl with the ICD loader of OpenCL.jl.
init_block = raw"""
    if OpenCL_jll.is_available()
        push!(OpenCL_jll.drivers, libpocl)
    end
"""

build_tarballs(ARGS, name, version, sources, script, platforms, products,
               dependencies; preferred_gcc_version=v"12", julia_compat="1.10",
               init_block)
