#!/usr/bin/env python3
"""Conformance over ESP-IDF core dumps (../shared/corpus/esp-coredump).

Each dump comes from espressif/esp-coredump's test suite with the output of
`esp-coredump info_corefile` (expected_output), which drives gdb over the
ELF core and the firmware ELF: the crashed task, the panic reason, the
crashed task's registers (gdb's `info registers`), every task's TCB and
name, and gdb's `bt` for each task. stackwalk reads the dump in the three
forms a user hands it over: the console's base64 text (coredump.b64), the
raw image read from flash (coredump.bin) and the bare ELF core
(coredump.elf), and the checks are:

- esp32c3 (firmware ELF given as the symbol path): exit 0 and nothing on
  stderr; the three forms give the same threads, frames and crash; the
  tasks are gdb's (TCB address = thread id, names from the TCB), the crashed
  task is the crashing thread and listed first, the crash reason is the
  panic reason, the crashed task's 32 registers are gdb's. For every task,
  gdb's frames are compared one by one with ours: the printed address
  (gdb prints a caller's return address: our text output's pc), the
  function, the file and the line. Our walk must have gdb's frames and no
  other: a frame gdb does not show is an invented one.
- esp32c6 (no firmware ELF in the corpus): the container (base64, raw image
  with a SHA-256 checksum, version 1.4), tasks, names, registers and panic
  reason; one warning naming the missing firmware; each walk is its context
  frame, at gdb's pc where gdb prints one.
- every --json output passes tests/json_check.py (docs/json.md's schema).

A difference passes only when KNOWN_DIFFERENCES names it with the evidence;
a listed difference that no longer happens fails (the list must stay true).

Usage: espcores.py --stackwalk PATH --corpus DIR [-v]
Prints one line per case and "espcores: N passed, N failed".
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

from corpus_skip import require_corpus
from swtest import run_stackwalk, summary

# (case, task name, key) -> why the difference is right. Keys: "#N missing"
# (gdb's frame N has no frame of ours: the frames after it are compared
# with ours one place earlier), "#N function" / "#N line" / "#N pc",
# "length" (our walk ends elsewhere than gdb's).
KNOWN_DIFFERENCES = {
    ('esp32c3', 'main', '#4 function'):
        "0x400485e4 is in the ESP32-C3's mask ROM (0x40000000-0x4005ffff, no module): gdb "
        "names it ets_vprintf from esp32c3_rev3_rom.elf, which esp-coredump hands it from "
        "an ESP-IDF installation and the corpus does not hold (README: 'Frames #4/#5 are "
        "in mask ROM'); the firmware ELF has no symbol there. stackwalk shows the frame "
        "unsymbolized, found by fail_once's CFI (its saved ra).",
    ('esp32c3', 'main', '#5 missing'):
        "gdb's #5 ets_printf (0x40048722) is the caller of the ROM frame #4, found by the "
        "ROM ELF's CFI. Without the ROM's code or CFI nothing proves it: the word "
        "0x40048722 does sit on the stack (at 0x3fc8eb6c) but lies in no module, so no "
        "call before it can be checked. stackwalk's next frame is app_main by a scan "
        "validated in the firmware (0x4200937a follows `jalr` to the ROM's printf entry "
        "0x40000040, a target outside every module, as the ROM callee is); the stale "
        "heap_caps_malloc return address 0x403809a4 at 0x3fc8eb1c, which follows a direct "
        "call into the firmware, is refused (lib/walker.c, call_may_reach).",
    ('esp32c3', 'IDLE', '#1 missing'):
        "gdb prints IDLE's zero return address as a frame '#1 0x00000000 in ?? ()' and "
        "stops ('frame did not save the PC'); stackwalk ends the walk at the NULL return "
        "address (walk_end null_return) without a frame for it: the task never ran (its "
        "saved ra and sp are 0, a0 = prvIdleTask).",
}

# The C6 corpus has no firmware ELF (README: it did not fit the budget).
C6_NO_FIRMWARE = ("the corpus holds no esp32c6.elf: no symbols, no code, no CFI: each walk "
                  "is its context frame (gdb had the firmware)")

SANITIZER = re.compile(r'ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|'
                       r'UndefinedBehaviorSanitizer')
FORMS = ('coredump.b64', 'coredump.bin', 'coredump.elf')
# gdb's `info registers` names, as ours (fp is s0).
GDB_REG = {'fp': 's0'}


class GdbFrame:
    def __init__(self, index, pc, function, file, line):
        self.index, self.pc, self.function, self.file, self.line = index, pc, function, file, line

    def __str__(self):
        return '#%d %s %s %s:%s' % (self.index, '0x%08x' % self.pc if self.pc is not None
                                    else '-', self.function, self.file, self.line)


def parse_gdb_frame(line):
    """'#N  [0xPC in ]FUNC (args) [at FILE:LINE]' (args may hold anything)."""
    m = re.match(r'^#(\d+)\s+(?:(0x[0-9a-f]+) in )?(\S+) \(', line)
    if not m:
        return None
    function = None if m.group(3) == '??' else m.group(3)
    at = re.search(r' at (\S+):(\d+)$', line)
    return GdbFrame(int(m.group(1)), int(m.group(2), 16) if m.group(2) else None, function,
                    at.group(1) if at else None, int(at.group(2)) if at else None)


def parse_expected(path):
    """The tool's report: crashed TCB, panic reason, registers, the task
    table and each task's frames."""
    with open(path) as f:
        text = f.read()
    out = {'tasks': {}, 'frames': {}, 'registers': {}}
    m = re.search(r"Crashed task handle: (0x[0-9a-f]+), name: '([^']*)'", text)
    out['crashed'] = (int(m.group(1), 16), m.group(2))
    out['panic'] = re.search(r'^Panic reason: (.*)$', text, re.M).group(1)
    regs = text.split('CURRENT THREAD REGISTERS')[1].split('CURRENT THREAD STACK')[0]
    for name, value in re.findall(r'^(\w+)\s+(0x[0-9a-f]+)', regs, re.M):
        out['registers'][GDB_REG.get(name, name)] = int(value, 16)
    for tcb, name in re.findall(r'^(0x[0-9a-f]{8})\s+(\S+)\s+\d+/\d+', text, re.M):
        out['tasks'][int(tcb, 16)] = name
    for section in re.split(r'^=+ THREAD \d+ ', text, flags=re.M)[1:]:
        m = re.match(r"\(TCB: (0x[0-9a-f]+), name: '([^']*)'\)", section)
        frames = []
        for line in section.splitlines()[1:]:
            if line.startswith('='):
                break
            fr = parse_gdb_frame(line)
            if fr:
                frames.append(fr)
        out['frames'][int(m.group(1), 16)] = frames
    return out


