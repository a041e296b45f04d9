# offline_capture.py: a gdb command that writes the selected thread of a
# program stopped under qemu-user's gdb stub as an offline snapshot folder
# (docs/offline-format.md), for CPUs whose qemu-user writes no core
# (riscv64: testdata/cores/README.md). Part of stackwalk's test data,
# used by gen_cores.sh:
#
#   gdb-multiarch ... -ex 'target remote :PORT' -ex continue \
#       -ex 'source offline_capture.py' -ex 'offline-capture DIR [PROGRAM]'
#
# DIR receives:
#   regs.txt     the thread's integer registers and pc, as the stub gives
#                them (frame 0's, not an unwound frame's)
#   maps.txt     one line per PT_LOAD segment of the program and of every
#                library on the dynamic loader's link_map (DT_DEBUG ->
#                r_debug -> link_map), at its load bias, named by the
#                file's base name; the captured stack range; each extra
#                page captured (a signal trampoline outside every module)
#   links.txt    "TARGET NAME": where this machine keeps each named file
#                (the program and libraries as they ran, the sysroot's C
#                library): maps.txt's names stay short, as in
#                libunwindstack's offline test data
#   stack.data   the stack from sp up to the first unreadable page, at
#                most MAX_STACK bytes: 8-byte little-endian start address,
#                then the bytes (from the first readable page above sp
#                when sp's own is not: a stack overflow's guard page)
#   stack1.data  ... the page of each sigreturn trampoline that lies in
#                no module (qemu-user's own trampoline page), found in
#                gdb's backtrace or named by a word of the stack: the
#                walker recognises a signal frame by the trampoline's
#                code, which no file holds
#
# qemu 7.2's stub has no `info proc mappings` (no host I/O for
# /proc/PID/maps), hence the module list from the loader's own records:
# the same path NOTES.md describes for qemu cores without NT_FILE. Every
# value comes from the stopped process (auxv, its memory) or from the ELF
# files it ran; nothing is guessed.
import os
import struct

import gdb

MAX_STACK = 256 * 1024
# How many unreadable pages above sp are skipped to find the stack (a
# stack overflow's sp is in the guard page under it).
GUARD_PAGES = 16

# gdb's register name -> the offline format's (libunwindstack's) name.
REGISTERS = {
    'riscv': [(n, n) for n in
              ('pc', 'ra', 'sp', 'gp', 'tp', 't0', 't1', 't2')] +
             [('fp', 's0'), ('s1', 's1')] +
             [('a%d' % i, 'a%d' % i) for i in range(8)] +
             [('s%d' % i, 's%d' % i) for i in range(2, 12)] +
             [('t%d' % i, 't%d' % i) for i in range(3, 7)],
}

# The code of each family's sigreturn trampoline (the kernel's vDSO
# __vdso_rt_sigreturn; qemu-user writes the same into a page of its own):
# RISC-V `li a7, 139; ecall`.
RESTORERS = {
    'riscv': struct.pack('<II', 0x08b00893, 0x00000073),
}

PT_LOAD, PT_DYNAMIC = 1, 2
DT_NULL, DT_DEBUG = 0, 21


class Elf:
    """The few fields of an ELF file the capture needs: class, byte
    order, e_entry and the program headers (System V gABI)."""

    def __init__(self, path):
        with open(path, 'rb') as f:
            head = f.read(64)
            if head[:4] != b'\x7fELF':
                raise gdb.GdbError('%s: not an ELF file' % path)
            self.wide = head[4] == 2
            self.end = '<' if head[5] == 1 else '>'
            if self.wide:
                (self.entry, phoff, _, _, _, phentsize, phnum) = struct.unpack(
                    self.end + 'QQQIHHH', head[24:58])
            else:
                (self.entry, phoff, _, _, _, phentsize, phnum) = struct.unpack(
                    self.end + 'IIIIHHH', head[24:46])
            f.seek(phoff)
            table = f.read(phentsize * phnum)
        self.phdrs = []
        for i in range(phnum):
            raw = table[i * phentsize:(i + 1) * phentsize]
            if self.wide:
                (ptype, flags, offset, vaddr, _, filesz, memsz, align) = struct.unpack(
                    self.end + 'IIQQQQQQ', raw[:56])
            else:
                (ptype, offset, vaddr, _, filesz, memsz, flags, align) = struct.unpack(
                    self.end + 'IIIIIIII', raw[:32])
            self.phdrs.append((ptype, flags, offset, vaddr, filesz, memsz, align))


