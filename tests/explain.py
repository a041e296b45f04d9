#!/usr/bin/env python3
"""--explain over real inputs (docs/cli.md, docs/json.md "evidence").

1. Every corpus input (../shared/corpus/manifest.tsv), walked with and
   without --explain, in JSON and in text: the walk is the same (the JSON
   without the evidence keys is the JSON without --explain, the text without
   its Evidence and Walk ended lines is the text without --explain), every
   frame and every inline frame has an evidence object whose method and
   refusals are ones docs/json.md names, and every walked thread says what
   its last step's methods answered (walk_end_evidence).
2. One frame per method pinned, each on a real input: CFI (a Breakpad STACK
   CFI rule and a DWARF .eh_frame row), a frame record, a scan with the call
   before its return address decoded, a leaf, a signal frame, a Cortex-M
   exception frame with its EXC_RETURN, prologue analysis, a call through a
   bad pc; and the end of a walk.

Usage: explain.py --stackwalk PATH --corpus DIR --testdata DIR --work DIR
"""
import argparse
import copy
import gzip
import json
import os
import shutil
import sys

from corpus_skip import require_corpus
from swtest import Checks, fresh_dir, run_stackwalk

METHODS = {'context', 'inline', 'entry_point', 'signal_frame', 'cfi', 'exception_frame',
           'bad_pc', 'leaf', 'frame_pointer', 'prologue', 'scan'}
REASONS = {'no_rule', 'failed', 'disabled', 'lost_pc_or_sp', 'pc_not_code', 'sp_not_growing',
           'pc_on_stack', 'pc_in_data', 'not_a_return_address', 'no_call_before_pc',
           'call_cannot_reach_callee', 'context_implausible', 'ends_walk'}


def manifest_rows(corpus):
    with open(os.path.join(corpus, 'manifest.tsv')) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            folder, dump, variant, _kind, _arch, _os, sym = line.rstrip('\n').split('\t')[:7]
            argv = [os.path.join(corpus, folder, dump)]
            if sym != '-':
                argv.append(os.path.join(corpus, folder, sym))
            yield '%s/%s%s' % (folder, dump, '' if variant == '-' else '+' + variant), argv


def documents(out):
    """The JSON documents of a run (a log of several microdumps prints one
    per line)."""
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def strip_evidence(doc):
    """doc without what --explain adds."""
    for t in doc.get('threads', []) + ([doc['crashing_thread']] if doc.get('crashing_thread')
                                        else []):
        t.pop('walk_end_evidence', None)
        for fr in t.get('frames', []):
            fr.pop('evidence', None)
            for inl in fr.get('inlines') or []:
                inl.pop('evidence', None)
    return doc


def evidence_problems(doc):
    """What is missing or unknown in doc's evidence."""
    problems = []

    def check_refused(where, lst):
        for a in lst:
            if a.get('method') not in METHODS or a.get('reason') not in REASONS:
                problems.append('%s: unknown attempt %r' % (where, a))

    for ti, t in enumerate(doc.get('threads', [])):
        for fr in t.get('frames', []):
            where = 'thread %d frame %s' % (ti, fr.get('frame'))
            e = fr.get('evidence')
            if not isinstance(e, dict) or e.get('method') not in METHODS - {'inline'}:
                problems.append('%s: evidence %r' % (where, e))
                continue
            check_refused(where, e.get('refused', []))
            for inl in fr.get('inlines') or []:
                if (inl.get('evidence') or {}).get('method') != 'inline':
                    problems.append('%s: inline without evidence' % where)
        if t.get('frames'):
            end = t.get('walk_end_evidence')
            if not isinstance(end, dict) or not isinstance(end.get('tried'), list):
                problems.append('thread %d: walk_end_evidence %r' % (ti, end))
            else:
                check_refused('thread %d end' % ti, end['tried'])
    return problems


def text_without_evidence(text):
    return '\n'.join(l for l in text.split('\n')
                     if not l.startswith('    Evidence: ') and not l.startswith('    Walk ended: '))