def run(args, argv):
    return run_stackwalk(args.stackwalk, argv, timeout=120)


def text_pcs(text):
    """{thread number: [pc of each frame]} from the text output, whose
    register lines give a caller's return address (docs/output.md)."""
    threads, cur = {}, None
    for line in text.splitlines():
        m = re.match(r'^Thread (\d+)', line)
        if m:
            cur = threads.setdefault(int(m.group(1)), [])
            continue
        if line.startswith('Loaded modules'):
            cur = None
        m = re.match(r'^\s+pc = (0x[0-9a-f]+)', line)
        if cur is not None and m:
            cur.append(int(m.group(1), 16))
    return threads


def schema_problems(out):
    """tests/json_check.py's verdict on a --json output (docs/json.md)."""
    with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as f:
        f.write(out)
    try:
        p = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__),
                                                         'json_check.py'), f.name],
                           capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(f.name)
    return None if p.returncode == 0 else (p.stdout + p.stderr).strip()[:300]


def walk(args, core, symbols):
    """(exit, stderr, JSON document, {tid: [frame dicts with 'pc']})."""
    argv = [core] + ([symbols] if symbols else [])
    rc, out, err = run(args, ['--json'] + argv)
    rc2, text, err2 = run(args, argv)
    doc = json.loads(out) if out.strip() else {}
    bad = schema_problems(out) if doc else None
    if bad:
        err2 += '\njson_check: ' + bad
    pcs = text_pcs(text)
    threads = {}
    for i, t in enumerate(doc.get('threads') or []):
        frames = [dict(f) for f in t.get('frames') or []]
        for f, pc in zip(frames, pcs.get(i, [])):
            f['pc'] = pc
        threads[t['thread_id']] = frames
    return max(rc, rc2), err + err2, doc, threads


