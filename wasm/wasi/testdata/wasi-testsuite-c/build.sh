#!/bin/sh
# Rebuilds the .wasm files beside this script from their C sources with
# Debian's WASI toolchain (clang 14, wasi-libc of 2022):
#
#	apt-get install -y clang lld wasi-libc libclang-rt-14-dev-wasm32
#	sh build.sh
set -eu
cd "$(dirname "$0")"
for src in *.c; do
	clang --target=wasm32-wasi -O2 -o "${src%.c}.wasm" "$src"
done