def check_corpus(c, stackwalk, corpus):
    for name, argv in manifest_rows(corpus):
        code0, plain, _ = run_stackwalk(stackwalk, ['--json'] + argv)
        code1, explained, err = run_stackwalk(stackwalk, ['--json', '--explain'] + argv)
        c.check(code0 == code1 and code1 is not None and code1 < 128 and
                'Sanitizer' not in err and 'runtime error' not in err,
                '%s: exit %s with --explain, %s without (%s)' % (name, code1, code0, err.strip()))
        if not plain.strip() or not explained.strip():
            continue
        docs = documents(explained)
        same = [strip_evidence(copy.deepcopy(d)) for d in docs] == documents(plain)
        c.check(same, '%s: --explain changes the walk' % name)
        problems = [p for d in docs for p in evidence_problems(d)]
        c.check(not problems, '%s: %s' % (name, '; '.join(problems[:3])))
        c.check('"evidence"' not in plain, '%s: evidence without --explain' % name)
        _, tplain, _ = run_stackwalk(stackwalk, argv)
        _, texplained, _ = run_stackwalk(stackwalk, ['--explain'] + argv)
        has_frames = any(t.get('frames') for d in docs for t in d.get('threads', []))
        c.check(text_without_evidence(texplained) == tplain and
                ('Evidence: ' in texplained) == has_frames,
                '%s: the text with --explain is not the text with Evidence lines' % name)


def frame_evidence(stackwalk, argv, thread, frame):
    code, out, err = run_stackwalk(stackwalk, ['--json', '--explain'] + argv)
    if code is None or code >= 128 or not out.strip():
        return None, 'exit %s: %s' % (code, err.strip())
    doc = documents(out)[0]
    t = doc['threads'][thread]
    if frame == 'end':
        return t.get('walk_end_evidence'), ''
    for fr in t['frames']:
        if fr['frame'] == frame:
            return fr.get('evidence'), ''
    return None, 'no frame %d' % frame


def unpacked_core(testdata, work, case):
    path = os.path.join(work, case.replace('/', '-') + '.core')
    with gzip.open(os.path.join(testdata, 'cores', case, 'core.gz')) as src, \
            open(path, 'wb') as dst:
        shutil.copyfileobj(src, dst)
    return path


