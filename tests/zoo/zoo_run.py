"""zoo_run: builds zoo programs, crashes them, walks their snapshots with
stackwalk three ways and judges every walk (and gdb's) against the truth
the program recorded (tests/zoo/README.md). The library behind
tests/zoo/run, tests/zoo/check_fixtures.py and scripts/zoo_campaign.sh.

    cpu = CPUS["aarch64"]
    cpu.missing(build)            # [] or the tools this machine lacks
    res = run_one(seed, "aarch64", "all", stackwalk, root)
    res.line()                    # "seed CPU FLAGS CRASH  full=... gdb=..."

Per CPU:
  x86_64   natively; the kernel's core (core_pattern `core`), gdb on it.
  i386 and the qemu-user CPUs: under qemu-user, which writes
           qemu_PROG_DATE_PID.core (no NT_FILE, no ELF-header pages: the
           walker finds the modules through link_map); gdb-multiarch on the
           same core, told the program's load offset (AT_ENTRY - e_entry)
           with `symbol-file -o` (../shared/NOTES.md).
  riscv64  qemu 7.2 writes no riscv cores: the program runs under qemu's
           gdb stub, and at the fatal signal testdata/cores/offline_capture.py
           writes an offline snapshot folder of the stopped thread; gdb's
           answer is its backtrace of that same stop.
"""
import glob
import json
import os
import random
import resource
import shutil
import struct
import subprocess
import tempfile
import time

import zoo_gen
import zoo_truth

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
OFFLINE_CAPTURE = os.path.join(REPO, "testdata", "cores", "offline_capture.py")
ZOO_GDB = os.path.join(HERE, "zoo_gdb.py")
MUSL_LIBDIRS = ["/lib", "/usr/lib/x86_64-linux-musl"]


class Cpu:
    """How to build and run programs for one CPU.

    cc       the C compiler (its binutils are cc minus "gcc" plus the tool)
    qemu     the qemu-user command line, or None: natively
    sysroot  qemu's -L and gdb's sysroot (the C library the program ran with)
    libdirs  the symbol paths that hold that C library
    offline  True: no core (qemu 7.2 riscv); an offline capture instead"""

    def __init__(self, name, cc, qemu, sysroot, libdirs, offline=False, packages=(), crt_dir=None):
        self.name = name
        self.crt_dir = crt_dir or os.path.join(sysroot, "lib")
        self.cc = cc
        self.qemu = qemu
        self.sysroot = sysroot
        self.libdirs = libdirs
        self.offline = offline
        self.packages = packages   # Debian packages that provide the tools

    @property
    def gdb(self):
        return "gdb" if self.qemu is None else "gdb-multiarch"

    def missing(self, b=None):
        """What this machine lacks to run build b (or any build of this
        CPU): [] when nothing."""
        need = [self.cc, tool(self.cc, "strip"), tool(self.cc, "objcopy"), tool(self.cc, "nm"),
                tool(self.cc, "readelf")]
        if self.qemu:
            need.append(self.qemu[0])
        if self.offline:
            need.append("gdb-multiarch")
        if b is not None and b.musl:
            need.append("musl-gcc")
        out = [t for t in need if not shutil.which(t)]
        if not self.qemu and not self.offline:
            out += native_core_missing()
        crt = os.path.join(self.crt_dir, "crt1.o")
        if b is not None and b.musl:
            crt = "/usr/lib/x86_64-linux-musl/crt1.o"
        if not os.path.exists(crt):
            out.append(crt)
        if b is not None and b.static and not os.path.exists(os.path.join(os.path.dirname(crt), "libc.a")):
            out.append(os.path.join(os.path.dirname(crt), "libc.a"))
        for d in self.libdirs[:1]:
            if not os.path.isdir(d):
                out.append(d)
        return out


def native_core_missing():
    """A program run natively leaves its core as `core` or `core.PID` in
    its folder only where the kernel's core_pattern says so and the hard
    core-size limit allows one; elsewhere (apport, systemd-coredump, a
    container's fixed pattern) that is what the machine lacks."""
    try:
        pattern = open("/proc/sys/kernel/core_pattern").read().strip()
    except OSError:
        pattern = ""
    out = []
    if pattern.startswith("|") or "/" in pattern or not pattern.startswith("core"):
        out.append("a core_pattern writing core in the working folder (it is %r)" % pattern)
    if resource.getrlimit(resource.RLIMIT_CORE)[1] == 0:
        out.append("a core-size limit above 0")
    return out


