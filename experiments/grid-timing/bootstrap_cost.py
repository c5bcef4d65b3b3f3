"""Interpreter start cost of the sandbox bootstrap's exec-filter prologue: no filter, the old
`ctypes` prologue and the current `_ctypes` one (a filter allowing everything is installed;
needs root or no_new_privs). Usage: python3 bootstrap_cost.py /path/to/python3 (the real
interpreter, not a pyenv shim). Runs the three interleaved, 60 times each."""
import subprocess, time, sys, statistics
f='060000000000ff7f'
old=f'''import sys
def _k():
 import os
 import ctypes as C
 f=bytes.fromhex('{f}');b=C.create_string_buffer(f,len(f))
 class P(C.Structure):_fields_=[('n',C.c_ushort),('f',C.c_void_p)]
 if C.CDLL(None,use_errno=True).prctl(22,2,C.byref(P(len(f)//8,C.addressof(b))),0,0)!=0:os._exit(125)
_k()
'''
new=f'''import sys
def _k():
 import os
 import _ctypes as C
 f=bytes.fromhex('{f}')
 class c(C._SimpleCData):_type_='c'
 b=(c*len(f)).from_buffer_copy(f);o=sys.byteorder
 p=(len(f)//8).to_bytes(2,o)+bytes(6)+C.addressof(b).to_bytes(8,o)
 if C.call_function(C.dlsym(C.dlopen(None,2),'prctl'),(22,2,p,0,0))!=0:os._exit(125)
_k()
'''
base='import sys\ndef _k():\n import os\n_k()\n'
res={'no filter':[], 'ctypes (before)':[], '_ctypes (after)':[]}
py=sys.argv[1]
for i in range(60):
    for k,c in (('no filter',base),('ctypes (before)',old),('_ctypes (after)',new)):
        t=time.perf_counter(); r=subprocess.run([py,'-I','-S','-c',c]); res[k].append(time.perf_counter()-t); assert r.returncode==0
for k,v in res.items():
    v.sort(); print(f'{k:18s} median {statistics.median(v)*1000:6.1f} ms   lowest decile {v[len(v)//10]*1000:6.1f} ms')
