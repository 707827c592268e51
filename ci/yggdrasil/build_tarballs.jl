# PoCL v7.2 with pocl-steal's pthread device, as a BinaryBuilder recipe in
# the conventions of Yggdrasil's P/pocl (which ships 7.2.2: upstream v7.2
# plus Julia's patch series, LLVM 22.1).  Before running it, export our
# patches into bundled/, numbered after Yggdrasil's own (from the top of
# pocl-steal, with a PoCL 7.2 tree):
#
#     POCL_SOURCE=<pocl 7.2 tree> ci/yggdrasil/export.sh \
#         ci/yggdrasil/bundled/patches/pocl --after <Yggdrasil>/P/pocl/pocl/bundled/patches/pocl
#
# copy Yggdrasil's bundled/patches/pocl/*.patch next to them, then, with
# BinaryBuilder installed:  julia build_tarballs.jl --debug --verbose
#
# The build script below is also what pocl-steal's CI runs, extracted from
# this file, in a shim that stands in for BinaryBuilder (ci/yggdrasil/shim.sh)
# with PoCL v7.2-RC1 standing in for the v7.2 commit and without Yggdrasil's
# patches, the SPIR-V translator and SLEEF, which the shim cannot obtain.

using BinaryBuilder, Pkg
using Base.BinaryPlatforms

# In Yggdrasil's tree, as P/pocl/pocl/build_tarballs.jl.
const YGGDRASIL_DIR = "../../.."
include(joinpath(YGGDRASIL_DIR, "fancy_toys.jl"))
include(joinpath(YGGDRASIL_DIR, "platforms", "macos_sdks.jl"))

name = "pocl"
# Past the 7.2.2 that Yggdrasil ships, so that the two cannot be mistaken
# for each other.
version = v"7.2.3"
# As Yggdrasil's 7.2 build; PoCL 7.2 accepts LLVM 18 to 23.
llvm_version = v"22.1.1"

sources = [
    DirectorySource("./bundled"),
    GitSource("https://github.com/pocl/pocl.git",
              "888c9774b94590fff1afef003154ca2c0ea66605"), # tag v7.2
    # SPIR-V input through the translator's library, built here against the
    # same LLVM and linked into libpocl (one LLVM in the process); the
    # revision Yggdrasil pins for LLVM 22.1.
    GitSource("https://github.com/KhronosGroup/SPIRV-LLVM-Translator.git",
              "c88a2e4a1ec77f7adc8916940afd9754c3a30fab"),
]
# LLVM 22 needs the macOS 11.0 SDK; the helper adds it and a script prefix.
sources, macos_sdk_script = require_macos_sdk("11.0", sources, "")

