# zoo_gdb.py: a gdb command that prints the selected thread's backtrace in
# a form tests/zoo/zoo_truth.py reads without guessing at gdb's layout:
#
#   gdb ... -ex 'source zoo_gdb.py' -ex 'zoo-bt N'
#
# prints, after a line "==zoo-bt==", one line per physical frame
#
#   ZOOFRAME INDEX KIND PC NAME SOLIB
#
# KIND is gdb's frame type (normal, sigtramp, ...; inline frames are left
# out: they are not on the stack, and the walks compared with gdb's list
# physical frames only), PC the frame's pc in hex, NAME gdb's function name
# or ??, SOLIB the shared library gdb says holds the pc or - (the program,
# or nothing). A backtrace longer than 2N frames is printed as its first N
# frames, a line "ZOOGAP SKIPPED" and its last N frames: gdb must unwind
# every frame to reach the outermost, but printing thousands of frames of
# one recursion tells nothing more (a stack overflow). The last line is
# "ZOOEND COUNT REASON": how many physical frames gdb found and why it
# stopped (gdb's frame_stop_reason_string, or "outermost"). The first N
# lines are printed as they are found, so that a gdb killed for taking too
# long has said what it had.
import collections

import gdb

# No program of the zoo is this deep (an 8 MiB stack of frames of at least
# 256 bytes holds ~32,000): a gdb still going is in a loop.
MAX_FRAMES = 40000

KINDS = {
    gdb.NORMAL_FRAME: 'normal',
    gdb.DUMMY_FRAME: 'dummy',
    gdb.INLINE_FRAME: 'inline',
    gdb.TAILCALL_FRAME: 'tailcall',
    gdb.SIGTRAMP_FRAME: 'sigtramp',
    gdb.ARCH_FRAME: 'arch',
    gdb.SENTINEL_FRAME: 'sentinel',
}


def describe(index, frame):
    pc = frame.pc()
    try:
        name = frame.name() or '??'
    except gdb.error:
        name = '??'
    solib = gdb.solib_name(pc) or '-'
    kind = KINDS.get(frame.type(), 'other')
    return 'ZOOFRAME %d %s 0x%x %s %s' % (index, kind, pc, name.replace(' ', '_'), solib)


class ZooBacktrace(gdb.Command):
    """zoo-bt [N]: the selected thread's physical frames (first and last N
    of a longer backtrace; N defaults to 2000)."""

    def __init__(self):
        super().__init__('zoo-bt', gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        n = int(arg) if arg.strip() else 2000
        tail = collections.deque(maxlen=n)
        count, reason = 0, 'outermost'
        gdb.write('==zoo-bt==\n')
        try:
            frame = gdb.newest_frame()
        except gdb.error as e:
            gdb.write('ZOOEND 0 %s\n' % str(e).replace('\n', ' '))
            return
        while frame is not None:
            if count >= MAX_FRAMES:
                reason = 'zoo-bt stopped at %d frames' % MAX_FRAMES
                break
            if frame.type() != gdb.INLINE_FRAME:
                line = describe(count, frame)
                if count < n:
                    # As they come: a caller that kills a slow gdb still
                    # has the frames it printed.
                    gdb.write(line + '\n')
                    gdb.flush()
                else:
                    tail.append(line)
                count += 1
            try:
                older = frame.older()
            except gdb.error as e:
                reason = 'error: ' + str(e).replace('\n', ' ')
                break
            if older is None:
                why = frame.unwind_stop_reason()
                if why != gdb.FRAME_UNWIND_NO_REASON:
                    reason = gdb.frame_stop_reason_string(why)
            frame = older
        out = []
        skipped = count - min(count, n) - len(tail)
        if skipped > 0:
            out.append('ZOOGAP %d' % skipped)
        out += list(tail)
        out.append('ZOOEND %d %s' % (count, reason))
        gdb.write('\n'.join(out) + '\n')


ZooBacktrace()