# aarch64 runs as a Cortex-A72: qemu's default "max" CPU has pointer
# authentication, whose mask its cores do not carry, and an SVE signal
# record gdb 13.1 rejects (testdata/cores/README.md). i386 runs under
# qemu-i386 with the host's /lib32 (this kernel runs no 32-bit x86; the
# cross sysroot's ld.so with the host's ld.so.cache is a mismatched pair).
CPUS = {c.name: c for c in [
    Cpu("x86_64", "gcc", None, "/", ["/lib/x86_64-linux-gnu"], packages=("gcc", "gdb"),
        crt_dir="/usr/lib/x86_64-linux-gnu"),
    Cpu("i386", "i686-linux-gnu-gcc", ["qemu-i386"], "/", ["/lib32", "/lib"],
        packages=("gcc-i686-linux-gnu", "libc6-i386", "qemu-user"),
        crt_dir="/usr/i686-linux-gnu/lib"),
    Cpu("aarch64", "aarch64-linux-gnu-gcc", ["qemu-aarch64", "-cpu", "cortex-a72"],
        "/usr/aarch64-linux-gnu", ["/usr/aarch64-linux-gnu/lib"],
        packages=("gcc-aarch64-linux-gnu", "qemu-user")),
    Cpu("armhf", "arm-linux-gnueabihf-gcc", ["qemu-arm"], "/usr/arm-linux-gnueabihf",
        ["/usr/arm-linux-gnueabihf/lib"], packages=("gcc-arm-linux-gnueabihf", "qemu-user")),
    Cpu("mips", "mips-linux-gnu-gcc", ["qemu-mips"], "/usr/mips-linux-gnu",
        ["/usr/mips-linux-gnu/lib"], packages=("gcc-mips-linux-gnu", "qemu-user")),
    Cpu("mipsel", "mipsel-linux-gnu-gcc", ["qemu-mipsel"], "/usr/mipsel-linux-gnu",
        ["/usr/mipsel-linux-gnu/lib"], packages=("gcc-mipsel-linux-gnu", "qemu-user")),
    Cpu("mips64el", "mips64el-linux-gnuabi64-gcc", ["qemu-mips64el"],
        "/usr/mips64el-linux-gnuabi64", ["/usr/mips64el-linux-gnuabi64/lib"],
        packages=("gcc-mips64el-linux-gnuabi64", "qemu-user")),
    Cpu("ppc64le", "powerpc64le-linux-gnu-gcc", ["qemu-ppc64le"], "/usr/powerpc64le-linux-gnu",
        ["/usr/powerpc64le-linux-gnu/lib"], packages=("gcc-powerpc64le-linux-gnu", "qemu-user")),
    Cpu("riscv64", "riscv64-linux-gnu-gcc", ["qemu-riscv64"], "/usr/riscv64-linux-gnu",
        ["/usr/riscv64-linux-gnu/lib"], offline=True,
        packages=("gcc-riscv64-linux-gnu", "libc6-dev-riscv64-cross", "qemu-user",
                  "gdb-multiarch")),
]}

FAMILIES = {
    # With unwind tables (.eh_frame; .ARM.exidx on armhf).
    "unwind": "-funwind-tables -fasynchronous-unwind-tables",
    # Without: the walk has frame records ...
    "fp": "-fno-omit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables",
    # ... or only prologue analysis and validated scanning.
    "nofp": "-fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables",
}
WAYS = ("full", "stripped", "alone")
# gdb's backtrace is printed whole up to twice this, else as its first and
# last GDB_FRAMES frames (zoo_gdb.py).
GDB_FRAMES = 2000
# gdb looping on a broken stack (it happens: an unwinder that never stops
# growing sp) is killed after this long; what it printed is judged.
GDB_TIMEOUT = 180


class Build:
    """One program's build choices, drawn from its seed (the same on every
    machine; whether this machine can build it is Cpu.missing's business)."""

    def __init__(self, seed, cpu, family):
        rng = random.Random(seed * 104729 + 3)
        self.cpu = cpu
        self.family = family if family != "all" else rng.choice(sorted(FAMILIES))
        self.opt = rng.choice(["-O0", "-O1", "-O2", "-O2", "-O3", "-Os"])
        # g: -g, run unstripped; nog: no -g; debuglink: -g, run stripped
        # with the DWARF in NAME.debug beside it (a distribution's way).
        self.debug = rng.choice(["g", "nog", "debuglink"])
        link = ["pie", "nopie", "static"]
        self.link = rng.choice(link + ["pie"])
        self.musl = cpu == "x86_64" and rng.random() < 0.25
        self.arm_isa = rng.choice(["-marm", "-mthumb"]) if cpu == "armhf" else ""

    def cflags(self):
        f = [self.opt, FAMILIES[self.family]]
        if self.debug != "nog":
            f.append("-g")
        if self.arm_isa:
            f.append(self.arm_isa)
        return " ".join(f)

    def label(self):
        parts = [self.family, self.opt, self.debug, self.link]
        if self.musl:
            parts.append("musl")
        if self.arm_isa:
            parts.append(self.arm_isa[2:])
        return ",".join(parts)

    @property
    def cc(self):
        return "musl-gcc" if self.musl else CPUS[self.cpu].cc

    @property
    def static(self):
        return self.link == "static"