def auxv():
    """AT_* name -> value, from gdb's `info auxv` (qemu's stub serves
    qXfer:auxv:read)."""
    out = {}
    for line in gdb.execute('info auxv', to_string=True).splitlines():
        words = line.split()
        if len(words) >= 3 and words[1].startswith('AT_'):
            value = next((w for w in words[2:] if w.startswith('0x')), words[-1])
            try:
                out[words[1]] = int(value, 0)
            except ValueError:
                pass
    return out


def read(addr, size):
    return bytes(gdb.selected_inferior().read_memory(addr, size))


def read_word(addr, elf):
    size = 8 if elf.wide else 4
    return struct.unpack(elf.end + ('Q' if elf.wide else 'I'), read(addr, size))[0]


def read_string(addr, limit=4096):
    data = b''
    while len(data) < limit:
        chunk = read(addr + len(data), 64)
        if b'\0' in chunk:
            return (data + chunk[:chunk.index(b'\0')]).decode('utf-8', 'replace')
        data += chunk
    return data.decode('utf-8', 'replace')


def link_map(prog, bias):
    """[(l_addr, l_name)] of the loader's link_map, the program's entry
    first: the program's PT_DYNAMIC -> DT_DEBUG -> struct r_debug
    { int r_version; struct link_map *r_map; ... } -> struct link_map
    { l_addr, l_name, l_ld, l_next, l_prev } (glibc's <link.h>)."""
    word = 8 if prog.wide else 4
    dyn = [p for p in prog.phdrs if p[0] == PT_DYNAMIC]
    if not dyn:
        return [(bias, '')]  # a static program: nothing else is loaded
    addr, r_debug = bias + dyn[0][3], 0
    for i in range(4096):
        tag, val = read_word(addr + 2 * word * i, prog), read_word(addr + 2 * word * i + word, prog)
        if tag == DT_DEBUG:
            r_debug = val
        if tag == DT_NULL:
            break
    if not r_debug:
        raise gdb.GdbError('DT_DEBUG is 0: the loader has not run yet')
    out, lm, seen = [], read_word(r_debug + word, prog), set()
    while lm and lm not in seen and len(out) < 1024:
        seen.add(lm)
        l_addr, l_name = read_word(lm, prog), read_word(lm + word, prog)
        out.append((l_addr, read_string(l_name) if l_name else ''))
        lm = read_word(lm + 3 * word, prog)
    return out


def host_path(name, sysroot):
    """Where this machine keeps the file the guest opened as NAME: qemu -L
    SYSROOT looks under SYSROOT first."""
    if sysroot and name.startswith('/') and os.path.isfile(sysroot + name):
        return os.path.realpath(sysroot + name)
    return os.path.realpath(name) if os.path.isfile(name) else None


def segments(elf, bias, pagesize):
    """(start, end, perms, offset) of each PT_LOAD as mmap maps it."""
    out = []
    for ptype, flags, offset, vaddr, _, memsz, _ in elf.phdrs:
        if ptype != PT_LOAD or memsz == 0:
            continue
        start = (bias + vaddr) & ~(pagesize - 1)
        end = (bias + vaddr + memsz + pagesize - 1) & ~(pagesize - 1)
        perms = ('r' if flags & 4 else '-') + ('w' if flags & 2 else '-') + \
                ('x' if flags & 1 else '-') + 'p'
        out.append((start, end, perms, offset & ~(pagesize - 1)))
    return out


def readable_from(addr, limit, pagesize):
    """Bytes readable from addr up, to the first unreadable page or limit:
    read a page at a time, in runs of up to 64 pages while they read
    whole (a stack of megabytes through a remote stub a page per request
    takes minutes), a page at a time again after a run fails."""
    chunks, got, run = [], 0, 1
    end = min((addr | (pagesize - 1)) + 1, addr + limit)
    while addr + got < end:
        try:
            chunk = read(addr + got, end - addr - got)
        except gdb.MemoryError:
            if run == 1:
                break
            run = 1
            end = min((addr + got | (pagesize - 1)) + 1, addr + limit)
            continue
        chunks.append(chunk)
        got += len(chunk)
        run = min(run * 2, 64)
        end = min(end + run * pagesize, addr + limit)
    return b''.join(chunks)


def write_memory(path, addr, data):
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', addr))
        f.write(data)