def compare_task(case, name, gdb, ours, problems, used, notes):
    """gdb's frames against ours, KNOWN_DIFFERENCES applied."""
    expected = []
    for g in gdb:
        key = (case, name, '#%d missing' % g.index)
        if key in KNOWN_DIFFERENCES:
            used.add(key)
            notes.append('%s: gdb %s not ours (named difference)' % (name, g))
            continue
        expected.append(g)
    if len(ours) != len(expected):
        key = (case, name, 'length')
        if key in KNOWN_DIFFERENCES:
            used.add(key)
        else:
            problems.append('%s: %d frames, gdb %d (after the named differences): ours %s; '
                            'gdb %s' % (name, len(ours), len(expected),
                                        [(hex(f.get('pc') or 0), f.get('function'))
                                         for f in ours], [str(g) for g in expected]))
    for g, f in zip(expected, ours):
        got = {'pc': f.get('pc'), 'function': f.get('function'), 'file': f.get('file'),
               'line': f.get('line')}
        want = {'pc': g.pc, 'function': g.function, 'file': g.file, 'line': g.line}
        if g.pc is None:
            del want['pc']  # gdb's #0 at the start of a line prints no address
        for what in ('pc', 'function', 'line'):
            if what not in want:
                continue
            same = got[what] == want[what]
            if what == 'line':
                same = (got['file'], got['line']) == (want['file'], want['line'])
            if same:
                continue
            key = (case, name, '#%d %s' % (g.index, what))
            if key in KNOWN_DIFFERENCES:
                used.add(key)
                notes.append('%s #%d %s: ours %s, gdb %s (named difference)'
                             % (name, g.index, what, got[what], want[what]))
            else:
                problems.append('%s #%d %s: ours %r, gdb %r' % (name, g.index, what,
                                                                  got[what], want[what]))


def check_common(case, exp, doc, problems):
    """Tasks, names, the crashed task and its registers, the panic."""
    threads = doc.get('threads') or []
    tasks = {t['thread_id']: t.get('thread_name') for t in threads}
    if tasks != exp['tasks']:
        problems.append('tasks %s, expected %s' % (tasks, exp['tasks']))
    ci = doc.get('crash_info') or {}
    idx = ci.get('crashing_thread')
    tcb, name = exp['crashed']
    if idx != 0 or not threads or threads[0]['thread_id'] != tcb:
        problems.append('crashing thread %s, expected the first, TCB 0x%x (%s)' % (idx, tcb, name))
    if ci.get('type') != exp['panic']:
        problems.append('crash reason %r, expected %r' % (ci.get('type'), exp['panic']))
    regs = ((doc.get('crashing_thread') or {}).get('frames') or [{}])[0].get('registers') or {}
    for reg, value in exp['registers'].items():
        if reg not in regs or int(regs[reg], 16) != value:
            problems.append('crashed task register %s = %s, gdb 0x%x' % (reg, regs.get(reg), value))


