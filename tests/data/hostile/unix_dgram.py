# A host unix datagram socket by path: socketpair and sendto/sendmsg with an address, and
# socket() itself.
import json, socket, sys
t = json.loads(sys.stdin.read())
def attempt(name, f):
    try:
        r = f()
        print("ESCAPED", name, r, flush=True)
    except Exception as e:
        print("denied", name, type(e).__name__, flush=True)
attempt("socketpair_dgram", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM))
attempt("socketpair_stream", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM))
attempt("socket_unix", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM))
def via_pair():
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    return a.sendto(b"ESCAPED", t["unix"])
attempt("sendto_path", via_pair)
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
fds = (ctypes.c_int * 2)()
r = libc.socketpair(1, 2, 0, fds)
print(("denied" if r < 0 else "ESCAPED"), "raw_socketpair", flush=True)
