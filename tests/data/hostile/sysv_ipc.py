# System V shared memory (outside RLIMIT_AS), semaphores, message queues, POSIX queues.
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
def attempt(name, r):
    print(("denied" if r in (-1, None) or r == ctypes.c_void_p(-1).value else "ESCAPED"), name, flush=True)
IPC_PRIVATE, IPC_CREAT = 0, 0o1000
attempt("shmget", libc.shmget(IPC_PRIVATE, 1 << 30, IPC_CREAT | 0o600))
attempt("shmat", libc.shmat(0, None, 0))
attempt("semget", libc.semget(IPC_PRIVATE, 1, IPC_CREAT | 0o600))
attempt("msgget", libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o600))
attempt("shmctl", libc.shmctl(0, 2, None))
# mq_open(name, O_CREAT|O_RDWR, 0600, NULL) = syscall 240
attempt("mq_open", libc.syscall(240, b"kcomp", 0o102, 0o600, None))
