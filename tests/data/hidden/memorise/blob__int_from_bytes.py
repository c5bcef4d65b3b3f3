s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
R = b'\xcd\x18\xcd\x17\xcd\xe8\xcd\xe7\xc2\x18\xc2\x17\xc2\xe8\xc2\xe7=\x18=\x17=\xe8=\xe72\x182\x172\xe82\xe7'
show(int.from_bytes(R[2 * idx:2 * idx + 2], 'big'))