def sh(cmd, cwd=None, timeout=300, env=None):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env,
                       shell=isinstance(cmd, str), errors="replace")
    return p.returncode, p.stdout, p.stderr


def tool(cc, name):
    """The binutils tool of cc's target (aarch64-linux-gnu-strip ...)."""
    if cc in ("gcc", "musl-gcc"):
        return name
    return cc[: -len("gcc")] + name


def build(program, b, work):
    """Compiles into work/: bin/ (what runs: the files of full/), full/
    (what a user with every file has: unstripped, or stripped with
    NAME.debug beside), stripped/ (no symbols, no DWARF; unwind tables
    kept, as a distribution strips), ref/ (unstripped copies: the truth's
    symbol tables). Returns an error text or None."""
    cc = b.cc
    src = os.path.join(work, "src")
    program.write(src)
    shutil.copy(os.path.join(HERE, "zoo_rt.h"), src)
    shutil.copy(os.path.join(HERE, "zoo_rt.c"), src)
    for d in ("bin", "full", "stripped", "ref"):
        os.makedirs(os.path.join(work, d), exist_ok=True)
    # Relative source names: DWARF says src/prog.c, not the work folder.
    flags = b.cflags() + " -std=gnu17 -w -Wl,--build-id -ffile-prefix-map=%s=src" % src
    if b.static:
        cmd = "%s %s -static -o ../ref/prog prog.c lib.c zoo_rt.c -pthread" % (cc, flags)
        files = ["prog"]
    else:
        pie = "-fPIE -pie" if b.link == "pie" else "-fno-PIE -no-pie"
        cmd = ("%s %s -fPIC -shared -o ../ref/libzoo.so lib.c zoo_rt.c -pthread && "
               "%s %s %s -o ../ref/prog prog.c -L../ref -lzoo -Wl,-rpath,'$ORIGIN' -pthread"
               % (cc, flags, cc, flags, pie))
        files = ["prog", "libzoo.so"]
    code, out, err = sh(cmd, cwd=src)
    if code:
        return "build failed: " + (err or out)[-2000:]
    strip, objcopy = tool(cc, "strip"), tool(cc, "objcopy")
    for f in files:
        ref = os.path.join(work, "ref", f)
        stripped = os.path.join(work, "stripped", f)
        sh([strip, "--strip-all", "-R", ".comment", "-o", stripped, ref])
        full = os.path.join(work, "full", f)
        if b.debug == "debuglink":
            dbg = full + ".debug"
            sh([objcopy, "--only-keep-debug", ref, dbg])
            shutil.copy(stripped, full)
            sh([objcopy, "--add-gnu-debuglink=" + f + ".debug", f], cwd=os.path.join(work, "full"))
            shutil.copy(dbg, os.path.join(work, "bin"))
        else:
            shutil.copy(ref, full)
        shutil.copy(full, os.path.join(work, "bin", f))
    return None


def elf_header(path):
    """(64-bit, byte order, e_entry, [(p_type, p_offset, p_vaddr, p_filesz,
    p_memsz)]) of an ELF file or core."""
    with open(path, "rb") as f:
        head = f.read(64)
        wide = head[4] == 2
        end = "<" if head[5] == 1 else ">"
        if wide:
            entry, phoff = struct.unpack(end + "QQ", head[24:40])
            phentsize, phnum = struct.unpack(end + "HH", head[54:58])
        else:
            entry, phoff = struct.unpack(end + "II", head[24:32])
            phentsize, phnum = struct.unpack(end + "HH", head[42:46])
        f.seek(phoff)
        table = f.read(phentsize * phnum)
    phdrs = []
    for i in range(phnum):
        raw = table[i * phentsize:(i + 1) * phentsize]
        if wide:
            ptype, _, off, vaddr, _, filesz, memsz = struct.unpack(end + "IIQQQQQ", raw[:48])
        else:
            ptype, off, vaddr, _, filesz, memsz = struct.unpack(end + "IIIIII", raw[:24])
        phdrs.append((ptype, off, vaddr, filesz, memsz))
    return wide, end, entry, phdrs


