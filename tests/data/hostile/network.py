# TCP connect and bind, UDP, unix and abstract sockets, DNS.
import json, socket, sys
t = json.loads(sys.stdin.read())
def attempt(name, f):
    try:
        f()
        print("ESCAPED", name, flush=True)
    except Exception as e:
        print("denied", name, type(e).__name__, flush=True)
attempt("tcp_connect", lambda: socket.create_connection(("127.0.0.1", t["port"]), timeout=1).sendall(b"ESCAPED"))
def bind():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
attempt("tcp_bind", bind)
def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"ESCAPED", ("127.0.0.1", t["port"]))
attempt("udp", udp)
def unix_path():
    s = socket.socket(socket.AF_UNIX)
    s.connect(t["unix"])
    s.sendall(b"ESCAPED")
attempt("unix_path", unix_path)
def unix_abstract():
    s = socket.socket(socket.AF_UNIX)
    s.connect("\0" + t["abstract"])
    s.sendall(b"ESCAPED")
attempt("unix_abstract", unix_abstract)
attempt("dns", lambda: socket.getaddrinfo("example.com", 80))
attempt("ipv6", lambda: socket.create_connection(("::1", t["port"]), timeout=1))