def check_c3(args, problems, used, notes):
    case, folder = 'esp32c3', os.path.join(args.corpus, 'esp-coredump', 'esp32c3')
    exp = parse_expected(os.path.join(folder, 'expected_output'))
    firmware = os.path.join(folder, 'esp32c3.elf')
    first = None
    for form in FORMS:
        rc, err, doc, threads = walk(args, os.path.join(folder, form), firmware)
        if rc != 0 or err.strip():
            problems.append('%s: exit %d, stderr %r' % (form, rc, err.strip()[:300]))
        if SANITIZER.search(err):
            problems.append('%s: sanitizer report' % form)
        if not doc:
            continue
        check_common(case, exp, doc, problems)
        summary = (json.dumps(doc.get('threads'), sort_keys=True),
                   json.dumps(doc.get('crash_info'), sort_keys=True))
        if first is None:
            first = (form, summary)
            for tcb, gdb in sorted(exp['frames'].items()):
                name = exp['tasks'].get(tcb)
                compare_task(case, name, gdb, threads.get(tcb, []), problems, used, notes)
                for f in threads.get(tcb, []):
                    if f.get('trust') == 'scan' and not f.get('module'):
                        problems.append('%s: a scanned frame outside the firmware' % name)
            ends = {t['thread_name']: t.get('walk_end') for t in doc['threads']}
            if ends != {'main': 'outermost', 'IDLE': 'null_return', 'esp_timer': 'outermost'}:
                problems.append('walk ends %s' % ends)
        elif summary != first[1]:
            problems.append('%s reads otherwise than %s' % (form, first[0]))
    if args.v:
        rc, text, _ = run(args, [os.path.join(folder, 'coredump.b64'), firmware])
        print(text)


def check_c6(args, problems, used, notes):
    case, folder = 'esp32c6', os.path.join(args.corpus, 'esp-coredump', 'esp32c6')
    exp = parse_expected(os.path.join(folder, 'expected_output'))
    for form in FORMS:
        rc, err, doc, threads = walk(args, os.path.join(folder, form), None)
        lines = [l for l in err.splitlines() if l.strip()]
        # One warning, said once per run (the JSON and the text run).
        if rc != 0 or len(set(lines)) != 1 or 'no firmware ELF among the symbol paths' not in err \
                or '64d3738c1' not in err:
            problems.append('%s: exit %d, stderr %r' % (form, rc, err.strip()[:300]))
        if SANITIZER.search(err):
            problems.append('%s: sanitizer report' % form)
        if not doc:
            continue
        check_common(case, exp, doc, problems)
        if doc.get('system_info', {}).get('cpu_info') != \
                ('ESP32-C6' if form.endswith('.elf') else 'ESP32-C6, chip revision 1'):
            problems.append('%s: cpu_info %r' % (form, doc.get('system_info', {}).get('cpu_info')))
        for tcb, gdb in exp['frames'].items():
            ours = threads.get(tcb, [])
            if len(ours) != 1:
                problems.append('%s: task 0x%x has %d frames: %s' % (form, tcb, len(ours),
                                                                     C6_NO_FIRMWARE))
            elif gdb[0].pc is not None and ours[0].get('pc') != gdb[0].pc:
                problems.append('%s: task 0x%x frame 0 pc 0x%x, gdb 0x%x'
                                % (form, tcb, ours[0].get('pc') or 0, gdb[0].pc))
    notes.append(C6_NO_FIRMWARE)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--stackwalk', required=True)
    ap.add_argument('--corpus', required=True)
    ap.add_argument('-v', action='store_true')
    args = ap.parse_args()
    require_corpus(args.corpus, 'espcores', 'esp-coredump')
    passed = failed = 0
    used = set()
    for case, check in (('esp32c3', check_c3), ('esp32c6', check_c6)):
        problems, notes = [], []
        try:
            check(args, problems, used, notes)
        except (ValueError, KeyError, TypeError, IndexError, AttributeError,
                subprocess.TimeoutExpired) as exc:
            problems.append('harness error: %r' % exc)
        if problems:
            failed += 1
            print('FAIL %s' % case)
            for p in problems[:30 if args.v else 10]:
                print('       ' + p)
        else:
            passed += 1
            print('ok   %s' % case)
        for n in notes:
            print('       (%s)' % n)
    for key in sorted(set(KNOWN_DIFFERENCES) - used):
        failed += 1
        print('FAIL stale known difference %s: it no longer happens; remove it' % (key,))
    return summary('espcores', passed, failed)


if __name__ == '__main__':
    sys.exit(main())
