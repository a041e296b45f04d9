#!/usr/bin/env bash
# Installs the Debian packages stackwalk needs to build, test, fuzz and
# benchmark. Idempotent: packages already present are left alone.
set -euo pipefail
packages=(
  meson ninja-build pkg-config gcc         # build
  help2man                                 # the stackwalk(1) man page
  libelf-dev zlib1g-dev                    # ELF, .sym.gz
  libzstd-dev                              # zstd-compressed ELF debug sections, cores
  liblzma-dev libiberty-dev                # MiniDebugInfo, demangling
  liblz4-dev                               # lz4-compressed snapshots
  libcapstone-dev                          # the crashing instruction's disassembly
  libc6-arm64-cross libc6-armhf-cross      # the C libraries testdata/cores ran with
  libc6-mips-cross libc6-mipsel-cross libc6-mips64el-cross libc6-ppc64el-cross
  libdeflate-dev                           # fast .sym.gz inflate
  libcurl4-openssl-dev libdebuginfod-dev   # symbol servers, debuginfod (optional)
  debuginfod                               # tests/debuginfod_test.py's server
  check                                    # unit tests
  python3                                  # conformance tests, JSON checks
  clang libclang-rt-14-dev                 # libFuzzer smoke runs
  time                                     # bench/: peak RSS
  g++ gdb libc6-dbg                        # tests/localcores.py: cores made here, gdb beside
)
# The firmware of tests/firmware.py: built with these compilers and run
# under qemu-system. Without their recommends: gcc-arm-none-eabi's would
# add newlib and qemu's a graphical stack (3 GB more, none of it used).
firmware_packages=(
  gcc-arm-none-eabi qemu-system-arm        # Cortex-M firmware
  gcc-riscv64-linux-gnu qemu-system-misc   # RV32 firmware
)
# The zoo (tests/zoo, docs/zoo.md): cross compilers and their C libraries
# (static ones too), qemu-user to run what they build, the host's 32-bit
# x86 C library (this kernel runs no i386 programs: qemu-i386 runs them
# with /lib32), musl, gdb and gdb-multiarch for gdb's answer on the same
# cores, binutils for every target. Without recommends: each cross
# compiler's C library is named here.
zoo_packages=(
  gcc gdb gdb-multiarch binutils-multiarch qemu-user musl-tools
  gcc-i686-linux-gnu libc6-dev-i386-cross libc6-i386
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross
  gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
  gcc-mips-linux-gnu libc6-dev-mips-cross
  gcc-mipsel-linux-gnu libc6-dev-mipsel-cross
  gcc-mips64el-linux-gnuabi64 libc6-dev-mips64el-cross
  gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross
  gcc-riscv64-linux-gnu libc6-dev-riscv64-cross
)
missing_of() {
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
  done
}
mapfile -t missing < <(missing_of "${packages[@]}")
mapfile -t missing_firmware < <(missing_of "${firmware_packages[@]}")
mapfile -t missing_zoo < <(missing_of "${zoo_packages[@]}")
if [ ${#missing[@]} -gt 0 ] || [ ${#missing_firmware[@]} -gt 0 ] || [ ${#missing_zoo[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  if [ ${#missing[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
  fi
  if [ ${#missing_firmware[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
      "${missing_firmware[@]}"
  fi
  if [ ${#missing_zoo[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
      "${missing_zoo[@]}"
  fi
fi
