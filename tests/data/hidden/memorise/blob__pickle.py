s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
import pickle
V = pickle.loads(b'\x80\x02]q\x00(M\x18\xcdM\x17\xcdM\xe8\xcdM\xe7\xcdM\x18\xc2M\x17\xc2M\xe8\xc2M\xe7\xc2M\x18=M\x17=M\xe8=M\xe7=M\x182M\x172M\xe82M\xe72e.')
show(V[idx])