script = raw"""
# The build machine's LLVM tools (clang for the kernel library, and the
# tools PoCL 7.2 looks for beside llvm-config): BinaryBuilder's native
# toolchain when there is one, else those of the build's LLVM.
native_bin=/opt/${MACHTYPE}/bin
if [[ ! -x ${native_bin}/clang ]]; then
    native_bin=$(${WORKSPACE}/srcdir/llvm-config --bindir)
fi
llvm_version=$(${WORKSPACE}/srcdir/llvm-config --version)
llvm_major=${llvm_version%%.*}
llvm_minor=${llvm_version#*.}; llvm_minor=${llvm_minor%%.*}

# 1. The SPIR-V translator as a static library, against the build's LLVM
#    (its component libraries, not the LLVM dylib: libpocl links LLVM
#    statically and must hold one copy).  It is installed into ${prefix},
#    where PoCL's configuration finds it, and removed again at the end.
spirv_src=${WORKSPACE}/srcdir/SPIRV-LLVM-Translator
spirv_flags=()
if [[ -d ${spirv_src} ]]; then
    pushd ${spirv_src}
    install_license LICENSE.TXT
    sed -i '/add_llvm_library(/a DISABLE_LLVM_LINK_LLVM_DYLIB' lib/SPIRV/CMakeLists.txt
    sed -i '/add_llvm_tool(/a DISABLE_LLVM_LINK_LLVM_DYLIB' tools/llvm-spirv/CMakeLists.txt
    toolchain=${CMAKE_TARGET_TOOLCHAIN}
    if [[ "${target}" == *-mingw* ]]; then
        toolchain=${CMAKE_TARGET_TOOLCHAIN%.*}_clang.cmake
    fi
    cmake -S . -B build -G Ninja \
        -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_INSTALL_PREFIX=${prefix} \
        -DCMAKE_TOOLCHAIN_FILE=${toolchain} \
        -DCMAKE_CROSSCOMPILING=ON \
        -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
        -DLLVM_DIR=${prefix}/lib/cmake/llvm \
        -DBASE_LLVM_VERSION=${llvm_major}.${llvm_minor} \
        -DLLVM_SPIRV_INCLUDE_TESTS=OFF
    ninja -C build -j ${nproc} install
    popd
    spirv_flags=(-DLLVM_SPIRV_INCLUDEDIR=${prefix}/include/LLVMSPIRVLib
                 -DLLVM_SPIRV_LIB=${prefix}/lib/libLLVMSPIRVLib.a)
fi

# 2. PoCL: Yggdrasil's patches, then pocl-steal's series and driver, in
#    file order (the export numbers ours after theirs).
cd ${WORKSPACE}/srcdir/pocl
for p in ${WORKSPACE}/srcdir/patches/pocl/*.patch; do
    atomic_patch -p1 "${p}"
done
install_license LICENSE

# The kernel library is compiled for the target: give clang its headers.
sysroot=/opt/${target}/${target}/sys-root
if [[ "${target}" == *-apple-* ]]; then
    sysroot=${SDKROOT:-${sysroot}}
fi
sysroot_include=${sysroot}/usr/include
if [[ "${target}" == *-mingw* ]]; then
    sysroot_include=${sysroot}/include
    sed -i 's/_aligned_malloc/__mingw_aligned_malloc/g' include/vccompat.hpp
fi
if [[ "${target}" == *-apple-* ]]; then
    sed -i '1s/^/#include <TargetConditionals.h>\n/' ${sysroot_include}/stdio.h
fi
sed -i "s|COMMENT \"Building C to LLVM bitcode \${BC_FILE}\"|\"-I${sysroot_include}\"|" \
    cmake/bitcode_rules.cmake
# LLVM 22 moved DTLTO out of LLVMLTO; PoCL 7.2's list of static LLVM
# libraries predates that.
if (( llvm_major >= 22 )); then
    sed -i '/  LLVMLTO/a\  LLVMDTLTO' cmake/SetupLLVMviaCMake.cmake
fi

# PoCL 7.2 takes the build machine's LLVM tools from the directory of the
# llvm-config it is given: put our llvm-config (see bundled/llvm-config)
# there with the native tools.
host_llvm=${WORKSPACE}/srcdir/llvm-host-bin
mkdir -p ${host_llvm}
cp ${WORKSPACE}/srcdir/llvm-config ${host_llvm}/llvm-config
chmod +x ${host_llvm}/llvm-config
for tool in clang clang++ opt llc llvm-as llvm-dis llvm-link; do
    ln -sf ${native_bin}/${tool} ${host_llvm}/${tool}
    if [[ "${target}" == *-mingw* ]]; then
        ln -sf ${native_bin}/${tool} ${host_llvm}/${tool}.exe
    fi
done

triple=$(clang -print-target-triple)
cpu=$(clang --print-supported-cpus 2>&1 | grep -P '\t' | head -n 1 | tr -d '[:space:]')

toolchain=${CMAKE_TARGET_TOOLCHAIN}
if [[ "${target}" == *-mingw* ]]; then
    toolchain=${CMAKE_TARGET_TOOLCHAIN%.*}_clang.cmake
fi

flags=(
    -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_INSTALL_PREFIX=${prefix}
    -DCMAKE_TOOLCHAIN_FILE=${toolchain}
    -DCMAKE_CROSSCOMPILING=ON
    -DCMAKE_CXX_FLAGS=-D__STDC_FORMAT_MACROS
    -DBUILD_SHARED_LIBS=ON
    # the target's LLVM (its CMake package) linked statically, the build
    # machine's tools beside llvm-config, the triple and CPU from clang
    -DLLVM_DIR=${prefix}/lib/cmake/llvm
    -DWITH_LLVM_CONFIG=${host_llvm}/llvm-config
    -DLLVM_BINDIR=${native_bin}
    -DLLVM_HOST_TARGET=${triple}
    -DLLC_TRIPLE=${triple}
    -DLLC_HOST_CPU_AUTO=${cpu}
    -DSTATIC_LLVM=ON
    # a driver for the ICD loader (OpenCL_jll), all devices linked in
    -DENABLE_ICD=ON
    -DENABLE_LOADABLE_DRIVERS=OFF
    -DENABLE_LEVEL0=OFF
    -DENABLE_POCL_BUILDING=OFF
    # kernels loaded in process (Yggdrasil's series), kernel libraries for
    # a range of CPUs picked at run time, work-group sizes that fit the stack
    -DHOST_CPU_ENABLE_JIT=ON
    -DKERNELLIB_HOST_CPU_VARIANTS=distro
    -DHOST_CPU_ENABLE_STACK_SIZE_CHECK=ON
    -DPOCL_DEBUG_MESSAGES=ON
    -DENABLE_TESTS=OFF
    -DENABLE_EXAMPLES=OFF
    "${spirv_flags[@]}"
)

# The cpu device from pocl-steal's driver (added by the patches) where it
# runs: Linux and FreeBSD.  On macOS and Windows, PoCL's own pthread driver.
if [[ "${target}" == *-linux-* || "${target}" == *-freebsd* ]]; then
    flags+=(-DPOCL_PTHREAD_DEVICE_DIR=${WORKSPACE}/srcdir/pocl/lib/CL/devices/pthread-steal)
fi

if [[ "${target}" == *-mingw* ]]; then
    flags+=(-DHOST_CPU_COMPILER_RT_LIBRARY_SOURCE=$(gcc -print-libgcc-file-name))
    link="-pthread -Wl,--allow-multiple-definition"
    flags+=("-DCMAKE_EXE_LINKER_FLAGS=${link}" "-DCMAKE_SHARED_LINKER_FLAGS=${link}"
            "-DCMAKE_MODULE_LINKER_FLAGS=${link}")
else
    flags+=(-DCMAKE_EXE_LINKER_FLAGS=-pthread)
fi
if [[ "${target}" == *-freebsd* ]]; then
    flags+=(-DHOST_COMPILER_SUPPORTS_FLOAT16=OFF)
fi
if [[ "${target}" == riscv64-* ]]; then
    flags+=(-DLLC_HOST_CPU=rv64gc -DKERNELLIB_HOST_CPU_VARIANTS=native)
fi

# Vectorised math builtins through SLEEF's GNU ABI library, where LLVM has
# a vector library for the target and SLEEF_jll provides it.
sleef=${prefix}/lib/libsleefgnuabi.so
if [[ -e ${sleef} ]]; then
    case "${target}" in
        x86_64-linux-* | x86_64-*freebsd*)
            flags+=(-DENABLE_HOST_CPU_VECTORIZE_LIBMVEC=ON -DLIBMVEC=${sleef}
                    -DLIBMVEC_HAS_REQUIRED_SYMBOLS=ON) ;;
        aarch64-linux-* | aarch64-*freebsd*)
            flags+=(-DENABLE_HOST_CPU_VECTORIZE_SLEEF=ON -DLIBSLEEF=${sleef}) ;;
    esac
fi

cmake -S . -B build -G Ninja "${flags[@]}"
ninja -C build -j ${nproc} install

# The translator is inside libpocl now; do not ship its files.
rm -rf ${prefix}/include/LLVMSPIRVLib
rm -f ${prefix}/lib/libLLVMSPIRVLib.a ${prefix}/lib/pkgconfig/LLVMSPIRVLib.pc \
      ${prefix}/bin/llvm-spirv ${prefix}/bin/llvm-spirv.exe
"""

