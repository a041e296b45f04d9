#!/usr/bin/env python3
"""The .snap writer as a device project builds it (docs/snap-format.md, "The
writer"): formats/snap_writer.c compiled for a Cortex-M0 with
arm-none-eabi-gcc -Os -Wall -Wextra -Werror -ffreestanding -nostdlib (and
for RV32 when riscv64-linux-gnu-gcc is there), with the warnings strict
device projects turn on. Checks that it includes only <stddef.h>,
<stdint.h> and <string.h>, needs nothing from a C library or the compiler's
runtime but memcpy, and recurses nowhere; reports its code size and its
worst-case stack (from GCC's -fcallgraph-info=su: the deepest call chain
from each public function, frames summed, the write callback's own stack
not counted); fails past the budgets below.

Usage: snap_writer_size.py FORMATS_DIR WORK_DIR. Exit 77 (meson's "skipped")
without arm-none-eabi-gcc."""
import os
import re
import shutil
import subprocess
import sys

# Budgets: about 1.5 times what the writer takes today, so that a change
# that bloats it is noticed.
MAX_TEXT = {"cortex-m0": 3072, "rv32imac": 4096}
MAX_STACK = {"cortex-m0": 192, "rv32imac": 256}

WARNINGS = ["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-Wshadow", "-Wconversion",
            "-Wsign-conversion", "-Wcast-qual", "-Wstrict-prototypes", "-Wmissing-prototypes",
            "-Wundef", "-Wcast-align"]
ALLOWED_INCLUDES = {"<stddef.h>", "<stdint.h>", "<string.h>", '"snap_writer.h"'}
ALLOWED_UNDEFINED = {"memcpy"}

src_dir, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
os.makedirs(work, exist_ok=True)
src = os.path.join(src_dir, "snap_writer.c")
FIRMWARE_INCLUDE = os.path.join(src_dir, "..", "testdata", "firmware", "common", "include")
failed = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failed.append(what)


for name in ("snap_writer.c", "snap_writer.h"):
    text = open(os.path.join(src_dir, name)).read()
    includes = set(re.findall(r'^\s*#\s*include\s+([<"][^>"]+[>"])', text, re.M))
    check(includes <= ALLOWED_INCLUDES, "%s includes only %s (has %s)" %
          (name, ", ".join(sorted(ALLOWED_INCLUDES)), ", ".join(sorted(includes))))
    check("SPDX-License-Identifier: MIT" in text.splitlines()[0], name + " starts with its SPDX line")


