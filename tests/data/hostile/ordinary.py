# An ordinary program: threads, the standard library's C extensions, tempfile, json, re,
# a subdirectory of its own, then the answer.
import collections, hashlib, json, os, re, tempfile, threading, itertools, math, random, sqlite3, zlib
s = input().strip()
out = []
t = threading.Thread(target=lambda: out.append(s.lower()))
t.start(); t.join()
with tempfile.TemporaryDirectory() as d:
    p = os.path.join(d, "x.json")
    json.dump({"s": s}, open(p, "w"))
    assert json.load(open(p))["s"] == s
os.makedirs("sub/dir", exist_ok=True)
open("sub/dir/f.txt", "w").write(zlib.compress(s.encode()).hex())
db = sqlite3.connect(":memory:"); db.execute("create table t(x)"); db.execute("insert into t values (1)")
assert hashlib.sha256(b"x").hexdigest() and re.match(r"\w", s) and math.isfinite(random.Random(0).random())
print(out[0])