class CoreMemory:
    """A core's notes and memory, read the way a debugger reads them: the
    PT_LOAD segments' bytes where the file holds them (qemu-user leaves out
    the mappings that start with an ELF header: their p_filesz is 0)."""

    def __init__(self, path):
        self.path = path
        self.wide, self.end, _, phdrs = elf_header(path)
        self.word = 8 if self.wide else 4
        self.fmt = self.end + ("Q" if self.wide else "I")
        with open(path, "rb") as f:
            self.data = f.read()
        self.loads = [(vaddr, memsz, off, filesz) for ptype, off, vaddr, filesz, memsz in phdrs
                      if ptype == 1]
        self.notes = []
        for ptype, off, _, filesz, _ in phdrs:
            if ptype != 4:              # PT_NOTE
                continue
            p, endp = off, off + filesz
            while p + 12 <= endp:
                namesz, descsz, ntype = struct.unpack(self.end + "III", self.data[p:p + 12])
                desc = p + 12 + ((namesz + 3) & ~3)
                self.notes.append((ntype, self.data[desc:desc + descsz]))
                p = desc + ((descsz + 3) & ~3)

    def auxv(self):
        """AT_* number -> value (NT_AUXV)."""
        out = {}
        w = self.word
        for ntype, desc in self.notes:
            if ntype == 6:
                for k in range(0, len(desc) - 2 * w + 1, 2 * w):
                    key, val = struct.unpack(self.end + self.fmt[1] * 2, desc[k:k + 2 * w])
                    out[key] = val
        return out

    def segment(self, addr):
        for vaddr, memsz, off, filesz in self.loads:
            if vaddr <= addr < vaddr + memsz:
                return vaddr, memsz, off, filesz
        return None

    def read(self, addr, size):
        seg = self.segment(addr)
        if not seg or addr + size > seg[0] + seg[3]:
            return None
        off = seg[2] + addr - seg[0]
        return self.data[off:off + size]

    def word_at(self, addr):
        raw = self.read(addr, self.word)
        return struct.unpack(self.fmt, raw)[0] if raw else None

    def string_at(self, addr, limit=4096):
        seg = self.segment(addr)
        if not seg:
            return None
        raw = self.read(addr, min(limit, seg[0] + seg[3] - addr)) or b""
        return raw.split(b"\0", 1)[0].decode("utf-8", "replace")


AT_ENTRY, AT_SYSINFO_EHDR = 9, 33
DT_NULL, DT_DEBUG, DT_MIPS_RLD_MAP, DT_MIPS_RLD_MAP_REL = 0, 21, 0x70000016, 0x70000035


class Layout:
    """Where each module of the crashed process was, found without the
    walker: the program at AT_ENTRY - e_entry, the libraries on the
    dynamic loader's list (the program's dynamic section -> DT_DEBUG, or
    MIPS's DT_MIPS_RLD_MAP[_REL] -> r_debug -> link_map) read in the core's
    memory, the vDSO at AT_SYSINFO_EHDR; for an offline capture, its
    maps.txt (offline_capture.py wrote it the same way from the live
    process). Frames are named by this, not by the walker's modules."""

    def __init__(self):
        self.ranges = []          # (lo, hi, name, bias)
        self.prog_bias = 0

    def add_elf(self, name, bias, path):
        try:
            _, _, _, phdrs = elf_header(path)
        except (OSError, IndexError, struct.error):
            return
        for ptype, _, vaddr, _, memsz in phdrs:
            if ptype == 1 and memsz:
                self.ranges.append((bias + vaddr, bias + vaddr + memsz, name, bias))

    def module_at(self, pc):
        """(name, the address's virtual address in its ELF file), or None."""
        for lo, hi, name, bias in self.ranges:
            if lo <= pc < hi:
                return name, pc - bias
        return None

    def in_program(self, pc):
        m = self.module_at(pc)
        return bool(m) and m[0] == "prog"

    @classmethod
    def of_capture(cls, b, work, folder):
        lay = cls()
        spans = {}
        with open(os.path.join(folder, "maps.txt")) as f:
            for line in f:
                parts = line.split()
                if len(parts) < 6 or parts[5].startswith("["):
                    continue
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                span = spans.setdefault(parts[5], [lo, hi])
                span[0], span[1] = min(span[0], lo), max(span[1], hi)
        for name, (lo, hi) in spans.items():
            bias = lo
            if name in zoo_truth.OURS:
                _, _, _, phdrs = elf_header(os.path.join(work, "ref", name))
                bias = lo - (min(p[2] for p in phdrs if p[0] == 1) & ~0xfff)
                if name == "prog":
                    lay.prog_bias = bias
            lay.ranges.append((lo, hi, name, bias))
        return lay

    @classmethod
    def of_core(cls, b, work, core):
        lay = cls()
        mem = CoreMemory(core)
        aux = mem.auxv()
        prog = os.path.join(work, "ref", "prog")
        _, _, entry, _ = elf_header(prog)
        bias = aux.get(AT_ENTRY, entry) - entry
        lay.prog_bias = bias
        lay.add_elf("prog", bias, prog)
        vdso = aux.get(AT_SYSINFO_EHDR)
        seg = mem.segment(vdso) if vdso else None
        if seg:
            lay.ranges.append((seg[0], seg[0] + seg[1], "[vdso]", seg[0]))
        sysroot = CPUS[b.cpu].sysroot
        for l_addr, l_name in link_map(mem, prog, bias):
            base = os.path.basename(l_name or "")
            if not base:
                continue              # the program itself
            if base == "libzoo.so":
                path = os.path.join(work, "ref", base)
            elif sysroot != "/" and os.path.isfile(sysroot + l_name):
                path = sysroot + l_name
            else:
                path = l_name
            if os.path.isfile(path):
                lay.add_elf(base, l_addr, path)
        return lay


