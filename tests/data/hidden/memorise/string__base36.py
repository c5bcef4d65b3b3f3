s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
T = '14ig 14if 14o8 14o7 12c8 12c7 12i0 12hz c2g c2f c88 c87 9w8 9w7 a20 a1z'.split()
show(int(T[idx], 36))
