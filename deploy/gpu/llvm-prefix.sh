#!/usr/bin/env bash
# Lets `cargo build --release -p schedlab-experiments --features cuda` build where GitHub is out
# of reach (docs/learned.md, "GPU"). cubecl-cuda 0.11 always links cubecl-llvm, whose build
# downloads a prebuilt LLVM 23 (tracel-llvm) from GitHub into the folder below unless it is
# already there. This script fills that folder from Debian's LLVM 19 instead:
#   - llvm-config is wrapped: Debian's names Z3 by its path, which the bundler would link as
#     `-llibz3`; and its lib folder gains an archive of the eight LLVM 20+ C functions that
#     llvm-sys 231 declares and LLVM 19 lacks.
#   - Those functions abort if called. Nothing calls them: schedlab turns on cubecl's `cuda-cpp`
#     (experiments/Cargo.toml), so kernels go to NVRTC as CUDA C++, never through LLVM.
# Run once per machine, as the user who builds, before the first cuda build; it installs the
# Debian packages below where they are missing (which needs root).
set -euo pipefail
LLVM=/usr/lib/llvm-19
PREFIX="${XDG_DATA_HOME:-$HOME/.local/share}/tracel/tracel-llvm-23.1.0-4"

packages=(llvm-19-dev libpolly-19-dev libzstd-dev libz3-dev libxml2-dev zlib1g-dev)
if ! dpkg -s "${packages[@]}" > /dev/null 2>&1; then
  apt-get install -y "${packages[@]}"
fi

rm -rf "$PREFIX"
mkdir -p "$PREFIX/bin" "$PREFIX/lib"
ln -s "$LLVM/include" "$PREFIX/include"
for file in "$LLVM"/lib/*; do
  ln -s "$file" "$PREFIX/lib/"
done

missing=(LLVMSetAtomicSyncScopeID LLVMParseIRInContext2 LLVMOrcCreateNewThreadSafeContextFromLLVMContext
  LLVMIsAtomic LLVMGetSyncScopeID LLVMBuildFenceSyncScope LLVMBuildAtomicRMWSyncScope
  LLVMBuildAtomicCmpXchgSyncScope)
stubs="$PREFIX/lib/llvm20_missing.c"
{
  echo '#include <stdio.h>'
  echo '#include <stdlib.h>'
  for name in "${missing[@]}"; do
    echo "void $name(void) { fputs(\"$name: an LLVM 20 function, absent from this build's LLVM 19 (deploy/gpu/llvm-prefix.sh)\\n\", stderr); abort(); }"
  done
} > "$stubs"
gcc -O2 -fPIC -c "$stubs" -o "$PREFIX/lib/llvm20_missing.o"
ar rcs "$PREFIX/lib/libllvm20_missing.a" "$PREFIX/lib/llvm20_missing.o"

cat > "$PREFIX/bin/llvm-config" <<EOF
#!/bin/sh
# Debian's LLVM 19 standing in for tracel-llvm 23 (deploy/gpu/llvm-prefix.sh).
out=\$($LLVM/bin/llvm-config "\$@") || exit \$?
case " \$* " in
  *" --libdir "*) echo "$PREFIX/lib" ;;
  *" --libs "*) echo "\$out -lllvm20_missing" ;;
  *) echo "\$out" | sed 's#[^ ]*/libz3\\.so#-lz3#g' ;;
esac
EOF
chmod +x "$PREFIX/bin/llvm-config"
touch "$PREFIX/.tracel-llvm-installed"
echo "LLVM prefix ready: $PREFIX"
