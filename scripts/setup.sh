#!/usr/bin/env bash
# Installs the Debian packages stackwalk needs to build, test, fuzz and
# benchmark. Idempotent: packages already present are left alone.
set -euo pipefail
packages=(
  meson ninja-build pkg-config gcc         # build
  libelf-dev zlib1g-dev                    # ELF, .sym.gz
  liblzma-dev libiberty-dev                # MiniDebugInfo, demangling
  libc6-arm64-cross libc6-armhf-cross      # the C libraries testdata/cores ran with
  libc6-mips-cross libc6-mipsel-cross libc6-mips64el-cross libc6-ppc64el-cross
  libdeflate-dev                           # fast .sym.gz inflate
  check                                    # unit tests
  python3                                  # conformance tests, JSON checks
  clang libclang-rt-14-dev                 # libFuzzer smoke runs
  time                                     # bench/: peak RSS
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi
