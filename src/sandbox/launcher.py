# The supervisor inside every ngym sandbox box (see src/sandbox/box.ts for the host side).
#
# It runs as PID 1 of the box's PID namespace, so no process of a run can signal it (the kernel drops
# signals to a namespace's init unless it handles them) and killing it ends every process in the box.
# It is made non-dumpable, so a run cannot ptrace it or open /proc/1/mem, /proc/1/fd or /proc/1/environ.
#
# Protocol on fd 0 (host -> box) and fd 1 (box -> host): frames of one type byte, a 4-byte big-endian
# length and the payload.
#   host -> box: j <job JSON>  i <stdin bytes>  c (close stdin)  k (kill the run)  z (reset)  q (quit)
#   box -> host: R <ready JSON>  o <stdout bytes>  e <stderr bytes>  r <result JSON>  Z <reset JSON>
# A run's program gets fresh pipes as stdin/stdout/stderr; it never holds the host's pipes.
import base64
import errno
import json
import os
import resource
import select
import signal
import struct
import sys
import time

CONFIG = json.loads(sys.argv[1])
HEADER = struct.Struct(">cI")
CHUNK = 65536
PAGE = os.sysconf("SC_PAGE_SIZE")
MEMORY_POLL_SECONDS = 0.05


def make_undumpable():
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")
    return libc


LIBC = make_undumpable()


def send(kind, payload=b""):
    if isinstance(payload, str):
        payload = payload.encode()
    data = HEADER.pack(kind, len(payload)) + payload
    view = memoryview(data)
    while view:
        view = view[os.write(1, view):]


def send_json(kind, value):
    send(kind, json.dumps(value))


class HostReader:
    """Frames from the host on fd 0."""

    def __init__(self):
        self.buffer = bytearray()
        self.closed = False

    def fill(self):
        data = os.read(0, CHUNK)
        if not data:
            self.closed = True
        self.buffer += data

    def frames(self):
        while len(self.buffer) >= HEADER.size:
            kind, length = HEADER.unpack_from(self.buffer)
            if len(self.buffer) < HEADER.size + length:
                return
            payload = bytes(self.buffer[HEADER.size:HEADER.size + length])
            del self.buffer[:HEADER.size + length]
            yield kind, payload

    def next_frame(self):
        """Blocks until one whole frame is there; None when the host closed the pipe."""
        while True:
            for frame in self.frames():
                return frame
            if self.closed:
                return None
            self.fill()


def kill_others():
    try:
        os.kill(-1, signal.SIGKILL)  # from PID 1: every other process of the namespace
    except ProcessLookupError:
        pass


def cpu_of(usage):
    return usage.ru_utime + usage.ru_stime