class OfflineCapture(gdb.Command):
    """offline-capture DIR [PROGRAM]: write the selected thread's
    registers, the modules' maps and its stack as an offline snapshot
    folder. PROGRAM is the program file as it ran, when gdb was given
    another copy (the unstripped one); by default gdb's."""

    def __init__(self):
        super().__init__('offline-capture', gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        args = gdb.string_to_argv(arg)
        if len(args) not in (1, 2):
            raise gdb.GdbError('usage: offline-capture DIR [PROGRAM]')
        out, exe = args[0], args[1] if len(args) == 2 else None
        os.makedirs(out, exist_ok=True)
        frame = gdb.newest_frame()
        family = frame.architecture().name().split(':')[0]
        if family not in REGISTERS:
            raise gdb.GdbError('offline-capture: no register names for %s' % family)
        regs = {}
        with open(os.path.join(out, 'regs.txt'), 'w') as f:
            for gname, oname in REGISTERS[family]:
                regs[oname] = int(frame.read_register(gname)) & 0xffffffffffffffff
                f.write('%s: %x\n' % (oname, regs[oname]))

        aux = auxv()
        pagesize = aux.get('AT_PAGESZ', 4096)
        sysroot = gdb.parameter('sysroot') or ''
        prog_path = gdb.current_progspace().filename
        prog = Elf(prog_path)
        # The program's load bias: where its entry point is against where
        # its file says (NOTES.md).
        bias = aux['AT_ENTRY'] - prog.entry
        maps, links = [], []
        for i, (l_addr, l_name) in enumerate(link_map(prog, bias)):
            if i == 0:
                # The program as it ran (stripped in the nounwind flavour:
                # the same program headers as gdb's unstripped copy).
                path, elf, l_addr = os.path.realpath(exe or prog_path), prog, bias
            else:
                path = host_path(l_name, sysroot)
                if not path:
                    gdb.write('offline-capture: %s: no such file here, not mapped\n' % l_name)
                    continue
                elf = Elf(path)
            name = os.path.basename(l_name or path)
            links.append('%s %s\n' % (path, name))
            for start, end, perms, offset in segments(elf, l_addr, pagesize):
                maps.append((start, end, perms, offset, name))

        # The stack, from sp up to the first unreadable page, and never
        # into a module: qemu-user maps the main thread's stack right
        # below the dynamic loader.
        sp = regs['sp']
        above = [s for s, _, _, _, _ in maps if s > sp]
        start = sp
        stack = readable_from(start, min([MAX_STACK] + [s - start for s in above]), pagesize)
        # A stack overflow leaves sp in the guard page below the stack: the
        # stack is then what is readable from the next pages up.
        for _ in range(GUARD_PAGES):
            if stack:
                break
            start = (start | (pagesize - 1)) + 1
            stack = readable_from(start, min([MAX_STACK] + [s - start for s in above]), pagesize)
        write_memory(os.path.join(out, 'stack.data'), start, stack)
        maps.append((start & ~(pagesize - 1), start + len(stack), 'rw-p', 0, '[stack]'))

        # Trampolines outside every module and the stack: their page.
        extra = []
        f = frame
        while f is not None:
            try:
                if f.type() == gdb.SIGTRAMP_FRAME:
                    page = f.pc() & ~(pagesize - 1)
                    if not any(s <= f.pc() < e for s, e, _, _, _ in maps) and page not in extra:
                        extra.append(page)
                f = f.older()
            except gdb.error:
                break
        # And those a handler's saved return address names though gdb's
        # backtrace never reached them (gdb stopped short of the signal
        # frame: zoo riscv64 5016): a stack word outside every mapping
        # whose code is the trampoline's. A real capture holds the vDSO.
        code, tried = RESTORERS.get(family), set()
        for off in range(0, len(stack) - 7 if code else 0, 8):
            word = struct.unpack_from('<Q', stack, off)[0]
            page = word & ~(pagesize - 1)
            if (word < pagesize or word in tried or page in extra or
                    any(s <= word < e for s, e, _, _, _ in maps)):
                continue
            tried.add(word)
            try:
                if read(word, len(code)) == code:
                    extra.append(page)
            except gdb.MemoryError:
                pass
        for n, page in enumerate(extra, 1):
            data = readable_from(page, pagesize, pagesize)
            write_memory(os.path.join(out, 'stack%d.data' % n), page, data)
            maps.append((page, page + pagesize, 'r-xp', 0, ''))

        with open(os.path.join(out, 'maps.txt'), 'w') as f:
            for start, end, perms, offset, name in sorted(maps):
                f.write('%x-%x %s %08x 00:00 0%s\n' % (
                    start, end, perms, offset, (' ' * 10 + name) if name else ''))
        with open(os.path.join(out, 'links.txt'), 'w') as f:
            f.writelines(links)
        gdb.write('offline-capture: %s: %d registers, %d maps, stack 0x%x bytes at 0x%x, '
                  '%d trampoline pages\n' % (out, len(regs), len(maps), len(stack), sp,
                                             len(extra)))


OfflineCapture()