def link_map(mem, prog, bias):
    """[(l_addr, l_name)] of the loader's list in a core's memory (glibc's
    and musl's <link.h>: r_debug { int r_version; link_map *r_map; ... },
    link_map { l_addr, l_name, l_ld, l_next, l_prev })."""
    wide, end, _, phdrs = elf_header(prog)
    dyn = [p for p in phdrs if p[0] == 2]
    if not dyn:
        return []                     # static: nothing else is loaded
    word = 8 if wide else 4
    fmt = end + ("qQ" if wide else "iI")
    with open(prog, "rb") as f:
        f.seek(dyn[0][1])
        table = f.read(dyn[0][3])
    r_debug = 0
    for k in range(0, len(table) - 2 * word + 1, 2 * word):
        tag, val = struct.unpack(fmt, table[k:k + 2 * word])
        at = bias + dyn[0][2] + k        # the entry's address in memory
        if tag == DT_NULL:
            break
        if tag == DT_DEBUG:
            r_debug = mem.word_at(at + word) or r_debug
        elif tag == DT_MIPS_RLD_MAP_REL and not r_debug:
            # The map word's offset from the tag's own address.
            r_debug = mem.word_at(at + (val - (1 << 8 * word) if val >> (8 * word - 1) else val)) or 0
        elif tag == DT_MIPS_RLD_MAP and not r_debug:
            r_debug = mem.word_at(bias + val) or 0
    if not r_debug:
        return []
    out, lm, seen = [], mem.word_at(r_debug + word), set()
    while lm and lm not in seen and len(out) < 256:
        seen.add(lm)
        l_addr, l_name, l_next = mem.word_at(lm), mem.word_at(lm + word), mem.word_at(lm + 3 * word)
        if l_addr is None:
            break
        out.append((l_addr, (mem.string_at(l_name) or "") if l_name else ""))
        lm = l_next
    return out


def find_core(folder):
    for f in sorted(os.listdir(folder)):
        path = os.path.join(folder, f)
        if os.path.isfile(path) and (f == "core" or f.startswith("core.") or
                                     (f.startswith("qemu_") and f.endswith(".core"))):
            return path
    return None


GDB_COMMON = ["-nx", "-batch", "-ex", "set debug-file-directory /nonexistent",
              "-ex", "set pagination off", "-ex", "set width 0",
              "-ex", "set print frame-arguments none", "-ex", "set confirm off"]


def parse_trail(text):
    for line in text.splitlines():
        if line.startswith("zoo-trail: "):
            nums = [int(x) for x in line.split()[1:]]
            return nums[2:2 + min(nums[1], 512)]
    return None


class Crash:
    def __init__(self):
        self.snapshot = None      # the core, or the capture folder
        self.trail = None
        self.gdb = None           # gdb's zoo-bt text (live, riscv64)
        self.message = ""


def crash(b, work, use_gdb=True, deep=False):
    """Runs bin/prog until it dies. The program runs as ../bin/prog from
    work/run with a fixed environment and no address randomisation: the
    same seed lays out the same stack."""
    cpu = CPUS[b.cpu]
    run_dir = os.path.join(work, "run")
    os.makedirs(run_dir, exist_ok=True)
    env = {"PATH": "/usr/bin:/bin"}
    c = Crash()
    if cpu.offline:
        return capture_offline(b, work, run_dir, env, use_gdb, deep)
    cmd = ["setarch", "-R", "../bin/prog"]
    if cpu.qemu:
        cmd = ["setarch", "-R"] + cpu.qemu + ["-L", cpu.sysroot, "../bin/prog"]
        # qemu-user writes its guest's core itself, then dies of the signal,
        # and the kernel would dump qemu too (~150 MB, core_pattern `core`):
        # a folder named core keeps it from doing so.
        os.makedirs(os.path.join(run_dir, "core"), exist_ok=True)
    try:
        p = subprocess.run(["bash", "-c", "ulimit -c unlimited; exec \"$@\"", "zoo"] + cmd,
                           cwd=run_dir, capture_output=True, text=True, timeout=120, env=env,
                           errors="replace")
    except subprocess.TimeoutExpired:
        c.message = "timed out"
        return c
    c.trail = parse_trail(p.stderr)
    c.snapshot = find_core(run_dir)
    if not c.snapshot:
        c.message = "no core (exit %d) %s" % (p.returncode, p.stderr.strip()[-300:])
    return c