def resident_bytes():
    total = 0
    for name in os.listdir("/proc"):
        if not name.isdigit() or name == "1":
            continue
        try:
            with open(f"/proc/{name}/statm", "rb") as statm:
                total += int(statm.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            pass  # exited meanwhile
    return total


def write_files(files, workdir):
    for path, encoded, mode in files:
        target = os.path.join(workdir, path)
        parent = os.path.dirname(target)
        if parent:
            os.makedirs(parent, exist_ok=True)
        descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        try:
            view = memoryview(base64.b64decode(encoded))
            while view:
                view = view[os.write(descriptor, view):]
        finally:
            os.close(descriptor)


def set_limits(limits):
    def limit(kind, value):
        if value is not None:
            resource.setrlimit(kind, (value, value))

    cpu = limits.get("cpu_seconds")
    if cpu is not None:
        # The soft limit sends SIGXCPU; the hard one, a second later, SIGKILL for a program that ignores it.
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    limit(resource.RLIMIT_AS, limits.get("memory_bytes"))
    processes = limits.get("processes")
    # RLIMIT_NPROC counts every task of our uid in this user namespace, this supervisor included.
    limit(resource.RLIMIT_NPROC, None if processes is None else processes + 1)
    limit(resource.RLIMIT_FSIZE, limits.get("file_size_bytes"))
    limit(resource.RLIMIT_NOFILE, limits.get("open_files"))
    limit(resource.RLIMIT_CORE, 0)
    # POSIX message queues would outlive the run in this IPC namespace: none may be created.
    limit(resource.RLIMIT_MSGQUEUE, 0)


def exec_child(job, stdin_read, stdout_write, stderr_write, error_write):
    try:
        os.dup2(stdin_read, 0)
        os.dup2(stdout_write, 1)
        os.dup2(stderr_write, 2)
        signal.set_wakeup_fd(-1)
        for number in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGCHLD, signal.SIGINT, signal.SIGTERM):
            signal.signal(number, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        os.chdir(job["cwd"])
        set_limits(job["limits"])
        os.execvpe(job["argv"][0], job["argv"], job["env"])
    except BaseException as error:  # noqa: BLE001 - everything goes back to the supervisor
        code = getattr(error, "errno", None) or 0
        os.write(error_write, json.dumps([code, f"{type(error).__name__}: {error}"]).encode())
    os._exit(127)


def run(job, reader, wake_read):
    limits = job["limits"]
    write_files(job.get("files", []), CONFIG["workdir"])
    stdin_read, stdin_write = os.pipe()
    stdout_read, stdout_write = os.pipe()
    if job.get("merge_stderr"):
        stderr_read, stderr_write = None, stdout_write
    else:
        stderr_read, stderr_write = os.pipe()
    error_read, error_write = os.pipe()

    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        exec_child(job, stdin_read, stdout_write, stderr_write, error_write)
    for descriptor in {stdin_read, stdout_write, stderr_write, error_write}:
        os.close(descriptor)
    with os.fdopen(error_read, "rb") as errors:
        failure = errors.read()  # empty once exec succeeded (the pipe is close-on-exec)

    wall_limit = limits.get("wall_seconds")
    deadline = None if wall_limit is None else started + wall_limit
    output_limit = limits.get("output_bytes")
    memory_limit = limits.get("memory_bytes")
    next_memory_poll = started + MEMORY_POLL_SECONDS

    streams = {stdout_read: [b"o", 0, False]}
    if stderr_read is not None:
        streams[stderr_read] = [b"e", 0, False]
    pending_stdin = bytearray()
    stdin_closing = False
    stop_reason = None
    main_status = None
    main_cpu = 0.0
    main_wall = None
    cpu = 0.0
    max_rss = 0
    children = True

    def stop(reason):
        nonlocal stop_reason
        if stop_reason is None and main_status is None:
            stop_reason = reason
        kill_others()

    def reap():
        nonlocal main_status, main_cpu, main_wall, cpu, max_rss, children
        while True:
            try:
                child, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                children = False
                return
            if child == 0:
                return
            cpu += cpu_of(usage)
            max_rss = max(max_rss, usage.ru_maxrss * 1024)
            if child == pid:
                main_status = status
                main_cpu = cpu_of(usage)
                main_wall = time.monotonic() - started
                kill_others()  # a run ends with its main process: nothing it started outlives it

    if failure:
        code, message = json.loads(failure)
        while children:
            try:
                os.wait4(-1, 0)
            except ChildProcessError:
                children = False
        for descriptor in [stdin_write, *streams]:
            os.close(descriptor)
        return {"status": "exec_failed", "exit_code": None, "signal": None, "errno": code, "reason": message,
                "wall_seconds": time.monotonic() - started, "cpu_seconds": 0.0, "max_rss_bytes": 0}

    while streams or children or main_status is None:
        now = time.monotonic()
        if stop_reason is None and main_status is None:
            if deadline is not None and now >= deadline:
                stop("wall_timeout")
            elif memory_limit is not None and now >= next_memory_poll:
                next_memory_poll = now + MEMORY_POLL_SECONDS
                if resident_bytes() > memory_limit:
                    stop("memory_limit")
        if stop_reason is not None or main_status is not None:
            kill_others()  # again: a fork racing the first kill
        timeouts = [1.0]
        if deadline is not None and stop_reason is None and main_status is None:
            timeouts.append(max(0.0, deadline - now))
        if memory_limit is not None and stop_reason is None and main_status is None:
            timeouts.append(max(0.0, next_memory_poll - now))
        readers = [wake_read, *streams]
        if not reader.closed:
            readers.append(0)
        writers = [stdin_write] if stdin_write is not None and (pending_stdin or stdin_closing) else []
        readable, writable, _ = select.select(readers, writers, [], min(timeouts))

        if wake_read in readable:
            try:
                os.read(wake_read, CHUNK)
            except BlockingIOError:
                pass
        reap()

        if 0 in readable:
            reader.fill()
        # Frames may have arrived with the job itself: handle what is buffered, not only what is new.
        for kind, payload in reader.frames():
            if kind == b"i":
                if stdin_write is not None and not stdin_closing:
                    pending_stdin += payload
            elif kind == b"c":
                stdin_closing = True
            elif kind in (b"k", b"q"):
                stop("killed")
                if kind == b"q":
                    reader.closed = True
        if reader.closed:
            stop("killed")

        for descriptor in [d for d in streams if d in readable]:
            kind, produced, truncated = streams[descriptor]
            data = os.read(descriptor, CHUNK)
            if not data:
                os.close(descriptor)
                del streams[descriptor]
                continue
            if output_limit is not None and produced + len(data) > output_limit:
                data = data[:max(0, output_limit - produced)]
                streams[descriptor][2] = True
                stop("output_limit")
            streams[descriptor][1] = produced + len(data)
            if data:
                send(kind, data)

        if stdin_write is not None and stdin_write in writable:
            if pending_stdin:
                try:
                    written = os.write(stdin_write, pending_stdin[:CHUNK])
                    del pending_stdin[:written]
                except BrokenPipeError:
                    pending_stdin.clear()
                    stdin_closing = True
            if not pending_stdin and stdin_closing:
                os.close(stdin_write)
                stdin_write = None
        if stdin_write is not None and main_status is not None:
            os.close(stdin_write)
            stdin_write = None

    if stdin_write is not None:
        os.close(stdin_write)
    wall = main_wall if main_wall is not None else time.monotonic() - started
    result = {"exit_code": None, "signal": None, "wall_seconds": wall, "cpu_seconds": cpu, "max_rss_bytes": max_rss,
              "stdout_truncated": False, "stderr_truncated": False}
    if os.WIFEXITED(main_status):
        result["exit_code"] = os.WEXITSTATUS(main_status)
    elif os.WIFSIGNALED(main_status):
        result["signal"] = signal.Signals(os.WTERMSIG(main_status)).name
    cpu_limit = limits.get("cpu_seconds")
    if stop_reason is not None:
        result["status"] = stop_reason
    elif result["signal"] == "SIGXCPU" or (result["signal"] == "SIGKILL" and cpu_limit is not None and main_cpu >= cpu_limit):
        result["status"] = "cpu_timeout"
    elif result["signal"] == "SIGXFSZ":
        result["status"] = "file_size_limit"
    elif result["signal"] is not None:
        result["status"] = "signaled"
    else:
        result["status"] = "exited"
    return result


def remove_ipc_objects():
    """System V IPC objects outlive processes in this IPC namespace; remove what a run left."""
    for table, control in (("shm", LIBC.shmctl), ("sem", LIBC.semctl), ("msg", LIBC.msgctl)):
        try:
            with open(f"/proc/sysvipc/{table}") as listing:
                rows = listing.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            identifier = int(row.split()[1])
            if table == "sem":
                control(identifier, 0, 0)  # IPC_RMID
            else:
                control(identifier, 0, None)


def wipe(path):
    for entry in os.scandir(path):
        if entry.is_dir(follow_symlinks=False):
            wipe(entry.path)
            os.rmdir(entry.path)
        else:
            os.unlink(entry.path)


def reset():
    started = time.monotonic()
    kill_others()
    while True:
        try:
            os.wait4(-1, 0)
        except ChildProcessError:
            break
    for path in CONFIG["wipe"]:
        for root, directories, _ in os.walk(path):
            for directory in directories:  # a run may have left a directory it cannot be emptied through
                os.chmod(os.path.join(root, directory), 0o700)
        wipe(path)
    remove_ipc_objects()
    survivors = [name for name in os.listdir("/proc") if name.isdigit() and name != "1"]
    return {"ok": not survivors, "survivors": len(survivors), "seconds": time.monotonic() - started}


def main():
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)

    reader = HostReader()
    send_json(b"R", {"pid": os.getpid(), "python": sys.version.split()[0]})
    while True:
        frame = reader.next_frame()
        if frame is None:
            return
        kind, payload = frame
        if kind == b"j":
            try:
                result = run(json.loads(payload), reader, wake_read)
            except Exception as error:  # noqa: BLE001 - reported as the run's failure
                kill_others()
                result = {"status": "sandbox_error", "reason": f"{type(error).__name__}: {error}"}
            send_json(b"r", result)
        elif kind == b"z":
            try:
                send_json(b"Z", reset())
            except Exception as error:  # noqa: BLE001
                send_json(b"Z", {"ok": False, "reason": f"{type(error).__name__}: {error}"})
        elif kind == b"q":
            return
        # Stray stdin/kill frames for a run that already ended are ignored.


main()