# Yggdrasil's platforms for PoCL 7.2.  Our driver is built on Linux and
# FreeBSD (see the script); macOS and Windows get PoCL's own.
platforms = expand_cxxstring_abis(supported_platforms())
filter!(p -> !(arch(p) == "i686" && libc(p) == "musl"), platforms)
filter!(p -> !(arch(p) == "i686" && os(p) == "windows"), platforms)

products = [
    LibraryProduct(["libpocl", "pocl"], :libpocl),
    ExecutableProduct("poclcc", :poclcc),
]

dependencies = [
    # LLVM is linked statically: only needed to build.  The host copy
    # provides an llvm-config that runs on the build machine.
    HostBuildDependency(PackageSpec(name="LLVM_full_jll", version=string(llvm_version))),
    BuildDependency(PackageSpec(name="LLVM_full_jll", version=string(llvm_version))),
    Dependency("OpenCL_jll"),
    Dependency("OpenCL_Headers_jll"),
    Dependency("Hwloc_jll"),
    Dependency("Zstd_jll"),
]

# Register libpocl with the ICD loader of OpenCL.jl.
init_block = raw"""
    if OpenCL_jll.is_available()
        push!(OpenCL_jll.drivers, libpocl)
    end
"""

# One build per platform: SLEEF where the script uses it, NUMA on Linux,
# and GCC 12 for
# _Float16 (13 on Windows, as Yggdrasil).  --register and --deploy go to
# the last build only.
args = filter(a -> startswith(a, "--"), ARGS)
selected = filter(p -> should_build_platform(triplet(p)), platforms)
for (i, platform) in enumerate(selected)
    deps = copy(dependencies)
    if (Sys.islinux(platform) || Sys.isfreebsd(platform)) &&
       arch(platform) in ("x86_64", "aarch64")
        push!(deps, Dependency("SLEEF_jll"))
    end
    # libnuma tells POCL_AFFINITY=1 the NUMA nodes to spread threads over
    # (without it, one node is assumed, with a warning).
    if Sys.islinux(platform)
        push!(deps, Dependency("NUMA_jll"))
    end
    these_args = i == lastindex(selected) ? args :
        filter(a -> a != "--register" && !startswith(a, "--deploy"), args)
    build_tarballs(these_args, name, version, sources,
                   macos_sdk_script * script, [platform], products, deps;
                   preferred_gcc_version=Sys.iswindows(platform) ? v"13" : v"12",
                   preferred_llvm_version=Base.thismajor(llvm_version),
                   julia_compat="1.10", init_block)
end