def check_pinned(c, stackwalk, corpus, testdata, work):
    bp = os.path.join(corpus, 'breakpad')
    rm = os.path.join(corpus, 'rust-minidump')
    fw = os.path.join(testdata, 'firmware', 'fixtures')
    cores = os.path.join(testdata, 'cores')
    libc = {'x86_64': '/lib/x86_64-linux-gnu', 'arm': '/usr/arm-linux-gnueabihf',
            'mips64el': '/usr/mips64el-linux-gnuabi64', 'aarch64': '/usr/aarch64-linux-gnu'}

    def core(case, with_program=True):
        arch = case.split('-')[0]
        if not os.path.isdir(libc[arch]):
            return None  # the cross libc (scripts/setup.sh) is not installed
        dirs = ([os.path.join(cores, case.split('/')[0])] if with_program else []) + [libc[arch]]
        return [unpacked_core(testdata, work, case)] + dirs

    # (what, argv, thread, frame, expected keys and values)
    pins = [
        ('a Breakpad STACK CFI rule', [os.path.join(bp, 'linux_overflow.dmp'),
                                       os.path.join(bp, 'symbols')], 0, 1,
         {'method': 'cfi', 'rule': 'STACK CFI .cfa: $rsp 8 + .ra: .cfa -8 + ^',
          'return_address_slot': '0x00007fff90d2b618'}),
        ('a frame record, no code bytes', [os.path.join(bp, 'ascii_read_av.dmp'),
                                           os.path.join(bp, 'symbols')], 0, 1,
         {'method': 'frame_pointer', 'frame_record': '0x0034fb54',
          'return_address_slot': '0x0034fb58', 'call': {'decoded': None, 'target': None},
          'refused': [{'method': 'cfi', 'reason': 'no_rule'},
                      {'method': 'bad_pc', 'reason': 'no_rule'}]}),
        ('the end of a frame-record chain', [os.path.join(bp, 'ascii_read_av.dmp'),
                                             os.path.join(bp, 'symbols')], 0, 'end',
         {'tried': [{'method': 'cfi', 'reason': 'no_rule'},
                    {'method': 'frame_pointer', 'reason': 'ends_walk'}]}),
        ('a leaf', [os.path.join(rm, 'invalid-parameter.dmp'), os.path.join(rm, 'symbols')],
         2, 1, {'method': 'leaf', 'return_address_slot': '0x000000fc21aff4e8'}),
        ('a Cortex-M exception frame', [os.path.join(fw, 'mps2-an385.snap'),
                                        os.path.join(fw, 'mps2-an385.elf')], 0, 1,
         {'method': 'exception_frame', 'exception_frame': '0x20000810',
          'exc_return': '0xfffffff1'}),
        ('DWARF CFI from the link register', [os.path.join(fw, 'mps2-an385.snap'),
                                              os.path.join(fw, 'mps2-an385.elf')], 0, 3,
         {'method': 'cfi', 'rule': '.debug_frame, FDE [0x300, 0x318): CFA=sp+8 ra=[CFA-4]',
          'rule_module': 'fw.elf', 'return_address_slot': '0x20000834'}),
    ]
    core_pins = [
        ('a signal frame', 'x86_64-O2nofp/signal', True, 0, 2, {'method': 'signal_frame'}),
        ('an .eh_frame row', 'x86_64-O2nofp/signal', True, 0, 3,
         {'method': 'cfi', 'rule_module': 'libc.so.6'}),
        ('a call through a bad pc', 'aarch64-O2nofp/nullcall', True, 0, 1,
         {'method': 'bad_pc', 'return_address_from': 'link_register',
          'call': {'decoded': True, 'target': None}}),
        ('prologue analysis', 'arm-O2nofp/abort', True, 0, 4,
         {'method': 'prologue', 'call': {'decoded': True, 'target': '0x3f6d5008'},
          'function_start': '0x3f6d5008'}),
        ('a scan past a decoded direct call', 'mips64el-O2nofp/thread', True, 1, 2,
         {'method': 'scan', 'call': {'decoded': True, 'target': '0x000000400281f8c0'}}),
    ]
    for what, case, with_program, thread, frame, want in core_pins:
        argv = core(case, with_program)
        if argv:
            pins.append((what + ' (%s)' % case, argv, thread, frame, want))
        else:
            print('skip %s: no %s' % (what, libc[case.split('-')[0]]))
    for what, argv, thread, frame, want in pins:
        got, err = frame_evidence(stackwalk, argv, thread, frame)
        wrong = {k: (got or {}).get(k) for k, v in want.items() if (got or {}).get(k) != v}
        c.check(got is not None and not wrong,
                '%s: thread %d frame %s: %s %s (want %s)' % (what, thread, frame, err,
                                                             wrong, want))
    # The signal frame's saved context lies at the trampoline's sp, the
    # frame below's (frame 1, __restore_rt: its CFI rule from the handler).
    argv = core('x86_64-O2nofp/signal')
    if argv:
        code, out, _ = run_stackwalk(stackwalk, ['--json', '--explain'] + argv)
        frames = documents(out)[0]['threads'][0]['frames']
        sp1 = frames[1]['registers']['rsp'] if 'registers' in frames[1] else None
        ev2 = frames[2]['evidence']
        rule1 = frames[1]['evidence'].get('rule', '')
        c.check(ev2.get('signal_frame') and (sp1 is None or ev2['signal_frame'] == sp1) and
                rule1.startswith('.eh_frame, FDE [') and 'CFA=rsp+8 ra=[CFA-8]' in rule1,
                'x86_64 signal: frame 2 %r, frame 1 rule %r' % (ev2, rule1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--stackwalk', required=True)
    ap.add_argument('--corpus', required=True)
    ap.add_argument('--testdata', required=True)
    ap.add_argument('--work', required=True)
    args = ap.parse_args()
    require_corpus(args.corpus, 'explain')
    work = fresh_dir(args.work)
    c = Checks('explain')
    check_corpus(c, args.stackwalk, args.corpus)
    check_pinned(c, args.stackwalk, args.corpus, args.testdata, work)
    return c.summary()


if __name__ == '__main__':
    sys.exit(main())