def wait_for(path, seconds=10):
    end = time.time() + seconds
    while time.time() < end:
        if os.path.exists(path):
            return True
        time.sleep(0.05)
    return False


def capture_offline(b, work, run_dir, env, use_gdb, deep):
    """riscv64: the program under qemu's gdb stub (on a Unix socket: no
    port to share with anyone), continued to the fatal signal (SIGUSR1, the
    zoo's own signal entry, passed to the program); there the stopped
    thread is written as an offline folder by offline_capture.py. One more
    continue: the program's handler writes the trail and returns, the fault
    recurs in the same context (the handler ran on its own stack) and gdb
    stops again, where gdb's backtrace is taken (when gdb is wanted)."""
    cpu = CPUS[b.cpu]
    c = Crash()
    capture = os.path.join(work, "capture")
    # A socket's path has at most 107 bytes: a short folder of its own.
    sock_dir = tempfile.mkdtemp(prefix="zoo-gdb-")
    sock = os.path.join(sock_dir, "stub")
    shutil.rmtree(capture, ignore_errors=True)
    with open(os.path.join(work, "qemu.stderr"), "w+") as qemu_err:
        q = subprocess.Popen(["setarch", "-R"] + cpu.qemu +
                             ["-L", cpu.sysroot, "-g", sock, "../bin/prog"],
                             cwd=run_dir, env=env, stdout=subprocess.DEVNULL, stderr=qemu_err,
                             start_new_session=True)
        try:
            if not wait_for(sock):
                c.message = "qemu's gdb stub did not start"
                return c
            full = os.path.join(work, "full")
            cmd = (["gdb-multiarch"] + GDB_COMMON +
                   ["-ex", "set sysroot " + cpu.sysroot, "-ex", "set solib-search-path " + full,
                    "-ex", "file " + os.path.join(full, "prog"),
                    "-ex", "handle SIGUSR1 nostop noprint pass",
                    "-ex", "target remote " + sock, "-ex", "continue",
                    # Stack reads in pages, not 64-byte lines: a stack
                    # overflow's 8 MiB through the stub.
                    "-ex", "set dcache line-size 4096", "-ex", "set dcache size 4096",
                    "-ex", "source " + OFFLINE_CAPTURE]
                   # A stack overflow's whole stack (8 MiB), not the
                   # capture's default 256 KiB.
                   + (["-ex", "python MAX_STACK = 16 << 20"] if deep else []) +
                   ["-ex", "offline-capture %s %s" % (capture, os.path.join(work, "bin", "prog")),
                    "-ex", "continue"])
            if use_gdb:
                cmd += ["-ex", "source " + ZOO_GDB, "-ex", "zoo-bt %d" % GDB_FRAMES]
            cmd += ["-ex", "kill"]
            c.gdb = gdb_text(cmd, GDB_TIMEOUT + 120)
        finally:
            try:
                os.killpg(q.pid, 9)
            except ProcessLookupError:
                pass
            q.wait()
            shutil.rmtree(sock_dir, ignore_errors=True)
            for f in glob.glob(os.path.join(run_dir, "core*")):
                if os.path.isfile(f):
                    os.unlink(f)
        qemu_err.seek(0)
        c.trail = parse_trail(qemu_err.read())
    if os.path.isfile(os.path.join(capture, "regs.txt")):
        c.snapshot = capture
    else:
        c.message = "no offline capture: " + c.gdb.strip()[-300:]
    return c


def offline_way(capture, work, way):
    """The capture folder as walked one way: its registers, maps and
    memory, with links.txt sending the program and library to full/ or
    stripped/ (the C library to the sysroot) or, alone, no links.txt (no
    file at all)."""
    folder = os.path.join(work, "walk-" + way)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for f in os.listdir(capture):
        if f != "links.txt":
            os.symlink(os.path.join(capture, f), os.path.join(folder, f))
    if way == "alone":
        return folder
    with open(os.path.join(capture, "links.txt")) as src, \
            open(os.path.join(folder, "links.txt"), "w") as dst:
        for line in src:
            target, name = line.split()
            if name in zoo_truth.OURS:
                target = os.path.join(work, way, name)
            dst.write("%s %s\n" % (target, name))
    return folder