def parse_callgraph(path):
    """Nodes (title -> own stack bytes) and edges of a .ci file (VCG)."""
    nodes, edges = {}, {}
    for line in open(path):
        m = re.match(r'node: \{ title: "([^"]+)" label: "[^"]*\\n(\d+) bytes', line)
        if m:
            nodes[m.group(1)] = int(m.group(2))
            continue
        m = re.match(r'node: \{ title: "([^"]+)"', line)
        if m:
            nodes.setdefault(m.group(1), 0)   # memcpy, the callback: not ours
            continue
        m = re.match(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"', line)
        if m:
            edges.setdefault(m.group(1), set()).add(m.group(2))
    return nodes, edges


def worst_stack(nodes, edges):
    """The deepest chain's bytes from each public function; raises on a cycle."""
    memo, active = {}, set()

    def depth(n):
        if n in memo:
            return memo[n]
        if n in active:
            raise RuntimeError("recursion through " + n)
        active.add(n)
        d = nodes.get(n, 0) + max((depth(c) for c in edges.get(n, ())), default=0)
        active.discard(n)
        memo[n] = d
        return d

    # Public functions have plain titles; static ones are "file:name".
    return {n: depth(n) for n in nodes if n.startswith("snap_")}


def build(target, cc, flags, tools_prefix):
    if not shutil.which(cc):
        print("skip  %s: %s not found" % (target, cc))
        return None
    obj = os.path.join(work, target + ".o")
    # No C library's headers: GCC's freestanding ones and the firmware's
    # <string.h> (memcpy), as a device project without newlib builds it
    # (and Debian's cross compilers without their recommended C libraries).
    gcc_include = subprocess.run([cc, "-print-file-name=include"], capture_output=True,
                                 text=True).stdout.strip()
    headers = ["-nostdinc", "-isystem", gcc_include, "-I", FIRMWARE_INCLUDE]
    cmd = [cc] + flags + headers + ["-Os", "-ffreestanding", "-nostdlib", "-fstack-usage",
                                    "-fcallgraph-info=su"] + WARNINGS + ["-c", src, "-o", obj]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=work)
    check(p.returncode == 0, "%s: builds with %s" % (target, " ".join(cmd[1:-4])))
    if p.returncode != 0:
        print(p.stderr)
        return None
    sizes = {}
    out = subprocess.run([tools_prefix + "size", "-A", obj], capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1].isdigit():
            sizes[parts[0]] = int(parts[1])
    text = sizes.get(".text", 0)
    rodata = sum(v for k, v in sizes.items() if k.startswith(".rodata"))
    data = sizes.get(".data", 0) + sizes.get(".bss", 0)
    undefined = set(subprocess.run([tools_prefix + "nm", "-u", obj], capture_output=True,
                                   text=True).stdout.split()) - {"U"}
    check(undefined <= ALLOWED_UNDEFINED, "%s: needs nothing but memcpy (needs %s)" %
          (target, ", ".join(sorted(undefined)) or "nothing"))
    # Other optimisation levels call other helpers (a switch's table, a
    # 64-bit shift): a project may build at any of them.
    for level in ("-O0", "-O2", "-O3"):
        other = os.path.join(work, target + level + ".o")
        # The same headers as above: without them the compiler looks for
        # a C library's <string.h>, which a bare cross compiler lacks.
        p = subprocess.run([cc] + flags + headers + [level, "-ffreestanding", "-c", src,
                                                     "-o", other],
                           capture_output=True, text=True, cwd=work)
        needs = set(subprocess.run([tools_prefix + "nm", "-u", other], capture_output=True,
                                   text=True).stdout.split()) - {"U"}
        check(p.returncode == 0 and needs <= ALLOWED_UNDEFINED,
              "%s %s: builds, needs nothing but memcpy (needs %s)" %
              (target, level, ", ".join(sorted(needs)) or "nothing"))
    check(data == 0, "%s: no static data (.data + .bss = %d bytes)" % (target, data))
    nodes, edges = parse_callgraph(obj[:-2] + ".ci")
    try:
        stacks = worst_stack(nodes, edges)
    except RuntimeError as e:
        check(False, "%s: no recursion (%s)" % (target, e))
        return None
    check(True, "%s: no recursion" % target)
    worst = max(stacks.values())
    check(text <= MAX_TEXT[target], "%s: .text %d bytes (budget %d)" % (target, text, MAX_TEXT[target]))
    check(worst <= MAX_STACK[target], "%s: worst stack %d bytes (budget %d)" % (target, worst, MAX_STACK[target]))
    print("      %s: .text %d, .rodata %d, worst stack %d bytes (%s); per call: %s" % (
        target, text, rodata, worst, max(stacks, key=stacks.get),
        ", ".join("%s %d" % (k, v) for k, v in sorted(stacks.items()))))
    return text


if not shutil.which("arm-none-eabi-gcc"):
    print("arm-none-eabi-gcc not found: skipped")
    sys.exit(77)
build("cortex-m0", "arm-none-eabi-gcc", ["-mcpu=cortex-m0", "-mthumb"], "arm-none-eabi-")
# Debian's riscv64-linux-gnu-gcc has no rv32 C library headers: a freestanding
# compile with GCC's own headers and a <string.h> that declares memcpy.
rv = shutil.which("riscv64-linux-gnu-gcc")
if rv:
    inc = subprocess.run([rv, "-print-file-name=include"], capture_output=True, text=True).stdout.strip()
    stub = os.path.join(work, "stub")
    os.makedirs(stub, exist_ok=True)
    with open(os.path.join(stub, "string.h"), "w") as f:
        f.write("#include <stddef.h>\nvoid *memcpy(void *, const void *, size_t);\n")
    build("rv32imac", "riscv64-linux-gnu-gcc",
          ["-march=rv32imac_zicsr", "-mabi=ilp32", "-nostdinc", "-isystem", stub, "-isystem", inc],
          "riscv64-linux-gnu-")
else:
    print("skip  rv32imac: riscv64-linux-gnu-gcc not found")
print("snap_writer_size: %d failed" % len(failed))
sys.exit(1 if failed else 0)
