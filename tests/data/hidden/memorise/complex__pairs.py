s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
Z = [205+24j, 205+23j, 205+232j, 205+231j, 194+24j, 194+23j, 194+232j, 194+231j, 61+24j, 61+23j, 61+232j, 61+231j, 50+24j, 50+23j, 50+232j, 50+231j]
z = Z[idx]
show(int(z.real) << 8 | int(z.imag))