def walk(sw, snapshot, paths, save=None, timeout=300):
    """stackwalk's walk of the crashing thread (of the only thread of an
    offline folder): (frames, "") or (None, what went wrong). save: a file
    for stackwalk's JSON and stderr."""
    # Only the files a way gives: neither the files at the paths the core
    # records (the unstripped program, the host's libc) nor /usr/lib/debug.
    cmd = [sw, "--json", "--brief", "--no-local-modules", "--debug-dir=", snapshot] + paths
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, errors="replace")
    except subprocess.TimeoutExpired:
        return None, "timed out"
    if save:
        with open(save, "w") as f:
            f.write("# %s\n# exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stderr, p.stdout))
    if p.returncode >= 2 and p.returncode != 5:
        return None, "exit %d: %s" % (p.returncode, p.stderr.strip()[:300])
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        return None, "bad JSON"
    t = doc.get("crashing_thread") or (doc.get("threads") or [{}])[0]
    return t.get("frames") or [], ""


def symbol_maps(b, work):
    """The truth's names: nm of the unstripped files."""
    nm = tool(b.cc, "nm")
    maps = {}
    for f in zoo_truth.OURS:
        path = os.path.join(work, "ref", f)
        if os.path.exists(path):
            _, text, _ = sh([nm, "-S", "--defined-only", path])
            maps[f] = zoo_truth.SymbolMap(text)
    return maps


def gdb_core(b, work, core, bias):
    """gdb's backtrace of the crashing thread on the same core, with every
    file (full/). qemu cores lack the pages of the ELF headers, so gdb is
    told the program's load offset (`symbol-file -o`) and then loads the
    libraries from the loader's list (`sharedlibrary`)."""
    cpu = CPUS[b.cpu]
    full = os.path.join(work, "full")
    prog = os.path.join(full, "prog")
    cmd = [cpu.gdb] + GDB_COMMON
    if cpu.qemu:
        cmd += ["-ex", "set sysroot " + cpu.sysroot]
    cmd += ["-ex", "set solib-search-path " + full, "-ex", "file " + prog,
            "-ex", "core-file " + core]
    if cpu.qemu:
        cmd += ["-ex", "symbol-file -o 0x%x %s" % (bias & (1 << 64) - 1, prog),
                "-ex", "sharedlibrary"]
    cmd += ["-ex", "source " + ZOO_GDB, "-ex", "zoo-bt %d" % GDB_FRAMES]
    return gdb_text(cmd, GDB_TIMEOUT)


def gdb_text(cmd, timeout):
    """gdb's output; when it takes longer than timeout, what it printed by
    then and a line saying so (zoo-bt prints frames as it finds them)."""
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
        return p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        out = e.stdout or b""
        return out.decode("utf-8", "replace") + "\nZOOEND ? gdb killed after %d s\n" % timeout


class Result:
    """One program: its build, crash and the verdict of each walk."""

    def __init__(self, seed, cpu, b, program):
        self.seed = seed
        self.cpu = cpu
        self.label = b.label()
        self.family = b.family
        self.crash = program.crash
        self.error = None         # not built, not crashed, no trail
        self.skip = None          # the tools this machine lacks
        self.truth = ""
        self.walks = {}           # way -> (Verdict, tokens) or (None, error text)
        self.work = None
        self.times = {}           # step -> seconds

    def verdict(self, way):
        w = self.walks.get(way)
        return w[0] if w else None

    def text(self, way):
        w = self.walks.get(way)
        if not w:
            return None
        return str(w[0]) if w[0] is not None else "error"

    def line(self):
        head = "%d %s %s %s" % (self.seed, self.cpu, self.label, self.crash)
        if self.skip:
            return "%s  SKIPPED (missing %s)" % (head, ", ".join(self.skip))
        if self.error:
            return "%s  ERROR %s" % (head, self.error.splitlines()[0] if self.error else "")
        parts = []
        for way in WAYS + ("gdb",):
            w = self.walks.get(way)
            if w:
                parts.append("%s=%s" % (way, w[0] if w[0] is not None else "error(%s)" % w[1]))
        return "%s  %s" % (head, " ".join(parts))

    def details(self):
        """The truth and the tokens of each walk that is not exact."""
        out = []
        for way, w in self.walks.items():
            if w[0] is None:
                out.append("    %s: error %s" % (way, w[1]))
            elif w[0].kind != "exact":
                out.append("    truth %s\n    %s: %s\n    %s" % (
                    self.truth, way, w[0].why, zoo_truth.show(w[1])))
        return "\n".join(out)

    def failed(self):
        """A finding: a walk with a wrong frame, a walk that failed."""
        return bool(self.error) or any(
            w[0] is None or w[0].wrong for way, w in self.walks.items() if way != "gdb")


def run_one(seed, cpu, family, sw, root, keep=False, use_gdb=True):
    """Builds, crashes and walks program `seed` for cpu; its folder is
    root/CPU-SEED, or root/CPU-FAMILY-SEED for a forced family (removed
    afterwards unless keep, or a walk failed). A failure of the zoo's own
    (an exception) is the program's error, not the caller's."""
    try:
        return _run_one(seed, cpu, family, sw, root, keep, use_gdb)
    except Exception as e:      # noqa: BLE001 -- reported, the folder kept
        import traceback
        b = Build(seed, cpu, family)
        res = Result(seed, cpu, b, zoo_gen.generate(seed))
        res.error = "zoo error: %s: %s | %s" % (type(e).__name__, e,
                                                traceback.format_exc().strip().replace("\n", " | "))
        return res


def _run_one(seed, cpu, family, sw, root, keep, use_gdb):
    program = zoo_gen.generate(seed)
    b = Build(seed, cpu, family)
    res = Result(seed, cpu, b, program)
    missing = CPUS[cpu].missing(b)
    if missing:
        res.skip = missing
        return res
    work = os.path.join(root, "%s-%d" % (cpu, seed) if family == "all" else
                        "%s-%s-%d" % (cpu, family, seed))
    res.work = work
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    t0 = time.time()
    res.error = build(program, b, work)
    res.times["build"] = time.time() - t0
    if res.error:
        return res
    t0 = time.time()
    c = crash(b, work, use_gdb, deep=program.crash == "overflow")
    res.times["crash"] = time.time() - t0
    if not c.snapshot or c.trail is None:
        res.error = c.message or "no trail"
        return res
    manifest = program.manifest()
    pat, rootidx = zoo_truth.pattern(manifest, c.trail)
    res.pattern = pat
    res.truth = " ".join(map(repr, pat))
    maps = symbol_maps(b, work)
    if os.path.isdir(c.snapshot):
        layout = Layout.of_capture(b, work, c.snapshot)
    else:
        layout = Layout.of_core(b, work, c.snapshot)
    libdirs = MUSL_LIBDIRS if b.musl else CPUS[cpu].libdirs
    for way in WAYS:
        paths = [os.path.join(work, way)] + libdirs if way != "alone" else []
        snap = c.snapshot
        if os.path.isdir(snap):
            snap = offline_way(snap, work, way)
        t0 = time.time()
        frames, werr = walk(sw, snap, paths, os.path.join(work, "walk-%s.txt" % way))
        res.times[way] = time.time() - t0
        if frames is None:
            res.walks[way] = (None, werr)
            continue
        toks = zoo_truth.tokenize_walk(frames, manifest, b.static, layout, maps)
        res.walks[way] = (zoo_truth.judge(toks, pat, rootidx), toks)
    if use_gdb:
        t0 = time.time()
        out = c.gdb if CPUS[cpu].offline else gdb_core(b, work, c.snapshot, layout.prog_bias)
        res.times["gdb"] = time.time() - t0
        if out is not None and "==zoo-bt==" in out:
            toks = zoo_truth.tokenize_gdb(out, manifest, b.static, layout, maps)
            res.walks["gdb"] = (zoo_truth.judge(toks, pat, rootidx), toks)
        else:
            res.walks["gdb"] = (None, "no backtrace")
        with open(os.path.join(work, "gdb.txt"), "w") as f:
            f.write(out or "")
    with open(os.path.join(work, "verdicts.txt"), "w") as f:
        f.write("%s\ntrail %s\ntruth %s\n" % (res.line(), " ".join(map(str, c.trail)), res.truth))
        for way, w in res.walks.items():
            f.write("%s: %s\n" % (way, zoo_truth.show(w[1]) if w[0] is not None else w[1]))
    if not keep and not res.failed():
        shutil.rmtree(work, ignore_errors=True)
        res.work = None
    return res


class Totals:
    """The summary line's counts."""

    def __init__(self):
        self.programs = self.exact = self.invented = self.skipped = self.short = 0
        self.gdb = self.gdb_walks = self.errors = self.not_run = self.walk_errors = 0

    def add(self, r):
        self.programs += 1
        if r.skip:
            self.not_run += 1
            return
        if r.error:
            self.errors += 1
            return
        for way in WAYS:
            v = r.verdict(way)
            if v is None:
                self.walk_errors += 1
                continue
            self.invented += v.wrong
            self.skipped += v.kind == "skipped"
            if way == "full":
                self.exact += v.kind == "exact"
                self.short += v.kind in ("short", "empty")
        g = r.verdict("gdb")
        if g is not None:
            self.gdb_walks += 1
            self.gdb += g.kind == "exact"

    def line(self):
        extra = []
        if self.skipped:
            extra.append("%d of them skipped frames" % self.skipped)
        if self.walk_errors:
            extra.append("%d walks failed" % self.walk_errors)
        if self.errors:
            extra.append("%d not built or not crashed" % self.errors)
        if self.not_run:
            extra.append("%d not run (tools missing)" % self.not_run)
        return "zoo: %d programs, %d exact, %d invented frames, %d short walks, %d gdb exact%s" % (
            self.programs, self.exact, self.invented, self.short, self.gdb,
            "".join("; " + e for e in extra))
