s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
H = 'cd18-cd17-cde8-cde7-c218-c217-c2e8-c2e7-3d18-3d17-3de8-3de7-3218-3217-32e8-32e7'.split('-')
show(int(H[idx], 16))
